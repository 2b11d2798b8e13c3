import { createHash } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { notFound } from '../errors.js';
import { LruCache } from './lru.js';
import { compareEntries, matchBlocks, ObjectIds } from './merge-parents.js';
import { isGitError, runGit, spawnGit, type GitChild } from './run-git.js';

/** One entry of a folder listing; every field is a string (spec: File entry). */
export interface FileEntry {
  name: string;
  /** Subject of the newest commit on the branch that touched the entry. */
  last_msg: string;
  /** Full id of that commit. */
  last_hash: string;
  /** Its committer time, ISO 8601 UTC. */
  last_time: string;
  /** Size in bytes for files, "0" for folders and submodules. */
  size: string;
}

interface CommitInfo {
  hash: string;
  time: string;
  msg: string;
}

interface WalkCommit {
  info: CommitInfo;
  parents: string[];
  /** Entries changed against each non-identical parent, in parent order (git prints no block for an empty diff). */
  blocks: Set<string>[];
}

const OID = '[0-9a-f]{40}(?:[0-9a-f]{24})?';
const HEADER_RE = new RegExp(`^\\x01(${OID})((?: ${OID})*) ?\\x02(\\d+)\\x02(.*)$`, 's');
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };
/** A walk phase longer than this is stopped (the listing then fails rather than hold a request forever). */
const WALK_TIMEOUT_MS = 120_000;

const isoTime = (seconds: string) => new Date(Number(seconds) * 1000).toISOString().replace('.000Z', 'Z');

/** An entry's last commit as a listing shows it (empty strings when unknown). */
export type LastCommit = Pick<FileEntry, 'last_msg' | 'last_hash' | 'last_time'>;

const pickLast = (entry: LastCommit | undefined): LastCommit => ({ last_msg: entry?.last_msg ?? '', last_hash: entry?.last_hash ?? '', last_time: entry?.last_time ?? '' });

/** A walk's answer as listing fields (times as ISO 8601), like `#compute` makes them. */
function toLast(info: CommitInfo | undefined): LastCommit {
  if (!info) return pickLast(undefined);
  return { last_msg: info.msg, last_hash: info.hash, last_time: /^\d+$/.test(info.time) ? isoTime(info.time) : info.time };
}

/**
 * Folder listings with the last commit per entry, computed in one history walk and cached by
 * (commit, folder) forever, since they never change for a given commit id.
 *
 * "Last commit" means exactly what `git log -1 <commit> -- <entry>` prints: history is followed with
 * git's default simplification per entry (at a merge, the first parent the entry is unchanged
 * against; a merge unchanged against no parent is itself the answer). All entries are followed
 * at once over `git log --full-history --parents -m` of the folder, grouped by the commit they
 * have reached, and the walk stops as soon as every entry is answered or meets a cached listing.
 */
export class TreeListing {
  readonly #cache: LruCache<string, Map<string, FileEntry>>;

  /** Last commits of some entries of large folders (a page each), by commit, folder and the names asked for. */
  readonly #some = new LruCache<string, Map<string, LastCommit>>(64);
  readonly #narrowAfter: number;
  readonly #inFlight = new Map<string, Promise<Map<string, FileEntry>>>();
  readonly #someInFlight = new Map<string, Promise<Map<string, LastCommit>>>();
  /** Entries answered by the slow per-entry fallback (expected to stay 0; tests check it). */
  fallbacks = 0;

  /**
   * @param cacheSize listings kept (LRU)
   * @param narrowAfter commits a walk phase reads before it may restart narrowed to the unanswered entries
   */
  constructor(cacheSize = 512, narrowAfter = 16) {
    this.#cache = new LruCache(cacheSize);
    this.#narrowAfter = narrowAfter;
  }

  /** Lists `folder` ('' for the top level) at `commit` (a full commit id) of the repository at `gitDir`. */
  async list(gitDir: string, commit: string, folder: string): Promise<FileEntry[]> {
    const key = `${commit}\0${folder}`;
    const cached = this.#cache.get(key);
    if (cached) return [...cached.values()].map((entry) => ({ ...entry }));
    // Concurrent cold requests for one listing share a single walk.
    let running = this.#inFlight.get(key);
    if (!running) {
      running = this.#compute(gitDir, commit, folder, key).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, running);
    }
    return [...(await running).values()].map((entry) => ({ ...entry }));
  }

