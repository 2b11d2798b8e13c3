import { access, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ChangeFeed } from '../store/interface.js';
import type { Readable } from 'node:stream';
import { conflict, invalid, notAllowed, notFound, tooLarge } from '../errors.js';
import { GitBrowser } from './browse.js';
import { changedFiles, commitsBetween, diffStats, streamDiff, streamFormatPatch, type ChangedFile, type CommitSummary, type DiffStats } from './diff.js';
import { isAncestor, mergingCommit } from './ancestry.js';
import { merge, MergeRefusedError, mergeTree, type MergedTree, type MergeOptions, type MergeResult } from './merge.js';
import { checkImportSource } from './import-guard.js';
import { LruCache, remembered } from './lru.js';
import { Maintenance } from './maintenance.js';
import { isSafeBranchName, normaliseTreePath, repositoryPath } from './names.js';
import { newCommits, pushedRef, type PushedCommit, type PushedRef } from './push-commits.js';
import { HookChannel } from './push/channel.js';
import { readCommit, type CommitObject } from './objects.js';
import { ReceiveSessions, type RefCheck } from './push/session.js';
import { RefCache, type RefChange } from './refs.js';
import { folderBytes, watchFolderSize } from './size-watch.js';
import { isGitError, runGit } from './run-git.js';
import { handleSmartHttp, type GitHttpResult, type ReceiveSetup, type SmartHttpRequest } from './smart-http.js';
import { serveGitStream, type GitStreamIo, type StreamService } from './stream-transport.js';
import { ObjectCache, repositoryScope } from './object-cache.js';
import { TreeListing, type FileEntry } from './tree-listing.js';
import { CHECK_RECEIVED_OBJECTS } from './dot-git.js';

export type { FileEntry } from './tree-listing.js';

const BRANCH_PREFIX = 'refs/heads/';
export type { RefChange } from './refs.js';

export interface GitRepositoriesOptions {
  /** Folder holding `<owner>/<name>.git` bare repositories. */
  root: string;
  /** News of ref changes made by other instances sharing `root` (PostgreSQL); none when this process is the only one. */
  changeFeed?: ChangeFeed;
  /** Let imports reach loopback, private and link-local addresses (test harnesses). */
  allowLocalImport: boolean;
  /**
   * Quiet time after a push before the commit-graph (with Bloom filters) is rewritten.
   * @default 1000
   */
  maintenanceDelayMs?: number;
  /**
   * Folder listings kept in memory (each keyed by commit and folder).
   * @default 512
   */
  listingCacheSize?: number;
  /**
   * Time limit of an import, in milliseconds.
   * @default 600000
   */
  importTimeoutMs?: number;
  /** Largest repository an import may bring, in bytes on disk. @default 1073741824 */
  maxImportBytes?: number;
  /** An import slower than `importLowSpeedBytesPerSecond` for `importLowSpeedSeconds` is aborted (http and https). */
  importLowSpeedBytesPerSecond?: number;
  importLowSpeedSeconds?: number;
  /** A transfer in which nothing moved for this long is ended (0: never). @default 0 */
  transferIdleTimeoutMs?: number;
}

/** Options for serving one smart-HTTP request. */
export interface ServeGitOptions {
  /**
   * Asked by a push's pre-receive hook once the pack is in and before any ref moves (see push/session.ts): the refs
   * it refuses, with reasons. It must have made the move recoverable (an intent on disk) before it resolves.
   */
  checkPush?: RefCheck;
  /** Refuse single refs (the others of the push land) rather than the whole push. */
  perRefRefusals?: boolean;
  /** Told as receive-pack starts, before the pack arrives: what `checkPush` will need can be prepared meanwhile. */
  onReceiveStart?: () => void;
  /**
   * Told, when `checkPush` was asked, once receive-pack ended and before the client sees the end of the answer:
   * git's own list of the refs that moved, or null when git ended without a whole list (refs may have moved), and
   * the branch HEAD names after it was fixed up (undefined when the repository's folder is gone).
   */
  onPushed?: (changes: RefChange[] | null, headBranch: string | undefined) => Promise<void>;
  /** Told once receive-pack ended without its hook asking `checkPush` (so no ref moved). */
  onUnasked?: () => Promise<void>;
  /**
   * Asked with the commands of a push whose whole body has arrived (HTTP): when it answers `ready`, the push needs no
   * check and runs with no hook, given its body once `ready` settles (see push/session.ts `admit`).
   */
  admitWithoutHook?: (commands: RefChange[]) => Promise<{ ready: Promise<void> } | undefined>;
}

