import type { Readable } from 'node:stream';
import { blame, type BlameHunk } from './blame.js';
import { grep, type GrepResult } from './grep.js';
import { EMPTY_TREE_ID, readDiff, streamCommitDiff, streamCommitPatch, streamDiff, streamFormatPatch, type ChangedFile, type DiffPage, type DiffWindow } from './diff.js';
import { LruCache, remembered } from './lru.js';
import { isSafeBranchName, normaliseTreePath } from './names.js';
import { isGitError, runGit, spawnGit } from './run-git.js';
import type { FileEntry, LastCommit, TreeListing } from './tree-listing.js';

/** What a code page points at: the ref kind the URL names, its name, the commit it resolves to, and the path. */
export interface RefPath {
  kind: 'branch' | 'tag' | 'commit';
  /** The branch or tag name, or the commit id as given. */
  ref: string;
  commit: string;
  /** The path inside the tree ('' for the top level). */
  path: string;
}

/** One object of a tree, as `git cat-file --batch-check` describes it. */
export interface TreeObject {
  type: 'blob' | 'tree' | 'commit';
  oid: string;
  size: number;
}

/** A commit as history and commit pages show it. */
export interface CommitInfo {
  sha: string;
  parents: string[];
  author_name: string;
  author_email: string;
  authored_at: string;
  committer_name: string;
  committed_at: string;
  /** First line of the message. */
  subject: string;
  /** The whole message, trailing newlines removed. */
  message: string;
}

export interface AheadBehind {
  ahead: number;
  behind: number;
}

/** What the browser needs from GitRepositories: where a repository lives, its refs (cached), its listings. */
export interface BrowseDeps {
  gitDir(owner: string, name: string): Promise<string>;
  refs(gitDir: string): Promise<ReadonlyMap<string, string>>;
  listing: TreeListing;
}

const HEX_PREFIX = /^[0-9a-f]{4,64}$/;
const FULL_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };
const iso = (date: string) => new Date(date).toISOString().replace('.000Z', 'Z');
/** Most history entries one page may ask for. */
export const MAX_LOG_PAGE = 100;

const COMMIT_FORMAT = '%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%cI%x00%B%x1e';

function parseCommits(output: string): CommitInfo[] {
  const commits: CommitInfo[] = [];
  for (const record of output.split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\0');
    if (fields.length < 8) continue;
    const [sha, parents, authorName, authorEmail, authoredAt, committerName, committedAt, body] = fields as [string, string, string, string, string, string, string, string];
    const message = body.replace(/\n+$/, '');
    commits.push({
      sha,
      parents: parents ? parents.split(' ') : [],
      author_name: authorName,
      author_email: authorEmail,
      authored_at: iso(authoredAt),
      committer_name: committerName,
      committed_at: iso(committedAt),
      subject: message.split('\n', 1)[0] ?? '',
      message,
    });
  }
  return commits;
}

/**
 * The reads of the code pages: refs with a path, objects, blobs (streamed), history pages, commits with their diff,
 * ahead/behind counts. Everything keyed by a commit or object id is cached: it can never change.
 */
export class GitBrowser {
  readonly #deps: BrowseDeps;
  readonly #objects = new LruCache<string, TreeObject | null>(8192);
  readonly #logs = new LruCache<string, CommitInfo[]>(512);
  readonly #commits = new LruCache<string, CommitInfo>(2048);
  readonly #diffs = new LruCache<string, Promise<DiffPage>>(32);
  readonly #aheadBehind = new LruCache<string, AheadBehind>(4096);
  readonly #treeKinds = new LruCache<string, Map<string, TreeObject['type']>>(1024);
  readonly #blames = new LruCache<string, Promise<BlameHunk[]>>(64);
  readonly #searches = new LruCache<string, Promise<GrepResult>>(128);