  /**
   * The last commit of each of `names` (entries of `folder` at `commit`): the walk follows only them, so a page of a
   * folder of 20,000 entries costs what its own entries cost. Answered from the whole folder's listing when cached.
   */
  async lastCommits(gitDir: string, commit: string, folder: string, names: readonly string[]): Promise<Map<string, LastCommit>> {
    const whole = this.#cache.get(`${commit}\0${folder}`);
    if (whole) return new Map(names.map((name) => [name, pickLast(whole.get(name))]));
    const key = `${commit}\0${folder}\0${createHash('sha1').update(names.join('\0')).digest('hex')}`;
    const cached = this.#some.get(key);
    if (cached) return cached;
    let running = this.#someInFlight.get(key);
    if (!running) {
      running = this.#walk(gitDir, commit, folder, [...names])
        .then((answers) => {
          const found = new Map(names.map((name) => [name, toLast(answers.get(name))]));
          this.#some.set(key, found);
          return found;
        })
        .finally(() => this.#someInFlight.delete(key));
      this.#someInFlight.set(key, running);
    }
    return running;
  }

  async #compute(gitDir: string, commit: string, folder: string, key: string): Promise<Map<string, FileEntry>> {
    const items = await this.#tree(gitDir, commit, folder);
    const answers = await this.#walk(gitDir, commit, folder, items.map((item) => item.name));
    const entries = new Map<string, FileEntry>();
    for (const item of items) {
      const info = answers.get(item.name);
      if (info && /^\d+$/.test(info.time)) info.time = isoTime(info.time);
      entries.set(item.name, {
        name: item.name,
        last_msg: info?.msg ?? '',
        last_hash: info?.hash ?? '',
        last_time: info?.time ?? '',
        size: item.size,
      });
    }
    this.#cache.set(key, entries);
    return entries;
  }