/** What the change feed says when every repository was replaced (a harness restore). */
const REPLACED = 'repositories-replaced';
/** The feed's key of a repository folder deleted or renamed away, by its path below the root. */
const GONE = 'gone:';

/**
 * The bare repositories on disk and every git operation the host needs: lifecycle, counts,
 * listings (cached by commit), refs, import and smart HTTP. One instance per host; no global state.
 */
export class GitRepositories {
  readonly root: string;
  readonly allowLocalImport: boolean;
  readonly #listing: TreeListing;
  readonly #counts = new LruCache<string, number>(4096);
  /** Commits, folders and small blobs the API reads, by id (see object-cache.ts). */
  readonly objects = new ObjectCache();
  readonly #refs: RefCache;
  /** The receive-packs running, their hooks and what they leave behind. */
  readonly #receives: ReceiveSessions;
  /**
   * What merging a pair gives, by the pair of commit ids: nothing (head is already in base), or merge-tree's tree
   * or conflicts. Mergeability reads it, and the merge itself then commits the tree it found.
   */
  readonly #mergePreviews = new LruCache<string, Promise<MergedTree | 'up-to-date'>>(1024);
  /** A pull request's own commits as the push event of its merge lists them, by the pair (see `#commitsOfHead`). */
  readonly #pullCommits = new LruCache<string, Promise<PushedCommit[]>>(256);
  /** Changed files of a pair of commits: what two commit ids give never changes (patches are bounded in size). */
  readonly #changedFiles = new LruCache<string, Promise<ChangedFile[]>>(64);
  readonly #diffStats = new LruCache<string, Promise<DiffStats>>(256);
  readonly #maintenance: Maintenance;
  readonly #importTimeoutMs: number;
  readonly #import: { maxBytes: number; lowSpeedBytes: number; lowSpeedSeconds: number };
  readonly #transferIdleTimeoutMs: number;
  /** The reads of the code pages (trees, blobs, history, commits), sharing this instance's ref and listing caches. */
  readonly browse: GitBrowser;
  /** Other instances sharing the folder (PostgreSQL), told of ref changes and replaced repositories. */
  readonly #feed: ChangeFeed | undefined;

