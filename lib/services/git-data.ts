import { tipsContaining } from '../git/ancestry.js';
import { conflict, invalid, NoSuchCommit, notFound, tooLarge } from '../errors.js';
import type { Readable } from 'node:stream';
import type { Db } from '../store/interface.js';
import { streamArchive, type ArchiveFormat } from '../git/archive.js';
import { EMPTY_TREE_ID, readDiff, type ChangedFile } from '../git/diff.js';
import { countCommits, logCommits, mergeBase, type CommitFilter } from '../git/history.js';
import { commitTree, gitDate, GitObjectError, objectInfo, readBlob, readCommit, readTree, writeBlob, writeBlobsFromFiles, writeTag, type CommitIdentity, type CommitObject, type GitIdentity, type TreeEntry } from '../git/objects.js';
import { buildTree, type TreeChange } from '../git/tree-builder.js';
import type { GitRepositories } from '../git/repositories.js';
import { repositoryScope } from '../git/object-cache.js';
import { isSafeBranchName } from '../git/names.js';
import { listTags, readTag, type TagObject } from '../git/tags.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { requireAccess, type Viewer } from './permissions.js';
import type { RefUpdateService } from './ref-updates.js';
import { requiredText } from './text-fields.js';

/** Largest blob the API hands out or takes in one request body (larger files go through git). */
export const MAX_API_BLOB_BYTES = 10 * 1024 * 1024;
/** Most entries a tree listing returns before it says `truncated`. */
const MAX_TREE_ENTRIES = 100_000;
/** Most commits a compare lists (GitHub's limit too). */
const MAX_COMPARE_COMMITS = 250;
/** Most files a compare lists (GitHub: "up to 300 changed files for the entire comparison"). */
const MAX_COMPARE_FILES = 300;
/** Most entries a folder's contents list (GitHub: "If the directory has more than 1,000 files, only the first 1,000"). */
const MAX_CONTENTS_ENTRIES = 1000;
/** Most files a commit lists in all, over its pages (GitHub: "up to a limit of 3000 files"). */
const MAX_COMMIT_FILES = 3000;
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A person given in a request (`author`, `committer`); the date defaults to the host's clock. */
export interface IdentityInput {
  name?: unknown;
  email?: unknown;
  date?: unknown;
}

/** One entry of a new tree: an existing object (`sha`), new content, or `sha: null` to delete the path. */
export interface TreeEntryInput {
  path: string;
  mode?: string;
  sha?: string | null;
  content?: string;
}

/** A file or folder entry of the contents API. */
export interface ContentEntry {
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  name: string;
  path: string;
  sha: string;
  size: number;
}

export interface FileChange {
  path: string;
  message: unknown;
  /** The new bytes; undefined deletes the file. */
  content?: Buffer;
  /** The blob id of the file being replaced or deleted. */
  sha?: unknown;
  branch?: unknown;
  author?: IdentityInput;
  committer?: IdentityInput;
}

export interface Comparison {
  base: CommitObject;
  head: CommitObject;
  mergeBase: CommitObject | undefined;
  status: 'identical' | 'ahead' | 'behind' | 'diverged';
  aheadBy: number;
  behindBy: number;
  commits: CommitObject[];
  files: ChangedFile[];
}

type DataGit = Pick<GitRepositories, 'gitDirOf' | 'cachedRefs' | 'resolveCommit' | 'objects'>;

/** A GitObjectError (bad id, mode, path) is the caller's mistake: 400 here, 422 on the GitHub-compatible API. */
async function asInvalid<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GitObjectError) throw invalid(error.message);
    throw error;
  }
}

/** A path inside a tree as the API takes it: no leading or trailing slash, no empty, `.` or `..` segments. */
export function treePath(value: string): string {
  const path = value.replace(/^\/+|\/+$/g, '');
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..') || /[\0]/.test(path)) throw invalid(`path is not a valid path: ${path}`);
  return path;
}

/** A path a file is written at: a tree path whose names and whole fit a clone's file system. */
export function writablePath(value: string): string {
  // Checked first: treePath's message names the path, which must stay short.
  if (Buffer.byteLength(value) > MAX_PATH_BYTES || value.split('/').some((part) => Buffer.byteLength(part) > MAX_NAME_BYTES)) {
    throw invalid(`path is too long: at most ${MAX_NAME_BYTES} bytes a name and ${MAX_PATH_BYTES} bytes in all`);
  }
  return treePath(value);
}