  /** Forgets what was read of the repository at `gitDir`: it is gone, and another may come to stand there. */
  forget(gitDir: string): void {
    const prefix = `${gitDir}\0`;
    const mine = (key: string) => key.startsWith(prefix);
    for (const cache of [this.#objects, this.#logs, this.#commits, this.#diffs, this.#aheadBehind, this.#treeKinds, this.#blames, this.#searches] as Array<LruCache<string, unknown>>) cache.deleteWhere(mine);
  }

  constructor(deps: BrowseDeps) {
    this.#deps = deps;
  }

  /** Branches (`refs/heads/`) or tags (`refs/tags/`) with the object each points to, sorted by name. */
  async refsOfKind(owner: string, name: string, kind: 'branch' | 'tag'): Promise<Array<{ name: string; sha: string }>> {
    const prefix = kind === 'branch' ? 'refs/heads/' : 'refs/tags/';
    const refs = await this.#deps.refs(await this.#deps.gitDir(owner, name));
    const found: Array<{ name: string; sha: string }> = [];
    for (const [ref, sha] of refs) if (ref.startsWith(prefix)) found.push({ name: ref.slice(prefix.length), sha });
    return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Splits `rest` (what follows `/src/branch/` and the like) into a ref and a path. Branch and tag names may hold
   * `/`: the longest existing prefix wins. Undefined when nothing matches or the path is not a plain path.
   */
  async resolveRefPath(owner: string, name: string, kind: RefPath['kind'], rest: string): Promise<RefPath | undefined> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const parts = rest.split('/').filter((part) => part !== '');
    if (kind === 'commit') {
      const commit = parts[0] ? await this.resolveCommitId(owner, name, parts[0]) : undefined;
      const path = normaliseTreePath(parts.slice(1).join('/'));
      return commit && path !== null ? { kind, ref: parts[0]!, commit, path } : undefined;
    }
    const refs = await this.#deps.refs(gitDir);
    const prefix = kind === 'branch' ? 'refs/heads/' : 'refs/tags/';
    for (let take = parts.length; take >= 1; take -= 1) {
      const ref = parts.slice(0, take).join('/');
      const target = isSafeBranchName(ref) ? refs.get(`${prefix}${ref}`) : undefined;
      if (!target) continue;
      const commit = kind === 'tag' ? await this.#peel(gitDir, target) : target;
      const path = normaliseTreePath(parts.slice(take).join('/'));
      return commit && path !== null ? { kind, ref, commit, path } : undefined;
    }
    return undefined;
  }

  /** The full id of the commit a (possibly abbreviated) hex id names, or undefined. */
  async resolveCommitId(owner: string, name: string, id: string): Promise<string | undefined> {
    if (!HEX_PREFIX.test(id)) return undefined;
    const gitDir = await this.#deps.gitDir(owner, name);
    if (FULL_ID.test(id) && this.#commits.get(`${gitDir}\0${id}`)) return id;
    return (await this.#peel(gitDir, id)) ?? undefined;
  }

  /** The commit an object (annotated tag, commit, abbreviated id) leads to, or null. */
  async #peel(gitDir: string, object: string): Promise<string | null> {
    try {
      const { stdout } = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${object}^{commit}`], { gitDir });
      return stdout.toString('utf8').trim() || null;
    } catch (error) {
      if (isGitError(error) && error.code !== null) return null;
      throw error;
    }
  }

  /** What `path` is at `commit`: a tree (the top level for ''), a blob, or a submodule commit; undefined if absent. */
  async objectAt(owner: string, name: string, commit: string, path: string): Promise<TreeObject | undefined> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const key = `${gitDir}\0${commit}\0${path}`;
    const cached = this.#objects.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const spec = path ? `${commit}:${path}` : `${commit}^{tree}`;
    // The spec travels on stdin: a path is never read as an option, and any byte may be in it except a newline.
    let found: TreeObject | null = null;
    if (!spec.includes('\n')) {
      const { stdout } = await runGit(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { gitDir, input: `${spec}\n` });
      const [oid, type, size] = stdout.toString('utf8').trim().split(' ');
      if (oid && (type === 'blob' || type === 'tree' || type === 'commit')) found = { oid, type, size: Number(size) || 0 };
    }
    this.#objects.set(key, found);
    return found ?? undefined;
  }

  /** Entries of the folder at `commit`, each with its last commit (TreeListing, cached by commit and folder). */
  async list(owner: string, name: string, commit: string, folder: string): Promise<FileEntry[]> {
    return this.#deps.listing.list(await this.#deps.gitDir(owner, name), commit, folder);
  }

  /** The last commit of some entries of the folder at `commit` (a page of a large folder; TreeListing, cached). */
  async lastCommits(owner: string, name: string, commit: string, folder: string, names: readonly string[]): Promise<Map<string, LastCommit>> {
    return this.#deps.listing.lastCommits(await this.#deps.gitDir(owner, name), commit, folder, names);
  }

  /** The kind of each entry of a tree (by the tree's id, so cached for good). */
  async treeKinds(owner: string, name: string, tree: string): Promise<Map<string, TreeObject['type']>> {
    if (!FULL_ID.test(tree)) throw new TypeError(`not an object id: ${tree}`);
    const gitDir = await this.#deps.gitDir(owner, name);
    const key = `${gitDir}\0${tree}`;
    const cached = this.#treeKinds.get(key);
    if (cached) return cached;
    const { stdout } = await runGit(['ls-tree', '-z', tree], { gitDir });
    const kinds = new Map<string, TreeObject['type']>();
    for (const record of stdout.toString('utf8').split('\0')) {
      const tab = record.indexOf('\t');
      const type = record.slice(0, tab).split(' ')[1];
      if (tab > 0 && (type === 'blob' || type === 'tree' || type === 'commit')) kinds.set(record.slice(tab + 1), type);
    }
    this.#treeKinds.set(key, kinds);
    return kinds;
  }

  /** At most `limit` bytes from the start of a blob (git is stopped once they are read). */
  async readBlob(owner: string, name: string, oid: string, limit: number): Promise<Buffer> {
    const stream = await this.streamBlob(owner, name, oid);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) break;
    }
    stream.destroy();
    return Buffer.concat(chunks).subarray(0, limit);
  }

  /** The bytes of a blob, streamed from git (a reader that goes away stops it). */
  async streamBlob(owner: string, name: string, oid: string): Promise<Readable> {
    if (!FULL_ID.test(oid)) throw new TypeError(`not an object id: ${oid}`);
    const child = spawnGit(['cat-file', 'blob', oid], { gitDir: await this.#deps.gitDir(owner, name) });
    child.stdin.end();
    child.stdout.on('close', () => child.kill('SIGTERM'));
    child.done.catch((error: Error) => child.stdout.destroy(error));
    return child.stdout;
  }

  /**
   * One page of history from `commit`, newest first, only commits touching `path` when given (git log's default
   * simplification). Asks for one more than `limit` so the caller knows whether an older page exists.
   */
  /** Who last changed each line of a file as of a commit (full id): cached by the pair, which is all it depends on. */
  async blame(owner: string, name: string, commit: string, path: string): Promise<BlameHunk[]> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return remembered(this.#blames, `${gitDir}\0${commit}\0${path}`, () => blame(gitDir, commit, path));
  }

  /** The lines of a commit's text files holding `text` (see grep.ts): cached by commit and text. */
  async search(owner: string, name: string, commit: string, text: string): Promise<GrepResult> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return remembered(this.#searches, `${gitDir}\0${commit}\0${text}`, () => grep(gitDir, commit, text));
  }

  async log(owner: string, name: string, commit: string, path: string, skip: number, limit: number): Promise<CommitInfo[]> {
    return this.#log(await this.#deps.gitDir(owner, name), commit, path, skip, Math.min(limit, MAX_LOG_PAGE) + 1);
  }

  /** The newest commit from `commit` that touched `path` (any commit for ''), or undefined. */
  async lastCommit(owner: string, name: string, commit: string, path: string): Promise<CommitInfo | undefined> {
    // Exactly one: asking git for two would walk the whole history of a path changed only once.
    return (await this.#log(await this.#deps.gitDir(owner, name), commit, path, 0, 1))[0];
  }

  async #log(gitDir: string, commit: string, path: string, skip: number, count: number): Promise<CommitInfo[]> {
    if (!FULL_ID.test(commit)) throw new TypeError(`not a commit id: ${commit}`);
    const key = `${gitDir}\0${commit}\0${path}\0${skip}\0${count}`;
    const cached = this.#logs.get(key);
    if (cached) return cached;
    const args = ['log', `--format=${COMMIT_FORMAT}`, `--skip=${skip}`, `-n${count}`, commit, '--'];
    if (path) args.push(path);
    const { stdout } = await runGit(args, { gitDir, env: LITERAL });
    const commits = parseCommits(stdout.toString('utf8'));
    for (const info of commits) this.#commits.set(`${gitDir}\0${info.sha}`, info);
    this.#logs.set(key, commits);
    return commits;
  }

  /** A commit by its full id, or undefined when the repository has no such commit. */
  async commit(owner: string, name: string, sha: string): Promise<CommitInfo | undefined> {
    if (!FULL_ID.test(sha)) return undefined;
    const gitDir = await this.#deps.gitDir(owner, name);
    const key = `${gitDir}\0${sha}`;
    const cached = this.#commits.get(key);
    if (cached) return cached;
    try {
      const { stdout } = await runGit(['show', '-s', `--format=${COMMIT_FORMAT}`, sha, '--'], { gitDir });
      const info = parseCommits(stdout.toString('utf8'))[0];
      if (info) this.#commits.set(key, info);
      return info;
    } catch (error) {
      if (isGitError(error) && error.code !== null) return undefined;
      throw error;
    }
  }

  /**
   * What a commit changed against its first parent (the empty tree for a root commit), renames detected: the files
   * of `window` (its first files, within its patch budget) and how many it changed in all. Cached by commit id.
   */
  async commitDiff(owner: string, name: string, commit: CommitInfo, window: Omit<DiffWindow, 'direct' | 'skip'>): Promise<DiffPage> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const key = `${gitDir}\0${commit.sha}\0${window.maxFiles}\0${window.maxPatchBytes}\0${window.budget?.bytes}\0${window.budget?.lines}\0${window.ignoreWhitespace === true}`;
    return remembered(this.#diffs, key, () => readDiff(gitDir, commit.parents[0] ?? EMPTY_TREE_ID, commit.sha, { ...window, direct: true }));
  }

  /** One file of `commitDiff` with every line as context (a page's "show all lines"). */
  async commitFileWithAllLines(owner: string, name: string, commit: CommitInfo, file: Pick<ChangedFile, 'filename' | 'previous_filename'>, ignoreWhitespace: boolean): Promise<ChangedFile | undefined> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const paths = [file.filename, ...(file.previous_filename ? [file.previous_filename] : [])];
    const key = `${gitDir}\0${commit.sha}\0all\0${ignoreWhitespace}\0${paths.join('\0')}`;
    const read = await remembered(this.#diffs, key, () => readDiff(gitDir, commit.parents[0] ?? EMPTY_TREE_ID, commit.sha, { direct: true, allLines: true, ignoreWhitespace, paths }));
    return read.files.find((changed) => changed.filename === file.filename);
  }

  /** The whole diff of a commit (`diff`, against its first parent or the empty tree) or its format-patch mail, streamed. */
  async streamCommit(owner: string, name: string, commit: CommitInfo, kind: 'diff' | 'patch'): Promise<Readable> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return kind === 'diff' ? streamCommitDiff(gitDir, commit.parents[0] ?? EMPTY_TREE_ID, commit.sha) : streamCommitPatch(gitDir, commit.sha);
  }

  /** What `head` changes against its merge base with `base` (`diff`) or its commits as format-patch mails, streamed. */
  async streamComparison(owner: string, name: string, base: string, head: string, kind: 'diff' | 'patch'): Promise<Readable> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return kind === 'diff' ? streamDiff(gitDir, base, head) : streamFormatPatch(gitDir, base, head);
  }

  /** How many commits `tip` has that `base` lacks (ahead) and the reverse (behind); cached by the pair. */
  async aheadBehind(owner: string, name: string, base: string, tip: string): Promise<AheadBehind> {
    if (!FULL_ID.test(base) || !FULL_ID.test(tip)) throw new TypeError('not commit ids');
    const gitDir = await this.#deps.gitDir(owner, name);
    const key = `${gitDir}\0${base}\0${tip}`;
    const cached = this.#aheadBehind.get(key);
    if (cached) return cached;
    const { stdout } = await runGit(['rev-list', '--left-right', '--count', `${base}...${tip}`, '--'], { gitDir });
    const [behind, ahead] = stdout.toString('utf8').trim().split(/\s+/).map(Number);
    const result = { ahead: ahead || 0, behind: behind || 0 };
    this.#aheadBehind.set(key, result);
    return result;
  }
}