  constructor(options: GitRepositoriesOptions) {
    this.root = resolve(options.root);
    this.allowLocalImport = options.allowLocalImport;
    const feed = options.changeFeed;
    // Other instances sharing the folder hear of ref changes by the repository's path below the root (their root may
    // be mounted elsewhere).
    this.#refs = new RefCache(1024, feed ? (gitDir) => feed.announce(`refs:${relative(this.root, gitDir)}`) : undefined);
    feed?.follow(
      (key) => {
        if (key.startsWith('refs:')) this.#refs.forgetHere(join(this.root, key.slice('refs:'.length)));
        else if (key.startsWith(GONE)) this.#forgetGoneHere(join(this.root, key.slice(GONE.length)));
        else if (key === REPLACED) this.#forgetAll();
      },
      () => this.#refs.clear(),
    );
    this.#feed = feed;
    this.#listing = new TreeListing(options.listingCacheSize ?? 512);
    this.#maintenance = new Maintenance(options.maintenanceDelayMs ?? 1000);
    this.#importTimeoutMs = options.importTimeoutMs ?? 600_000;
    this.#import = {
      maxBytes: options.maxImportBytes ?? 1024 ** 3,
      lowSpeedBytes: options.importLowSpeedBytesPerSecond ?? 1000,
      lowSpeedSeconds: options.importLowSpeedSeconds ?? 30,
    };
    this.#transferIdleTimeoutMs = options.transferIdleTimeoutMs ?? 0;
    this.#receives = new ReceiveSessions(this.root, new HookChannel(), feed !== undefined);
    this.browse = new GitBrowser({ gitDir: (owner, name) => this.#existing(owner, name), refs: (gitDir) => this.#refs.refs(gitDir), listing: this.#listing });
  }

  /** `<root>/<owner>/<name>.git`; throws `invalid` for a name that could leave the root. */
  pathOf(owner: string, name: string): string {
    return repositoryPath(this.root, owner, name);
  }

  /** True when the bare repository exists on disk. */
  async exists(owner: string, name: string): Promise<boolean> {
    try {
      await access(`${this.pathOf(owner, name)}/HEAD`);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The folder of an existing repository (`not_found` otherwise), for the object plumbing of objects.ts and
   * history.ts. Whoever moves a ref there calls `afterPush` next, as after a push.
   */
  gitDirOf(owner: string, name: string): Promise<string> {
    return this.#existing(owner, name);
  }

  async #existing(owner: string, name: string): Promise<string> {
    const path = this.pathOf(owner, name);
    if (this.#refs.knowsRefs(path)) return path;
    try {
      await access(`${path}/HEAD`);
    } catch {
      throw notFound('repository not found');
    }
    return path;
  }

  /**
   * Creates an empty bare repository whose HEAD is `refs/heads/main`. It is built in a fresh temporary folder and
   * moved into place only where nothing is: a failure removes only what this call made, never a folder that
   * another operation put at that path meanwhile.
   */
  async create(owner: string, name: string): Promise<void> {
    await this.#buildInPlace(owner, name, async (temp) => {
      await runGit(['init', '--bare', '--quiet', '--template=', temp], { cwd: dirname(temp) });
      await runGit(['symbolic-ref', 'HEAD', 'refs/heads/main'], { gitDir: temp });
    });
  }

  /** Runs `build` on a new temporary folder beside the repository's path, then moves it there if that is free. */
  async #buildInPlace(owner: string, name: string, build: (temp: string) => Promise<void>): Promise<void> {
    const path = this.pathOf(owner, name);
    await mkdir(dirname(path), { recursive: true });
    // Repository names never start with a dot, so the temporary folder can never be mistaken for one.
    const temp = await mkdtemp(join(dirname(path), '.new-'));
    try {
      await build(temp);
      try {
        await rename(temp, path);
        this.#refs.forget(path);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw conflict('repository already exists');
        throw error;
      }
    } finally {
      this.#refs.forget(temp);
      await rm(temp, { recursive: true, force: true });
    }
  }

  /** Deletes the repository folder (no error when it is already gone). */
  async remove(owner: string, name: string): Promise<void> {
    const path = this.pathOf(owner, name);
    await this.#maintenance.forget(path);
    this.#refs.forget(path);
    await rm(path, { recursive: true, force: true });
    this.#forgetGone(path);
  }

  forgetObjects(repo: { id: number; created_at: string }): void {
    this.objects.forget(repositoryScope(repo));
  }

  /** Renames the repository folder; `conflict` when the new name is taken (checked by the move itself). */
  async rename(owner: string, oldName: string, newName: string): Promise<void> {
    const from = await this.#existing(owner, oldName);
    const to = this.pathOf(owner, newName);
    if (from === to) return;
    await this.#maintenance.forget(from);
    this.#refs.forget(from);
    this.#refs.forget(to);
    try {
      await rename(from, to);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw conflict('repository already exists');
      throw error;
    }
    this.#forgetGone(from);
  }