/** The longest name of a file or folder, and the longest path, in bytes: what a clone's file system can hold (NAME_MAX, PATH_MAX). */
const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4096;

/**
 * Git objects of a repository for the GitHub-compatible API: blobs, trees, commits and tags read and written straight
 * into the bare repository, commit history, comparisons and the contents API (commits made by the host). Reads
 * need the repository to be visible (the caller looked it up so); writes need write access, and every ref they move
 * goes through RefUpdateService like a push.
 */
export class GitDataService {
  constructor(
    private readonly store: Db,
    private readonly git: DataGit,
    private readonly refs: RefUpdateService,
    private readonly now: () => string,
    private readonly committerEmail: (user: UserRow) => string,
    /**
     * Runs work on a repository that can be neither deleted nor renamed meanwhile (RepositoryService.whileUnchanged):
     * every write here runs git in its folder, which a rename or a delete would move or remove under it.
     */
    private readonly whileUnchanged: <T>(repo: RepositoryRow, work: (current: RepositoryRow) => Promise<T>) => Promise<T>,
  ) {}

  private dir(repo: RepositoryRow): Promise<string> {
    return this.git.gitDirOf(repo.owner_name, repo.name);
  }

  private async requireWrite(repo: RepositoryRow, viewer: Viewer): Promise<UserRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Writing to the repository needs write access');
    return viewer!;
  }

  /** Every ref with the object it points to. */
  refsOf(repo: RepositoryRow): Promise<ReadonlyMap<string, string>> {
    return this.git.cachedRefs(repo.owner_name, repo.name);
  }

  /** Which of `tips` (commit ids) have `commit` in their history (see tipsContaining in ancestry.ts). */
  async tipsContaining(repo: RepositoryRow, commit: string, tips: Iterable<string>): Promise<Set<string>> {
    return await tipsContaining(await this.dir(repo), commit, tips);
  }

  async objectType(repo: RepositoryRow, sha: string): Promise<string | undefined> {
    return OBJECT_ID.test(sha) ? (await objectInfo(await this.dir(repo), sha))?.type : undefined;
  }

  async blob(repo: RepositoryRow, sha: string): Promise<Buffer> {
    const gitDir = await this.dir(repo);
    const info = OBJECT_ID.test(sha) ? await objectInfo(gitDir, sha) : undefined;
    if (info?.type !== 'blob') throw notFound('Blob not found');
    if (info.size > MAX_API_BLOB_BYTES) throw tooLarge(`the blob is ${info.size} bytes; the API hands out blobs up to ${MAX_API_BLOB_BYTES} bytes (clone for larger ones)`);
    return (await readBlob(gitDir, sha))!;
  }

  async createBlob(repo: RepositoryRow, viewer: Viewer, content: Buffer): Promise<string> {
    await this.requireWrite(repo, viewer);
    return await this.whileUnchanged(repo, async (current) => await writeBlob(await this.dir(current), content));
  }

  /** A tree by id, or the tree of a commit (by id, or a branch or tag name, as GitHub accepts). */
  async tree(repo: RepositoryRow, treeish: string, recursive: boolean): Promise<{ sha: string; entries: TreeEntry[]; truncated: boolean }> {
    const gitDir = await this.dir(repo);
    const sha = OBJECT_ID.test(treeish) ? treeish : await this.resolve(repo, treeish);
    const info = await objectInfo(gitDir, sha);
    if (info?.type !== 'tree' && info?.type !== 'commit') throw notFound('Tree not found');
    const treeSha = info.type === 'commit' ? (await readCommit(gitDir, sha))!.tree : sha;
    const entries = (await readTree(gitDir, treeSha, { recursive }))!;
    return { sha: treeSha, entries: entries.slice(0, MAX_TREE_ENTRIES), truncated: entries.length > MAX_TREE_ENTRIES };
  }

  /** A new tree: `base` (a tree id) or nothing, with each entry set or (sha null) deleted. */
  async createTree(repo: RepositoryRow, viewer: Viewer, base: string | undefined, entries: readonly TreeEntryInput[]): Promise<string> {
    return await this.whileUnchanged(repo, (current) => this.createTreeHolding(current, viewer, base, entries));
  }

  private async createTreeHolding(repo: RepositoryRow, viewer: Viewer, base: string | undefined, entries: readonly TreeEntryInput[]): Promise<string> {
    await this.requireWrite(repo, viewer);
    const gitDir = await this.dir(repo);
    if (base !== undefined && (await objectInfo(gitDir, base).catch(() => undefined))?.type !== 'tree') throw invalid('base_tree is not a tree of this repository');
    const changes = new Map<string, TreeChange>();
    for (const entry of entries) {
      // A file is removed wherever it is; one is added only where a clone can hold it.
      const path = entry.sha === null ? treePath(entry.path) : writablePath(entry.path);
      if (entry.sha === null) changes.set(path, null);
      else if (entry.content !== undefined) changes.set(path, { content: entry.content, ...(entry.mode ? { mode: entry.mode } : {}) });
      else if (entry.sha !== undefined) changes.set(path, { id: entry.sha, ...(entry.mode ? { mode: entry.mode } : {}) });
      else throw invalid(`tree entry ${path} needs sha or content`);
    }
    return asInvalid(() => buildTree(gitDir, base, changes));
  }

  async commit(repo: RepositoryRow, sha: string): Promise<CommitObject> {
    const commit = OBJECT_ID.test(sha) ? await this.git.objects.commit(repositoryScope(repo), await this.dir(repo), sha) : undefined;
    if (!commit) throw notFound('Commit not found');
    return commit;
  }

  /** Writes a commit object (no ref moves): the caller is author and committer unless told, at the host's time. */
  async createCommit(repo: RepositoryRow, viewer: Viewer, input: { message: unknown; tree: unknown; parents: unknown; author?: IdentityInput; committer?: IdentityInput }): Promise<CommitObject> {
    return await this.whileUnchanged(repo, (current) => this.createCommitHolding(current, viewer, input));
  }

  private async createCommitHolding(repo: RepositoryRow, viewer: Viewer, input: { message: unknown; tree: unknown; parents: unknown; author?: IdentityInput; committer?: IdentityInput }): Promise<CommitObject> {
    const user = await this.requireWrite(repo, viewer);
    // A commit message is kept exactly as given (empty included), as git and GitHub keep it.
    const message = input.message;
    const tree = input.tree;
    if (typeof message !== 'string' || message.length > 65_535) throw invalid('message must be a string of at most 65535 characters');
    if (typeof tree !== 'string') throw invalid('tree is required');
    const parents = input.parents ?? [];
    if (!Array.isArray(parents) || !parents.every((parent) => typeof parent === 'string')) throw invalid('parents must be a list of commit ids');
    const gitDir = await this.dir(repo);
    if ((await objectInfo(gitDir, tree).catch(() => undefined))?.type !== 'tree') throw invalid('tree is not a tree of this repository');
    for (const parent of parents as string[]) if ((await objectInfo(gitDir, parent).catch(() => undefined))?.type !== 'commit') throw invalid(`parents must be commits of this repository: ${parent}`);
    const author = this.identity(user, input.author, 'author');
    const committer = input.committer ? this.identity(user, input.committer, 'committer') : author;
    const sha = await asInvalid(() => commitTree(gitDir, { tree, parents: parents as string[], message, author, committer }));
    return (await readCommit(gitDir, sha))!;
  }

  /** Who a commit of the host names: the caller (`<username>@<noreply domain>`) unless the request says otherwise. */
  private identity(user: UserRow, given: IdentityInput | undefined, field: string): GitIdentity {
    const name = given?.name ?? (user.full_name || user.username);
    const email = given?.email ?? this.committerEmail(user);
    const date = given?.date ?? this.now();
    if (typeof name !== 'string' || !name.trim() || name.length > 255 || /[<>\n\0]/.test(name)) throw invalid(`${field} name is not a valid name`);
    if (typeof email !== 'string' || !/^[^<>\s\0]{1,255}$/.test(email)) throw invalid(`${field} email is not a valid address`);
    if (typeof date !== 'string' || !Number.isFinite(Date.parse(date))) throw invalid(`${field} date must be an ISO 8601 date`);
    return { name: name.trim(), email, date };
  }

  /** Writes an annotated tag object for `object` (no ref moves: the caller creates `refs/tags/<tag>` if it wants one). */
  async createTag(repo: RepositoryRow, viewer: Viewer, input: { tag: unknown; message: unknown; object: unknown; type: unknown; tagger?: IdentityInput }): Promise<TagObject> {
    return await this.whileUnchanged(repo, (current) => this.createTagHolding(current, viewer, input));
  }

  private async createTagHolding(repo: RepositoryRow, viewer: Viewer, input: { tag: unknown; message: unknown; object: unknown; type: unknown; tagger?: IdentityInput }): Promise<TagObject> {
    const user = await this.requireWrite(repo, viewer);
    if (typeof input.tag !== 'string' || !isSafeBranchName(input.tag)) throw invalid('tag must be a valid tag name');
    if (typeof input.message !== 'string' || input.message.length > 65_535) throw invalid('message must be a string of at most 65535 characters');
    if (typeof input.object !== 'string' || !OBJECT_ID.test(input.object)) throw invalid('object must be an object id');
    const gitDir = await this.dir(repo);
    const type = (await objectInfo(gitDir, input.object).catch(() => undefined))?.type;
    if (!type) throw invalid('object is not an object of this repository');
    if (input.type !== type) throw invalid(`type must be the type of the object (${type})`);
    const tagger = this.identity(user, input.tagger, 'tagger');
    const sha = await asInvalid(() => writeTag(gitDir, { tag: input.tag as string, message: input.message as string, object: input.object as string, type, tagger }));
    return (await readTag(gitDir, sha))!;
  }

  async tag(repo: RepositoryRow, sha: string): Promise<TagObject> {
    const tag = OBJECT_ID.test(sha) ? await readTag(await this.dir(repo), sha) : undefined;
    if (!tag) throw notFound('Tag not found');
    return tag;
  }

  async tags(repo: RepositoryRow, page: PageWindow): Promise<{ items: Array<{ name: string; commit: string }>; total: number }> {
    const tags = await listTags(await this.dir(repo));
    return { items: tags.slice(page.offset, page.offset + page.limit), total: tags.length };
  }

  /** A commit's tree as GitHub's tarball or zipball (paths under `<owner>-<repo>-<short id>/`), streamed. */
  async archive(repo: RepositoryRow, ref: string, format: ArchiveFormat): Promise<{ commit: string; body: Readable }> {
    const commit = await this.resolve(repo, ref);
    return { commit, body: streamArchive(await this.dir(repo), commit, format, `${repo.owner_name}-${repo.name}-${commit.slice(0, 7)}`) };
  }

  /** The commit a branch, tag or commit id names; 404 when none. */
  async resolve(repo: RepositoryRow, ref: string): Promise<string> {
    // A branch is read from the ref cache (no git run); tags (which may need peeling) and ids ask git.
    const branch = (await this.refsOf(repo)).get(ref.startsWith('refs/heads/') ? ref : `refs/heads/${ref}`);
    if (branch) return branch;
    const sha = await this.git.resolveCommit(repo.owner_name, repo.name, ref.replace(/^refs\/(?:heads|tags)\//, ''));
    if (!sha) throw new NoSuchCommit(ref, 'No commit found for the ref');
    return sha;
  }

  /** Commits reachable from `ref` (default branch), optionally only those changing `path`, newest first. */
  async history(repo: RepositoryRow, options: { ref?: string; path?: string; filter?: CommitFilter }, page: PageWindow): Promise<{ items: CommitObject[]; total: number }> {
    const gitDir = await this.dir(repo);
    const tips = await this.refsOf(repo);
    // An empty repository has no history: GitHub answers 409 there; an empty list says the same without failing.
    if (options.ref === undefined && !tips.has(`refs/heads/${repo.default_branch}`)) return { items: [], total: 0 };
    const sha = await this.resolve(repo, options.ref ?? repo.default_branch);
    const path = options.path ? treePath(options.path) : undefined;
    const filter = options.filter ?? {};
    const [items, total] = await Promise.all([logCommits(gitDir, sha, { ...filter, skip: page.offset, max: page.limit, path }), countCommits(gitDir, sha, path, filter)]);
    return { items, total };
  }

  /**
   * The commit `ref` names with the files it changed against its first parent (a root commit: against nothing), the
   * `files.limit` of them after `files.offset` (only those are read) within the first MAX_COMMIT_FILES, and how many
   * of those first MAX_COMMIT_FILES there are (`totalFiles`). Without `files`, no diff is read (none listed).
   */
  async commitWithFiles(repo: RepositoryRow, ref: string, files?: PageWindow): Promise<{ commit: CommitObject; files: ChangedFile[]; totalFiles: number }> {
    const gitDir = await this.dir(repo);
    const commit = (await this.git.objects.commit(repositoryScope(repo), gitDir, await this.resolve(repo, ref)))!;
    if (!files) return { commit, files: [], totalFiles: 0 };
    const maxFiles = Math.max(0, Math.min(files.limit, MAX_COMMIT_FILES - files.offset));
    const diff = await readDiff(gitDir, commit.parents[0] ?? EMPTY_TREE_ID, commit.id, { direct: true, skip: files.offset, maxFiles });
    return { commit, files: diff.files, totalFiles: Math.min(diff.total, MAX_COMMIT_FILES) };
  }

  /** The commits of `head` not in `base` (ids), oldest first, at most 250 (GitHub's limit for these lists). */
  async range(repo: RepositoryRow, base: string, head: string): Promise<CommitObject[]> {
    return logCommits(await this.dir(repo), `${base}..${head}`, { max: MAX_COMPARE_COMMITS, reverse: true });
  }

  /** The ids of the commits of `head` not in `base` (every commit of head's history without one), at most `max`. */
  async commitIdsSince(repo: RepositoryRow, base: string | undefined, head: string, max: number): Promise<Set<string>> {
    const commits = await logCommits(await this.dir(repo), base ? `${base}..${head}` : head, { max });
    return new Set(commits.map((commit) => commit.id));
  }

  /**
   * `base` and `head` compared, with the commits head has that base lacks, oldest first: the `window` of them asked
   * for, or without one (GitHub's answer to no paging parameter) the newest MAX_COMPARE_COMMITS.
   */
  async compare(repo: RepositoryRow, baseRef: string, headRef: string, window?: { offset: number; limit: number }): Promise<Comparison> {
    const gitDir = await this.dir(repo);
    const [baseSha, headSha] = await Promise.all([this.resolve(repo, baseRef), this.resolve(repo, headRef)]);
    const [base, head, baseOfBoth] = await Promise.all([readCommit(gitDir, baseSha), readCommit(gitDir, headSha), mergeBase(gitDir, baseSha, headSha)]);
    const [aheadBy, behindBy] = await Promise.all([countCommits(gitDir, `${baseSha}..${headSha}`), countCommits(gitDir, `${headSha}..${baseSha}`)]);
    const status = aheadBy === 0 && behindBy === 0 ? 'identical' : behindBy === 0 ? 'ahead' : aheadBy === 0 ? 'behind' : 'diverged';
    const range = `${baseSha}..${headSha}`;
    const [commits, files] = await Promise.all([
      window ? logCommits(gitDir, range, { reverse: true, skip: window.offset, max: window.limit }) : logCommits(gitDir, range, { max: MAX_COMPARE_COMMITS }).then((newest) => newest.reverse()),
      baseOfBoth ? readDiff(gitDir, baseSha, headSha, { maxFiles: MAX_COMPARE_FILES }).then((diff) => diff.files) : Promise.resolve([]),
    ]);
    return { base: base!, head: head!, mergeBase: baseOfBoth ? await readCommit(gitDir, baseOfBoth) : undefined, status, aheadBy, behindBy, commits, files };
  }

  /** A file (with its bytes) or a folder listing at `path` on `ref` (default branch). */
  async contents(repo: RepositoryRow, path: string, ref?: string): Promise<{ file: ContentEntry; content: Buffer | null } | { folder: ContentEntry[] }> {
    const gitDir = await this.dir(repo);
    const commit = await this.resolve(repo, ref ?? repo.default_branch);
    const target = path === '' ? '' : treePath(path);
    if (target === '') return { folder: await this.folder(repo, gitDir, commit, '') };
    const slash = target.lastIndexOf('/');
    const parent = slash < 0 ? '' : target.slice(0, slash);
    const name = target.slice(slash + 1);
    const entry = (await this.git.objects.tree(repositoryScope(repo), gitDir, commit, parent))?.find((candidate) => candidate.path === name);
    if (!entry) throw notFound('Not Found');
    if (entry.type === 'tree') return { folder: await this.folder(repo, gitDir, commit, target) };
    const file = contentEntry(entry, parent);
    // A file too large to include is listed without its bytes (null), as GitHub does beyond its limit.
    const size = entry.size ?? 0;
    const content = entry.type === 'blob' && size <= MAX_API_BLOB_BYTES ? ((await this.git.objects.blob(repositoryScope(repo), gitDir, entry.id, size)) ?? null) : null;
    return { file, content };
  }

  /** A folder's first MAX_CONTENTS_ENTRIES entries (git stops there: a larger folder costs no more). */
  private async folder(repo: RepositoryRow, gitDir: string, commit: string, path: string): Promise<ContentEntry[]> {
    const entries = (await this.git.objects.tree(repositoryScope(repo), gitDir, commit, path, MAX_CONTENTS_ENTRIES)) ?? [];
    return entries.map((entry) => contentEntry(entry, path));
  }

  /** The README of the top folder (README.md, README, readme.txt, ...) on `ref`. */
  async readme(repo: RepositoryRow, ref?: string): Promise<{ file: ContentEntry; content: Buffer | null }> {
    const gitDir = await this.dir(repo);
    const commit = await this.resolve(repo, ref ?? repo.default_branch);
    const entry = ((await this.git.objects.tree(repositoryScope(repo), gitDir, commit, '')) ?? []).filter((candidate) => candidate.type === 'blob' && /^readme(\.|$)/i.test(candidate.path)).sort((a, b) => a.path.length - b.path.length)[0];
    if (!entry) throw notFound('Not Found');
    const size = entry.size ?? 0;
    return { file: contentEntry(entry, ''), content: size <= MAX_API_BLOB_BYTES ? ((await this.git.objects.blob(repositoryScope(repo), gitDir, entry.id, size)) ?? null) : null };
  }

  /**
   * Creates, replaces or (without content) deletes one file as a new commit on `branch`, which moves like a push
   * (protection applies). Replacing or deleting needs the blob id of the file as it is (409 when it is stale).
   */
  async changeFile(repo: RepositoryRow, viewer: Viewer, change: FileChange): Promise<{ commit: CommitObject; file: ContentEntry | undefined; replaced: boolean }> {
    return await this.whileUnchanged(repo, (current) => this.changeFileHolding(current, viewer, change));
  }

  private async changeFileHolding(repo: RepositoryRow, viewer: Viewer, change: FileChange): Promise<{ commit: CommitObject; file: ContentEntry | undefined; replaced: boolean }> {
    const user = await this.requireWrite(repo, viewer);
    const path = writablePath(change.path);
    if (path === '') throw invalid('path is required');
    const message = requiredText('message', change.message, 65_535);
    const branch = change.branch === undefined || change.branch === null ? repo.default_branch : requiredText('branch', change.branch, 250);
    const gitDir = await this.dir(repo);
    const tips = await this.refsOf(repo);
    const ref = `refs/heads/${branch}`;
    const tip = tips.get(ref);
    const hasBranches = [...tips.keys()].some((name) => name.startsWith('refs/heads/'));
    if (!tip && (hasBranches || change.content === undefined)) throw notFound(`Branch ${branch} not found`);
    const slash = path.lastIndexOf('/');
    const existing = tip ? (await readTree(gitDir, slash < 0 ? tip! : `${tip}:${path.slice(0, slash)}`))?.find((entry) => entry.path === path.slice(slash + 1)) : undefined;
    if (existing?.type === 'tree') throw invalid(`path ${path} is a folder`);
    if (existing && (change.sha === undefined || change.sha === null || change.sha === '')) throw invalid('sha is required to replace or delete an existing file');
    if (change.sha !== undefined && change.sha !== null && typeof change.sha !== 'string') throw invalid('sha must be a string');
    if (existing && change.sha !== existing.id) throw conflict(`${path} does not match ${String(change.sha)}`);
    if (!existing && change.content === undefined) throw notFound('Not Found');
    const blob = change.content === undefined ? undefined : await writeBlob(gitDir, change.content);
    // ls-tree reads a commit as its tree, so the tip commit serves as the base tree.
    const tree = await asInvalid(() => buildTree(gitDir, tip, { [path]: blob === undefined ? null : { id: blob } }));
    const author = this.identity(user, change.author, 'author');
    const committer = change.committer ? this.identity(user, change.committer, 'committer') : author;
    const sha = await commitTree(gitDir, { tree, parents: tip ? [tip] : [], message, author, committer });
    await this.refs.apply(repo, user, { ref, after: sha, mustExist: tip !== undefined, expected: tip });
    // What was just written is known: no git run to read it back.
    const commit: CommitObject = { id: sha, tree, parents: tip ? [tip] : [], message, author: written(author), committer: written(committer) };
    const entry: TreeEntry | undefined = blob === undefined ? undefined : { path: path.slice(slash + 1), mode: existing?.mode ?? '100644', type: 'blob', id: blob, size: change.content!.length };
    return { commit, file: entry && contentEntry(entry, path.slice(0, Math.max(slash, 0))), replaced: existing !== undefined };
  }

  /**
   * Adds (or replaces) files in a folder of a branch in one commit, as a browser's "Upload files" does: names keep
   * their last part only, a name given twice or naming a folder is refused, and the branch moves as a push would
   * (protection, events) from the tip the files were added to.
   */
  async addFiles(repo: RepositoryRow, viewer: Viewer, upload: UploadedFiles): Promise<CommitObject> {
    return await this.whileUnchanged(repo, (current) => this.addFilesHolding(current, viewer, upload));
  }

  private async addFilesHolding(repo: RepositoryRow, viewer: Viewer, upload: UploadedFiles): Promise<CommitObject> {
    const user = await this.requireWrite(repo, viewer);
    const message = requiredText('message', upload.message, 65_535);
    if (upload.files.length === 0) throw invalid('Choose at least one file to upload');
    const paths = upload.files.map((file) => {
      const name = file.name.split(/[\\/]/).pop()!.trim();
      if (!name) throw invalid('Every uploaded file needs a name');
      return writablePath(upload.folder ? `${upload.folder}/${name}` : name);
    });
    const twice = paths.find((path, index) => paths.indexOf(path) !== index);
    if (twice !== undefined) throw invalid(`${twice} was chosen twice`);
    const gitDir = await this.dir(repo);
    const ref = `refs/heads/${upload.branch}`;
    const tip = (await this.refsOf(repo)).get(ref);
    if (!tip) throw notFound(`Branch ${upload.branch} not found`);
    // Every file goes into one folder: its entries are read once. A file replaced keeps only an executable bit.
    const folder = new Map(((await readTree(gitDir, upload.folder ? `${tip}:${upload.folder}` : tip)) ?? []).map((entry) => [entry.path, entry]));
    const modes = paths.map((path) => {
      const existing = folder.get(path.slice(path.lastIndexOf('/') + 1));
      if (existing && existing.type !== 'blob') throw invalid(`${path} is a folder`);
      return existing?.mode === '100755' ? '100755' : '100644';
    });
    const blobs = await writeBlobsFromFiles(gitDir, upload.files.map((file) => file.source));
    const tree = await asInvalid(() => buildTree(gitDir, tip, Object.fromEntries(paths.map((path, index) => [path, { id: blobs[index]!, mode: modes[index]! }]))));
    const author = this.identity(user, undefined, 'author');
    const sha = await commitTree(gitDir, { tree, parents: [tip], message, author, committer: author });
    await this.refs.apply(repo, user, { ref, after: sha, mustExist: true, expected: tip });
    return { id: sha, tree, parents: [tip], message, author: written(author), committer: written(author) };
  }
}

/** Files uploaded from a browser into a folder of a branch, committed together. */
export interface UploadedFiles {
  folder: string;
  /** Each file's name (its last path part is kept) and where its bytes wait on disk. */
  files: ReadonlyArray<{ name: string; source: string }>;
  message: unknown;
  branch: string;
}

/** An identity as readCommit would read it back from the commit just written with it. */
function written(identity: GitIdentity): CommitIdentity {
  const date = gitDate(identity.date);
  return { ...identity, date, iso: new Date(Number(date.split(' ')[0]) * 1000).toISOString().replace('.000Z', 'Z') };
}

function contentEntry(entry: TreeEntry, folder: string): ContentEntry {
  const type = entry.type === 'tree' ? 'dir' : entry.type === 'commit' ? 'submodule' : entry.mode === '120000' ? 'symlink' : 'file';
  return { type, name: entry.path, path: folder ? `${folder}/${entry.path}` : entry.path, sha: entry.id, size: entry.size ?? 0 };
}
