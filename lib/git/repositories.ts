import { setHeadBranch } from './ref-writes.js';
import { access, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ChangeFeed } from '../store/interface.js';
import { conflict, notFound } from '../errors.js';
import { GitBrowser } from './browse.js';
import { GitComparisons } from './comparisons.js';
import { checkImportSource } from './import-guard.js';
import { cloneBare } from './import-clone.js';
import { LruCache } from './lru.js';
import { Maintenance } from './maintenance.js';
import { isSafeBranchName, normaliseTreePath, repositoryPath } from './names.js';
import { pushedRef, type PushedRef } from './push-commits.js';
import { HookChannel } from './push/channel.js';
import { readCommit, type CommitObject } from './objects.js';
import { ReceiveSessions, type RefCheck } from './push/session.js';
import { RefCache, type RefChange } from './refs.js';
import { isGitError, runGit } from './run-git.js';
import { handleSmartHttp, type GitHttpResult, type ReceiveSetup, type SmartHttpRequest } from './smart-http.js';
import { serveGitStream, type GitStreamIo, type StreamService } from './stream-transport.js';
import { ObjectCache, repositoryScope } from './object-cache.js';
import { TreeListing, type FileEntry } from './tree-listing.js';

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
  /** Comparisons and merges of pairs of commits (see comparisons.ts), sharing this instance's ref cache. */
  readonly compare: GitComparisons;
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
    this.compare = new GitComparisons({
      gitDir: (owner, name) => this.#existing(owner, name),
      afterMerge: (gitDir) => {
        this.#refs.forget(gitDir);
        this.#maintenance.schedule(gitDir);
      },
    });
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
    this.compare.forget(path);
  }

  /**
   * Creates the repository from `url` with all its branches and tags (HEAD as on the remote,
   * or fixed up like after a push). Only http(s)/git URLs, no redirects, no local addresses unless
   * allowed. On failure nothing is left behind and an `invalid` error tells why.
   */
  async importFrom(owner: string, name: string, url: string): Promise<void> {
    const source = await checkImportSource(url, this.allowLocalImport);
    await this.#buildInPlace(owner, name, async (temp) => {
      await cloneBare(source, temp, { ...this.#import, timeoutMs: this.#importTimeoutMs }, () => this.#fixHead(temp, []));
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

  /** Points HEAD, the default branch, at `branch`. */
  async setHeadBranch(owner: string, name: string, branch: string): Promise<void> {
    await setHeadBranch(await this.#existing(owner, name), branch);
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
    this.compare.clear();
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