  /**
   * Forgets what was read of a repository folder that is gone (deleted, or renamed away), here and in the other
   * instances: those reads are kept by path, and another repository may come to stand there (a public one made under
   * a deleted private one's name must not answer its commits).
   */
  #forgetGone(path: string): void {
    this.#forgetGoneHere(path);
    this.#feed?.announce(`${GONE}${relative(this.root, path)}`);
  }

  #forgetGoneHere(path: string): void {
    // Again after the move or removal: refs read while it ran would otherwise vouch for a folder that is gone.
    this.#refs.forgetHere(path);
    this.browse.forget(path);
    const prefix = `${path}\0`;
    const mine = (key: string) => key.startsWith(prefix);
    for (const cache of [this.#pullCommits, this.#changedFiles, this.#diffStats, this.#mergePreviews] as Array<LruCache<string, unknown>>) cache.deleteWhere(mine);
  }

  /**
   * Creates the repository from `url` with all its branches and tags (HEAD as on the remote,
   * or fixed up like after a push). Only http(s)/git URLs, no redirects, no local addresses unless
   * allowed. On failure nothing is left behind and an `invalid` error tells why.
   */
  async importFrom(owner: string, name: string, url: string): Promise<void> {
    const source = await checkImportSource(url, this.allowLocalImport);
    const limits = this.#import;
    const tooBig = new AbortController();
    await this.#buildInPlace(owner, name, async (temp) => {
      try {
        // git clone wants to make the folder itself.
        await rm(temp, { recursive: true });
        const watch = watchFolderSize(temp, limits.maxBytes, () => tooBig.abort());
        try {
          await runGit(
            [
              ...source.gitConfig,
              // A server that stops sending (or trickles) is given up on, not waited for until the time limit.
              ...['-c', `http.lowSpeedLimit=${limits.lowSpeedBytes}`, '-c', `http.lowSpeedTime=${limits.lowSpeedSeconds}`],
              // What it brings is checked as a push is: no tree naming .git (a clone of it would write into .git).
              ...CHECK_RECEIVED_OBJECTS,
              ...['clone', '--bare', '--quiet', '--no-local', '--template=', '--', source.url, temp],
            ],
            { cwd: dirname(temp), timeoutMs: this.#importTimeoutMs, env: { GIT_ALLOW_PROTOCOL: 'http:https:git' }, signal: tooBig.signal },
          );
        } finally {
          watch.stop();
        }
        // A clone quicker than the watch's first look is measured once done.
        if ((await folderBytes(temp)) > limits.maxBytes) tooBig.abort();
        if (tooBig.signal.aborted) throw tooLarge(`the repository at clone_url is larger than ${limits.maxBytes} bytes`);
        await runGit(['config', '--unset-all', 'remote.origin.url'], { gitDir: temp }).catch(() => {});
        await runGit(['config', '--remove-section', 'remote.origin'], { gitDir: temp }).catch(() => {});
        await this.#fixHead(temp, []);
      } catch (error) {
        if (tooBig.signal.aborted) throw tooLarge(`the repository at clone_url is larger than ${limits.maxBytes} bytes`);
        if (isGitError(error)) {
          // git's last line, or the object check's own where one failed (the last then says only that one did).
          const lines = error.stderr.trim().split('\n');
          const line = lines.find((text) => /^error: object [0-9a-f]+: \w+: /.test(text)) ?? lines.pop() ?? '';
          const reason = error.timedOut ? 'timed out' : line.replace(/^(?:fatal|error): /, '').slice(0, 200);
          throw invalid(`import from clone_url failed${reason ? `: ${reason}` : ''}`);
        }
        throw error;
      }
    });
    this.#maintenance.schedule(this.pathOf(owner, name));
  }

  /** Number of branches (`refs/heads/*`). */
  async countBranches(owner: string, name: string): Promise<number> {
    const path = await this.#existing(owner, name);
    let count = 0;
    for (const ref of (await this.#refs.refs(path)).keys()) if (ref.startsWith(BRANCH_PREFIX)) count += 1;
    return count;
  }

  /** Commits reachable from the branch; 0 for an unknown branch or an empty repository. */
  async countCommits(owner: string, name: string, branch: string): Promise<number> {
    const path = await this.#existing(owner, name);
    const commit = await this.#resolveBranch(path, branch);
    if (!commit) return 0;
    const cached = this.#counts.get(commit);
    if (cached !== undefined) return cached;
    const { stdout } = await runGit(['rev-list', '--count', commit], { gitDir: path });
    const count = Number.parseInt(stdout.toString('utf8'), 10) || 0;
    this.#counts.set(commit, count);
    return count;
  }

  /** How many commits `head` has that `base` has not. */
  async countCommitsBetween(owner: string, name: string, base: string, head: string): Promise<number> {
    const path = await this.#existing(owner, name);
    const { stdout } = await runGit(['rev-list', '--count', `${base}..${head}`], { gitDir: path });
    return Number.parseInt(stdout.toString('utf8'), 10) || 0;
  }

  /**
   * Entries of `path` ('' = top level) on the branch, each with its last commit (see TreeListing).
   * Empty repository: []. Unknown branch of a non-empty one: `not_found` "branch not found".
   */
  async listFiles(owner: string, name: string, branch: string, path = ''): Promise<FileEntry[]> {
    const gitDir = await this.#existing(owner, name);
    const folder = normaliseTreePath(path);
    const commit = await this.#resolveBranch(gitDir, branch);
    if (!commit) {
      if (!(await this.#hasBranches(gitDir))) return [];
      throw notFound('branch not found');
    }
    if (folder === null) throw notFound('path not found');
    return this.#listing.list(gitDir, commit, folder);
  }

  /**
   * Every ref with the id it points to, from the cache every ref change of this process invalidates (cheap for
   * reads; whoever is about to change refs by hand reads `refsOf` instead).
   */
  async cachedRefs(owner: string, name: string): Promise<ReadonlyMap<string, string>> {
    return this.#refs.refs(await this.#existing(owner, name));
  }

  /** Every ref (branches, tags, ...) with the id it points to; snapshot for diffing a push. */
  async refsOf(owner: string, name: string): Promise<Map<string, string>> {
    // Read from the disk, not the cache: callers diff it against what they are about to change by hand.
    const path = await this.#existing(owner, name);
    this.#refs.forget(path);
    return new Map(await this.#refs.refs(path));
  }

  /**
   * What each ref change of a push brought, for its push event (see push-commits.ts), in the order of `changes`.
   * `refsAfter` are the refs once the push landed (read again when not given).
   */
  async pushedRefs(owner: string, name: string, changes: readonly RefChange[], refsAfter?: ReadonlyMap<string, string>): Promise<PushedRef[]> {
    const path = await this.#existing(owner, name);
    const after = refsAfter ?? (await this.#refs.refs(path));
    const changed = new Set(changes.map((change) => change.ref));
    // The tips the repository had before the push: a new branch lists only commits none of them reached.
    const tipsBefore = new Set([...after].filter(([ref]) => !changed.has(ref)).map(([, sha]) => sha));
    for (const change of changes) if (!/^0+$/.test(change.before)) tipsBefore.add(change.before);
    return Promise.all(changes.map((change) => pushedRef(path, change, [...tipsBefore])));
  }

  /** The branch HEAD points to (the default branch), e.g. `main`, even before it exists. */
  async headBranch(owner: string, name: string): Promise<string> {
    const path = await this.#existing(owner, name);
    const { stdout } = await runGit(['symbolic-ref', '--short', '-q', 'HEAD'], { gitDir: path }).catch(() => ({ stdout: Buffer.from('main') }));
    return stdout.toString('utf8').trim() || 'main';
  }

  /**
   * Bookkeeping after refs changed outside git's own transport (the HTTP route calls it through
   * `serveHttpStream`): HEAD moves to the first pushed branch when its branch does not exist, and
   * commit-graph upkeep is scheduled. Returns the branch HEAD names (the default branch).
   */
  async afterPush(owner: string, name: string, changes: RefChange[]): Promise<string> {
    const path = await this.#existing(owner, name);
    this.#refs.forget(path);
    const head = await this.#fixHead(path, changes);
    this.#maintenance.schedule(path);
    return head;
  }

  /**
   * Serves one smart-HTTP request for the repository (authorisation is the caller's job), with the body left a
   * Node stream for piping straight into a Node response.
   */
  async serveHttpStream(owner: string, name: string, request: SmartHttpRequest, options: ServeGitOptions = {}): Promise<GitHttpResult> {
    const path = await this.#existing(owner, name);
    return handleSmartHttp(path, request, {
      idleTimeoutMs: this.#transferIdleTimeoutMs,
      readAhead: options.admitWithoutHook !== undefined,
      receive: (commands) => this.#receive(path, options, commands),
    });
  }

  /**
   * Serves one whole git session (SSH) for the repository: upload-pack, receive-pack or upload-archive with the client
   * on `io`, pushes checked and recorded as over HTTP. Resolves with git's exit code. Authorisation is the caller's job.
   */
  async serveStream(owner: string, name: string, service: StreamService, io: GitStreamIo, options: ServeGitOptions = {}): Promise<number> {
    const path = await this.#existing(owner, name);
    return serveGitStream(path, service, io, { idleTimeoutMs: this.#transferIdleTimeoutMs, receive: () => this.#receive(path, options) });
  }

  /** The hooks and recording of one receive-pack, whatever the transport. */
  #receive(path: string, options: ServeGitOptions, commands?: RefChange[]): Promise<ReceiveSetup> {
    // HEAD is read while the pack arrives, not after the refs moved when the pusher waits (see #fixHead).
    let headFile: Promise<string> | undefined;
    return this.#receives.start(path, {
      perRef: options.perRefRefusals ?? false,
      check: options.checkPush ?? (async () => new Map()),
      admit: options.admitWithoutHook,
      starting: () => {
        headFile = readHeadFile(path);
        options.onReceiveStart?.();
      },
      unasked: async () => await options.onUnasked?.(),
      moved: async (changes) => {
        this.#refs.forget(path);
        // A repository renamed or deleted meanwhile has no HEAD here: the record keeps its default branch.
        const head = await this.#fixHead(path, changes ?? [], undefined, headFile).catch(() => undefined);
        this.#maintenance.schedule(path);
        await options.onPushed?.(changes, head);
      },
    }, commands);
  }

  commitsBetween(owner: string, name: string, base: string, head: string): Promise<CommitSummary[]> {
    return this.#existing(owner, name).then((gitDir) => commitsBetween(gitDir, base, head));
  }

  /** What head changes against their merge base, cached by the pair (`ignoreWhitespace`: white space changes left out). */
  async changedFiles(owner: string, name: string, base: string, head: string, ignoreWhitespace = false): Promise<ChangedFile[]> {
    const gitDir = await this.#existing(owner, name);
    return remembered(this.#changedFiles, `${gitDir}\0${base}\0${head}\0${ignoreWhitespace}`, () => changedFiles(gitDir, base, head, { ignoreWhitespace }));
  }

  /** One file of `changedFiles` with every line as context (a page's "show all lines"), cached as the others. */
  async changedFileWithAllLines(owner: string, name: string, base: string, head: string, file: Pick<ChangedFile, 'filename' | 'previous_filename'>, ignoreWhitespace = false): Promise<ChangedFile | undefined> {
    const gitDir = await this.#existing(owner, name);
    const paths = [file.filename, ...(file.previous_filename ? [file.previous_filename] : [])];
    const key = `${gitDir}\0${base}\0${head}\0${ignoreWhitespace}\0${paths.join('\0')}`;
    const files = await remembered(this.#changedFiles, key, () => changedFiles(gitDir, base, head, { ignoreWhitespace, allLines: true, paths }));
    return files.find((changed) => changed.filename === file.filename);
  }

  /** What head changes against base, counted (commits, files, lines); cached by the pair of commit ids. */
  async diffStats(owner: string, name: string, base: string, head: string): Promise<DiffStats> {
    const gitDir = await this.#existing(owner, name);
    return remembered(this.#diffStats, `${gitDir}\0${base}\0${head}`, () => diffStats(gitDir, base, head));
  }

  async diffStream(owner: string, name: string, base: string, head: string, kind: 'diff' | 'patch'): Promise<Readable> {
    const gitDir = await this.#existing(owner, name);
    return kind === 'diff' ? streamDiff(gitDir, base, head) : streamFormatPatch(gitDir, base, head);
  }

  /** Whether head merges into base cleanly; cached by the pair of commit ids, which is all it depends on. */
  async mergeable(owner: string, name: string, base: string, head: string): Promise<boolean> {
    const gitDir = await this.#existing(owner, name);
    const preview = await this.#mergePreview(gitDir, base, head);
    return preview !== 'up-to-date' && 'tree' in preview;
  }

  #mergePreview(gitDir: string, base: string, head: string, fresh = false): Promise<MergedTree | 'up-to-date'> {
    const key = `${gitDir}\0${base}\0${head}`;
    if (fresh) this.#mergePreviews.delete(key);
    return remembered(this.#mergePreviews, key, () => isAncestor(gitDir, head, base).then<MergedTree | 'up-to-date'>((merged) => (merged ? 'up-to-date' : mergeTree(gitDir, base, head))));
  }

  /** Works out ahead of a merge of the pair what it will need: mergeability (with the merged tree) and the commits its push event lists. */
  async prepareMerge(owner: string, name: string, base: string, head: string): Promise<void> {
    const gitDir = await this.#existing(owner, name);
    await Promise.all([this.#mergePreview(gitDir, base, head), this.#commitsOfHead(gitDir, base, head)]);
  }

  /** Merges as `merge` in merge.ts does; refusals become 405 (cannot merge) or 409 (base moved meanwhile). */
  async merge(owner: string, name: string, options: MergeOptions): Promise<MergeResult> {
    const gitDir = await this.#existing(owner, name);
    const { baseSha, headSha } = options;
    try {
      return await merge(gitDir, options, {
        headCommits: () => this.#commitsOfHead(gitDir, baseSha, headSha),
        // Head already in base (not yet marked merged): git's tree of the pair, which is base's own.
        mergedTree: async (fresh) => {
          const preview = await this.#mergePreview(gitDir, baseSha, headSha, fresh);
          return preview === 'up-to-date' ? mergeTree(gitDir, baseSha, headSha) : preview;
        },
      });
    } catch (error) {
      if (error instanceof MergeRefusedError) throw error.reason === 'base_moved' ? conflict(error.message) : notAllowed(error.message);
      throw error;
    } finally {
      this.#refs.forget(gitDir);
      this.#maintenance.schedule(gitDir);
    }
  }

  /** The commits of head that base lacks (newest MAX_PUSH_COMMITS, oldest first), cached by the pair of commit ids. */
  #commitsOfHead(gitDir: string, base: string, head: string): Promise<PushedCommit[]> {
    return remembered(this.#pullCommits, `${gitDir}\0${base}\0${head}`, () => newCommits(gitDir, head, [base]));
  }

  async branchesMergedInto(owner: string, name: string, commit: string): Promise<Set<string>> {
    if (!/^[0-9a-f]{40,64}$/.test(commit)) return new Set();
    const gitDir = await this.#existing(owner, name);
    const { stdout } = await runGit(['for-each-ref', `--merged=${commit}`, '--format=%(refname)', 'refs/heads/'], { gitDir });
    return new Set(stdout.toString('utf8').split('\n').filter(Boolean).map((ref) => ref.slice(BRANCH_PREFIX.length)));
  }

  async isAncestor(owner: string, name: string, ancestor: string, descendant: string): Promise<boolean> {
    return isAncestor(await this.#existing(owner, name), ancestor, descendant);
  }

  /** The commit of a branch at `tip` that merged `head` into it (see `mergingCommit`). */
  async mergingCommit(owner: string, name: string, head: string, tip: string): Promise<string> {
    return mergingCommit(await this.#existing(owner, name), head, tip);
  }

  /** Deletes the branch if it still points at `expectedSha`; false when it moved or is gone. */
  async deleteBranch(owner: string, name: string, branch: string, expectedSha: string): Promise<boolean> {
    if (!isSafeBranchName(branch)) return false;
    const gitDir = await this.#existing(owner, name);
    try {
      await runGit(['update-ref', '-d', `refs/heads/${branch}`, expectedSha], { gitDir });
      this.#refs.forget(gitDir);
      return true;
    } catch (error) {
      if (isGitError(error)) return false;
      throw error;
    }
  }

  /** True when `sha` is a commit of the repository. */
  async commitExists(owner: string, name: string, sha: string): Promise<boolean> {
    if (!/^[0-9a-f]{40,64}$/.test(sha)) return false;
    const gitDir = await this.#existing(owner, name);
    if (this.#refs.knowsCommit(gitDir, sha)) return true;
    const exists = (await this.#verifyCommit(gitDir, sha)) === sha;
    if (exists) this.#refs.rememberCommit(gitDir, sha);
    return exists;
  }

  /** The commit object of a full commit id, or undefined. */
  async readCommit(owner: string, name: string, sha: string): Promise<CommitObject | undefined> {
    return readCommit(await this.#existing(owner, name), sha);
  }

  /** The commit a branch, tag or full commit id names (branches first, as git does), or undefined. */
  async resolveCommit(owner: string, name: string, ref: string): Promise<string | undefined> {
    const gitDir = await this.#existing(owner, name);
    if (/^[0-9a-f]{40,64}$/.test(ref)) return (await this.#verifyCommit(gitDir, ref)) ?? undefined;
    if (!isSafeBranchName(ref)) return undefined;
    return (await this.#verifyCommit(gitDir, `refs/heads/${ref}`)) ?? (await this.#verifyCommit(gitDir, `refs/tags/${ref}`)) ?? undefined;
  }

  async #verifyCommit(gitDir: string, name: string): Promise<string | null> {
    try {
      const { stdout } = await runGit(['rev-parse', '--verify', '--quiet', `${name}^{commit}`], { gitDir });
      return stdout.toString('utf8').trim() || null;
    } catch (error) {
      if (isGitError(error) && error.code !== null) return null;
      throw error;
    }
  }

  /**
   * Before the repositories are copied (a harness snapshot): waits for running upkeep, which writes files in them.
   * With `replacing`, also drops pending upkeep, as the copies come back with their own.
   */
  async quiesce(replacing: boolean): Promise<void> {
    await (replacing ? this.#maintenance.forgetAll() : this.#maintenance.settle());
  }

  /** After the repositories were replaced on disk: nothing known of their refs holds any more, here or elsewhere. */
  replaced(): void {
    this.#forgetAll();
    this.#feed?.announce(REPLACED);
  }

  #forgetAll(): void {
    this.#refs.clear();
    // Trees merge-tree wrote since the copy was taken are gone with the old repositories, and so may objects be.
    this.#mergePreviews.clear();
    this.objects.clear();
  }

  /** Runs pending background upkeep now and waits for it (tests and benchmarks). */
  async whenIdle(): Promise<void> {
    await this.#maintenance.flush();
  }

  /** Stops background upkeep (waiting for running jobs to stop); no child is left behind. */
  async close(): Promise<void> {
    await this.#receives.close();
    await this.#maintenance.close();
  }

  async #resolveBranch(gitDir: string, branch: string): Promise<string | null> {
    if (!isSafeBranchName(branch)) return null;
    return (await this.#refs.refs(gitDir)).get(`${BRANCH_PREFIX}${branch}`) ?? null;
  }

  async #hasBranches(gitDir: string): Promise<boolean> {
    for (const ref of (await this.#refs.refs(gitDir)).keys()) if (ref.startsWith(BRANCH_PREFIX)) return true;
    return false;
  }

  /**
   * Points HEAD at an existing branch when its own is gone or unborn; returns the branch HEAD then names. `earlyHead`:
   * HEAD as read when a push began, which stands only if the push moved its branch (else HEAD is read now, so a
   * default branch changed meanwhile is never undone).
   */
  async #fixHead(gitDir: string, changes: RefChange[], knownRefs?: Map<string, string>, earlyHead?: Promise<string>): Promise<string> {
    const movedTo = (ref: string) => changes.some((change) => change.ref === ref && !/^0+$/.test(change.after));
    let head = earlyHead === undefined ? undefined : headRef(await earlyHead);
    if (head === undefined || !movedTo(head)) head = headRef(await readHeadFile(gitDir));
    // HEAD's branch just moved to a commit, or is a loose ref file (a branch just pushed always is one): it exists,
    // and git need not be asked.
    if (head.startsWith(BRANCH_PREFIX) && !knownRefs && (movedTo(head) || (await access(join(gitDir, head)).then(() => true, () => false)))) return head.slice(BRANCH_PREFIX.length);
    const refs = knownRefs ?? (await this.#refs.refs(gitDir));
    let target = head;
    if (!head || !refs.has(head)) {
      const pushed = changes.find((change) => change.ref.startsWith(BRANCH_PREFIX) && refs.has(change.ref));
      target = pushed?.ref ?? (refs.has(`${BRANCH_PREFIX}main`) ? `${BRANCH_PREFIX}main` : ([...refs.keys()].find((ref) => ref.startsWith(BRANCH_PREFIX)) ?? head));
      if (target && target !== head) await runGit(['symbolic-ref', 'HEAD', target], { gitDir });
    }
    return target.startsWith(BRANCH_PREFIX) ? target.slice(BRANCH_PREFIX.length) : 'main';
  }
}

/** HEAD of a bare repository we created, a symbolic ref file ('' when unreadable): reading it saves a git run per push. */
function readHeadFile(gitDir: string): Promise<string> {
  return readFile(`${gitDir}/HEAD`, 'utf8').catch(() => '');
}

/** The ref a HEAD file names ('' for anything else). */
function headRef(headFile: string): string {
  return /^ref: (\S+)\s*$/.exec(headFile)?.[1] ?? '';
}