  async #tree(gitDir: string, commit: string, folder: string): Promise<{ name: string; size: string }[]> {
    const treeish = folder ? `${commit}:${folder}` : `${commit}^{tree}`;
    let stdout: Buffer;
    try {
      ({ stdout } = await runGit(['ls-tree', '-z', '-l', treeish], { gitDir }));
    } catch (error) {
      if (isGitError(error) && error.code === 128) throw notFound('path not found');
      throw error;
    }
    const items: { name: string; size: string }[] = [];
    for (const record of stdout.toString('utf8').split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [, type, , size] = record.slice(0, tab).split(/ +/);
      items.push({ name: record.slice(tab + 1), size: type === 'blob' && size && /^\d+$/.test(size) ? size : '0' });
    }
    return items;
  }

  async #walk(gitDir: string, tip: string, folder: string, names: string[]): Promise<Map<string, CommitInfo>> {
    const total = names.length;
    const answers = new Map<string, CommitInfo>();
    if (total === 0) return answers;
    const prefix = folder ? `${folder}/` : '';
    const commits = new Map<string, WalkCommit>();
    const parked = new Map<string, Set<string>>();
    const expected = new Set<string>([tip]);
    let objectIds: ObjectIds | undefined;

    const resolve = (entry: string, info: CommitInfo) => {
      if (!answers.has(entry)) answers.set(entry, info);
    };
    const park = (commit: string, entries: Set<string>) => {
      const group = parked.get(commit);
      if (group) for (const entry of entries) group.add(entry);
      else parked.set(commit, entries);
    };
    const step = async (start: string, startEntries: Set<string>, narrowedPhase = false) => {
      const work: [string, Set<string>][] = [[start, startEntries]];
      while (work.length > 0) {
        const [commit, entries] = work.pop()!;
        const hit = this.#cache.get(`${commit}\0${folder}`);
        if (hit) {
          for (const entry of [...entries]) {
            const known = hit.get(entry);
            if (known?.last_hash) {
              resolve(entry, { hash: known.last_hash, time: known.last_time, msg: known.last_msg });
              entries.delete(entry);
            }
          }
          if (entries.size === 0) continue;
        }
        const data = commits.get(commit);
        if (!data) {
          park(commit, entries);
          continue;
        }
        const { parents, blocks, info } = data;
        if (parents.length <= 1) {
          const changed = new Set<string>();
          for (const block of blocks) for (const entry of block) changed.add(entry);
          const rest = new Set<string>();
          for (const entry of entries) {
            if (parents.length === 0 || changed.has(entry)) resolve(entry, info);
            else rest.add(entry);
          }
          if (rest.size > 0) work.push([parents[0]!, rest]);
          continue;
        }
        let perParent: Set<string>[];
        if (blocks.length === parents.length) perParent = blocks;
        else if (blocks.length === 0) perParent = parents.map(() => new Set());
        else {
          objectIds ??= new ObjectIds(gitDir);
          perParent = narrowedPhase
            ? await compareEntries(objectIds, commit, parents, entries, prefix)
            : await matchBlocks(objectIds, commit, parents, blocks, folder);
        }
        const groups = new Map<number, Set<string>>();
        for (const entry of entries) {
          const index = perParent.findIndex((changed) => !changed.has(entry));
          if (index < 0) resolve(entry, info);
          else {
            const group = groups.get(index) ?? new Set<string>();
            group.add(entry);
            groups.set(index, group);
          }
        }
        for (const [index, group] of groups) work.push([parents[index]!, group]);
      }
    };

    await step(tip, new Set(names));

    // Walk in phases: the first over the whole folder; once most entries are answered, restart from
    // where the rest stand with a pathspec of just those entries, so git prunes (with Bloom filters,
    // skips) everything else instead of printing every change of the folder.
    let narrowed: string[] | null = null;
    let tips = [tip];
    try {
      while (answers.size < total && parked.size > 0) {
        const unresolvedAtStart = total - answers.size;
        commits.clear();
        expected.clear();
        for (const commit of tips) expected.add(commit);
        const args = ['log', '--full-history', '--parents', '-m', '--no-renames', '--name-only', '-z', '--no-decorate', '--no-color', '--format=%x01%H %P%x02%ct%x02%s', ...tips, '--'];
        if (narrowed) args.push(...narrowed.map((entry) => `${prefix}${entry}`));
        else if (folder) args.push(folder);
        const phase = { narrowed: narrowed !== null };
        const child: GitChild = spawnGit(args, { gitDir, env: LITERAL, timeoutMs: WALK_TIMEOUT_MS });
        child.stdin.end();
        const decoder = new StringDecoder('utf8');
        let rest = '';
        let current: WalkCommit | undefined;
        let currentHash = '';
        let seen = 0;
        let narrow = false;
        const finish = async () => {
          if (!current) return;
          const commit = current;
          const hash = currentHash;
          current = undefined;
          seen += 1;
          commits.set(hash, commit);
          const waiting = parked.get(hash);
          if (waiting) {
            parked.delete(hash);
            await step(hash, waiting, phase.narrowed);
          }
          const remaining = total - answers.size;
          // Only from a single commit: a narrowed walk does not print a start commit that leaves the
          // pathspec alone, but then its first commit is the one the group moves to (see below).
          if (seen >= this.#narrowAfter && parked.size === 1 && remaining > 0 && remaining <= 256 && remaining < unresolvedAtStart && (!phase.narrowed || remaining * 2 <= unresolvedAtStart)) narrow = true;
        };
        try {
          chunks: for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
            rest += decoder.write(chunk);
            const tokens = rest.split('\0');
            rest = tokens.pop() ?? '';
            for (const token of tokens) {
              const header = token.charCodeAt(0) === 1 ? HEADER_RE.exec(token) : null;
              if (header && seen === 0 && !current && parked.size === 1 && !expected.has(header[1]!)) {
                // The start commit left the pathspec alone, so git skipped it; with a single start
                // and nothing else queued, the first commit printed is the next one on its
                // single-parent chain: the group continues there.
                const [start, group] = [...parked][0]!;
                parked.delete(start);
                park(header[1]!, group);
                expected.add(header[1]!);
              }
              if (header && (expected.has(header[1]!) || header[1] === currentHash)) {
                if (header[1] === currentHash && current) continue; // -m repeats the header per parent
                await finish();
                if (narrow || answers.size >= total) break chunks;
                currentHash = header[1]!;
                const parents = header[2] ? header[2].trim().split(' ') : [];
                for (const parent of parents) expected.add(parent);
                current = { info: { hash: currentHash, time: header[3]!, msg: header[4]! }, parents, blocks: [] };
                continue;
              }
              if (!current) continue;
              let path = token;
              if (path.charCodeAt(0) === 10) {
                path = path.slice(1);
                current.blocks.push(new Set());
              }
              const block = current.blocks[current.blocks.length - 1];
              if (!block || !path.startsWith(prefix)) continue;
              const slash = path.indexOf('/', prefix.length);
              block.add(slash < 0 ? path.slice(prefix.length) : path.slice(prefix.length, slash));
            }
          }
          if (!narrow && answers.size < total) await finish();
        } finally {
          child.kill('SIGKILL');
          const failure = await child.done.then(() => undefined, (error: unknown) => error);
          if (isGitError(failure) && failure.timedOut) throw failure;
        }
        if (!narrow) break;
        const pending = new Set<string>();
        for (const group of parked.values()) for (const entry of group) pending.add(entry);
        narrowed = [...pending];
        tips = [...parked.keys()];
      }
    } finally {
      objectIds?.close();
    }

    // Should not happen; kept so that a surprise in git's output degrades to slow, not wrong.
    for (const [commit, entries] of parked) {
      for (const entry of entries) {
        if (answers.has(entry)) continue;
        this.fallbacks += 1;
        const { stdout } = await runGit(['log', '-1', '--format=%H%x02%ct%x02%s', commit, '--', `${prefix}${entry}`], { gitDir, env: LITERAL });
        const [hash, time, msg] = stdout.toString('utf8').trimEnd().split('\x02');
        if (hash) resolve(entry, { hash, time: isoTime(time ?? '0'), msg: msg ?? '' });
      }
    }
    return answers;
  }
}
