import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { invalid } from '../errors.js';
import { DEFAULT_GIT_TIMEOUT_MS, isGitError, runGit, spawnGit } from './run-git.js';
import { ownValue } from '../own-value.js';
import { isDotGitName } from './dot-git.js';

// Low-level object plumbing for commits made without a work tree or a push: blobs, trees, commits and
// guarded ref updates, each a stock git command over an argument array. Callers that move refs with it
// then do the post-push bookkeeping themselves (GitRepositories.afterPush, ReposService.recordPush).

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** True for a full object id (SHA-1 or SHA-256 width), the only form these helpers accept as an id. */
export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/** Who made a commit and when: `date` is ISO 8601 or git's raw `<epoch seconds> <±hhmm>`. */
export interface GitIdentity {
  name: string;
  email: string;
  date: string;
}

/** An identity read from a commit: `date` raw (lossless, accepted back by commitTree) and `iso` in UTC. */
export interface CommitIdentity extends GitIdentity {
  iso: string;
}

/** Something git refused to take apart or build (bad id, path, mode, date); callers map it to a 4xx. */
export class GitObjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitObjectError';
  }
}

/** git's own date format (`<epoch seconds> <offset>`), so no date parsing is left to git. */
export function gitDate(date: string): string {
  if (/^\d+ [+-]\d{4}$/.test(date)) return date;
  const ms = Date.parse(date);
  if (!Number.isFinite(ms)) throw new GitObjectError(`not a date: ${JSON.stringify(date)}`);
  if (ms < 0 || ms > LATEST_GIT_TIME) throw new GitObjectError(`${JSON.stringify(date)} is outside the times git records (1970 to 9999)`);
  return `${Math.floor(ms / 1000)} +0000`;
}

/**
 * A date for `GIT_AUTHOR_DATE` / `GIT_COMMITTER_DATE`: git reads fewer than nine digits there (times before March 1973)
 * as something else than seconds since 1970 unless they follow `@`.
 */
export const gitEnvDate = (date: string): string => `@${gitDate(date)}`;

/** The last moment a commit may carry: git records no time before 1970, and ISO times past 9999 sort wrongly. */
export const LATEST_GIT_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The environment that gives `commit-tree` (or any committing command) a fixed author and committer. */
export function identityEnv(author: GitIdentity, committer: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: gitEnvDate(author.date),
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: gitEnvDate(committer.date),
  };
}

function requireId(id: string, what: string): void {
  if (!isObjectId(id)) throw new GitObjectError(`${what} is not an object id: ${JSON.stringify(id)}`);
}

const trimmed = (stdout: Buffer) => stdout.toString('utf8').trim();

/** Writes the bytes as a blob (`hash-object -w --stdin`, no filters) and returns its id. */
export async function writeBlob(gitDir: string, content: string | Uint8Array): Promise<string> {
  const { stdout } = await runGit(['hash-object', '-t', 'blob', '-w', '--stdin'], { gitDir, input: typeof content === 'string' ? content : Buffer.from(content) });
  return trimmed(stdout);
}

/** Writes the bytes of the files at `paths` (absolute paths) as blobs, as they are (no filters), in one git run; their ids in order. */
export async function writeBlobsFromFiles(gitDir: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const { stdout } = await runGit(['hash-object', '-t', 'blob', '-w', '--no-filters', '--stdin-paths'], { gitDir, input: `${paths.join('\n')}\n` });
  const ids = stdout.toString('utf8').split('\n').filter(Boolean);
  if (ids.length !== paths.length) throw new GitObjectError('hash-object did not write every file');
  return ids;
}

/** The object's type and size, or undefined when the repository has no such object. */
export async function objectInfo(gitDir: string, id: string): Promise<{ type: 'blob' | 'tree' | 'commit' | 'tag'; size: number } | undefined> {
  requireId(id, 'object');
  const { stdout } = await runGit(['cat-file', '--batch-check=%(objecttype) %(objectsize)'], { gitDir, input: `${id}\n` });
  const [type, size] = trimmed(stdout).split(' ');
  if (type !== 'blob' && type !== 'tree' && type !== 'commit' && type !== 'tag') return undefined;
  return { type, size: Number(size) };
}

/** The blob's bytes, or undefined when `id` is not a blob of the repository. */
export async function readBlob(gitDir: string, id: string): Promise<Buffer | undefined> {
  if ((await objectInfo(gitDir, id))?.type !== 'blob') return undefined;
  return (await runGit(['cat-file', 'blob', id], { gitDir })).stdout;
}

export type EntryType = 'blob' | 'tree' | 'commit';

/** One entry of a tree; `path` is the full path from the listed tree (equal to the name unless recursive). */
export interface TreeEntry {
  mode: string;
  type: EntryType;
  id: string;
  path: string;
  /** Bytes of a blob (undefined for trees and submodules). */
  size?: number;
}

/** Modes git writes into trees, with the object type each names. */
const MODE_TYPES: Record<string, EntryType> = { '100644': 'blob', '100755': 'blob', '120000': 'blob', '040000': 'tree', '160000': 'commit' };

/** The canonical six-digit mode ('40000' → '040000'), or a GitObjectError for a mode git would not store. */
export function normaliseMode(mode: string): string {
  const six = mode.padStart(6, '0');
  if (!Object.hasOwn(MODE_TYPES, six)) throw new GitObjectError(`unsupported file mode: ${JSON.stringify(mode)}`);
  return six;
}

/**
 * The entries of a tree (`treeish` is a tree or commit id, optionally with `:folder`), or undefined when
 * there is no such tree. `recursive` lists every entry below it, folders included, as GitHub's trees do.
 */
export async function readTree(gitDir: string, treeish: string, options: { recursive?: boolean; limit?: number } = {}): Promise<TreeEntry[] | undefined> {
  requireId(treeish.split(':', 1)[0]!, 'tree');
  const args = ['ls-tree', '-z', '--long', '--full-tree', ...(options.recursive ? ['-r', '-t'] : []), treeish];
  let records: string[];
  try {
    records = options.limit === undefined ? (await runGit(args, { gitDir })).stdout.toString('utf8').split('\0') : await firstRecords(args, gitDir, options.limit);
  } catch (error) {
    // 128: no such object, or not a tree.
    if (isGitError(error) && error.code === 128) return undefined;
    throw error;
  }
  const entries: TreeEntry[] = [];
  for (const record of records) {
    if (!record) continue;
    // "<mode> <type> <id> <size, right-aligned>\t<path>"
    const tab = record.indexOf('\t');
    const [mode, type, objectId, size] = record.slice(0, tab).split(/ +/);
    entries.push({ mode: mode!, type: type as EntryType, id: objectId!, path: record.slice(tab + 1), ...(size !== '-' ? { size: Number(size) } : {}) });
  }
  return entries;
}

/**
 * The first `limit` NUL-ended records git prints, read as they come: git is stopped once they are in (`ls-tree
 * --long` of a 20,000-entry tree then reads the sizes of the listed entries only).
 */
async function firstRecords(args: readonly string[], gitDir: string, limit: number): Promise<string[]> {
  const child = spawnGit(args, { gitDir, timeoutMs: DEFAULT_GIT_TIMEOUT_MS });
  child.stdin.end();
  const decoder = new StringDecoder('utf8');
  const records: string[] = [];
  let rest = '';
  let enough = limit <= 0;
  try {
    if (!enough) {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        const parts = (rest + decoder.write(chunk)).split('\0');
        rest = parts.pop()!;
        records.push(...parts.slice(0, limit - records.length));
        enough = records.length >= limit;
        if (enough) break;
      }
    }
  } finally {
    if (enough) child.kill('SIGKILL');
  }
  if (!enough) await child.done;
  return records;
}

/** Writes a tree of exactly these entries (names, not paths; `mktree` sorts them) and returns its id. */
export async function writeTree(gitDir: string, entries: readonly Pick<TreeEntry, 'mode' | 'id' | 'path'>[]): Promise<string> {
  const lines = entries.map((entry) => {
    const mode = normaliseMode(entry.mode);
    requireId(entry.id, `entry ${JSON.stringify(entry.path)}`);
    if (!isEntryName(entry.path)) throw new GitObjectError(`not a tree entry name: ${JSON.stringify(entry.path)}`);
    return `${mode} ${ownValue(MODE_TYPES, mode)} ${entry.id}\t${entry.path}\0`;
  });
  try {
    return trimmed((await runGit(['mktree', '-z'], { gitDir, input: lines.join('') })).stdout);
  } catch (error) {
    if (isGitError(error)) throw new GitObjectError(`cannot write the tree: ${error.stderr.trim().split('\n').pop() ?? error.message}`);
    throw error;
  }
}

/** A name git accepts inside a tree and that cannot escape a checkout (see dot-git.ts). */
function isEntryName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !isDotGitName(name) && !/[/\0]/.test(name);
}

/**
 * What becomes of one path in `buildTree`: new content (a blob is written), an existing object by id
 * (a blob, or a folder with mode 040000), or `null` to delete it.
 */
export type TreeChange = null | { content: string | Uint8Array; mode?: string } | { id: string; mode?: string };

/** Splits "a/b/c" into names, rejecting empty, dot and .git segments (as git's `verify_path` does). */
export function splitTreePath(path: string): string[] {
  const names = path.split('/');
  if (names.some((name) => !isEntryName(name))) throw new GitObjectError(`not a valid path in a tree: ${JSON.stringify(path)}`);
  return names;
}

interface Node {
  /** Changes to entries directly in this folder, by name. */
  own: Map<string, TreeChange>;
  /** Changes further down, by the name of the sub-folder. */
  below: Map<string, Node>;
}

/**
 * A new tree: `base` (a tree id, or undefined for an empty one) with each path of `changes` set or deleted.
 * Sub-folders are created as needed; a folder left empty disappears, as git has no empty folders. Only the
 * folders on changed paths are read and rewritten.
 */
export async function buildTree(gitDir: string, base: string | undefined, changes: ReadonlyMap<string, TreeChange> | Readonly<Record<string, TreeChange>>): Promise<string> {
  const root: Node = { own: new Map(), below: new Map() };
  const entries = changes instanceof Map ? [...changes] : Object.entries(changes);
  for (const [path, change] of entries) {
    const names = splitTreePath(path);
    let node = root;
    for (const name of names.slice(0, -1)) {
      if (node.own.has(name)) throw new GitObjectError(`path ${JSON.stringify(path)} runs through an entry that is changed itself`);
      let next = node.below.get(name);
      if (!next) node.below.set(name, (next = { own: new Map(), below: new Map() }));
      node = next;
    }
    const last = names.at(-1)!;
    if (node.below.has(last) || node.own.has(last)) throw new GitObjectError(`path ${JSON.stringify(path)} is changed twice`);
    node.own.set(last, change);
  }
  await writeBlobs(gitDir, root);
  return (await writeNode(gitDir, base, root, '')) ?? writeTree(gitDir, []);
}

/** Blobs written at once by buildTree: each is a git child, and a big change must not start hundreds together. */
const BLOB_WRITERS = 4;

/** Changes that were content before writeBlobs: without a mode they keep a file's mode, never a folder's. */
const WRITTEN_BLOBS = new WeakSet<object>();

/** Replaces every content change below `root` with the id of its written blob. */
async function writeBlobs(gitDir: string, root: Node): Promise<void> {
  const pending: [Map<string, TreeChange>, string, { content: string | Uint8Array; mode?: string }][] = [];
  const collect = (node: Node) => {
    for (const [name, change] of node.own) if (change && 'content' in change) pending.push([node.own, name, change]);
    for (const child of node.below.values()) collect(child);
  };
  collect(root);
  const worker = async () => {
    for (let job = pending.shift(); job; job = pending.shift()) {
      const [own, name, change] = job;
      if (change.mode !== undefined && ownValue(MODE_TYPES, normaliseMode(change.mode)) !== 'blob') throw new GitObjectError(`${name}: content needs a file mode, not ${change.mode}`);
      const written = { id: await writeBlob(gitDir, change.content), ...(change.mode !== undefined ? { mode: change.mode } : {}) };
      WRITTEN_BLOBS.add(written);
      own.set(name, written);
    }
  };
  await Promise.all(Array.from({ length: BLOB_WRITERS }, worker));
}

/** Writes one folder of `buildTree`; undefined when it ends up empty. */
async function writeNode(gitDir: string, base: string | undefined, node: Node, at: string): Promise<string | undefined> {
  const current = new Map<string, Pick<TreeEntry, 'mode' | 'id' | 'path'>>();
  for (const entry of base ? ((await readTree(gitDir, base)) ?? []) : []) current.set(entry.path, entry);
  for (const [name, change] of node.own) {
    if (change === null) {
      current.delete(name);
      continue;
    }
    // Content was written as a blob by writeBlobs; an entry keeps its mode (executable, link) unless told.
    const id = (change as { id: string }).id;
    const previous = current.get(name);
    const keeps = previous && (!WRITTEN_BLOBS.has(change) || ownValue(MODE_TYPES, previous.mode) === 'blob');
    const mode = normaliseMode(change.mode ?? (keeps ? previous.mode : '100644'));
    current.set(name, { mode, id, path: name });
  }
  // One folder at a time: a wide change must not start a git child per folder at once.
  for (const [name, child] of node.below) {
    const existing = current.get(name);
    if (existing && existing.mode !== '040000') throw new GitObjectError(`${at}${name} is a file, not a folder`);
    const id = await writeNode(gitDir, existing?.id, child, `${at}${name}/`);
    if (id === undefined) current.delete(name);
    else current.set(name, { mode: '040000', id, path: name });
  }
  return current.size === 0 ? undefined : writeTree(gitDir, [...current.values()]);
}

export interface CommitInput {
  tree: string;
  parents: readonly string[];
  message: string;
  author: GitIdentity;
  /** @default author */
  committer?: GitIdentity;
}

/** Writes a commit object (`commit-tree`) with exactly these parents, message, identities and dates. */
export async function commitTree(gitDir: string, input: CommitInput): Promise<string> {
  // A tree may be named "<commit>^{tree}"; only ids go to parents.
  if (!/^[0-9a-f]{40,64}(\^\{tree\})?$/.test(input.tree)) requireId(input.tree, 'tree');
  for (const parent of input.parents) requireId(parent, 'parent');
  // git refuses these itself, as a failure; whoever gave the message is told instead (a 422, every path alike).
  if (input.message.includes('\0')) throw invalid('A commit message cannot contain NUL characters');
  const args = ['commit-tree', input.tree, ...input.parents.flatMap((parent) => ['-p', parent])];
  try {
    const { stdout } = await runGit(args, { gitDir, input: input.message, env: identityEnv(input.author, input.committer ?? input.author) });
    return trimmed(stdout);
  } catch (error) {
    if (isGitError(error)) throw new GitObjectError(`cannot write the commit: ${error.stderr.trim().split('\n').pop() ?? error.message}`);
    throw error;
  }
}

export interface CommitObject {
  id: string;
  tree: string;
  parents: string[];
  author: CommitIdentity;
  committer: CommitIdentity;
  message: string;
  /**
   * The commit's signature (`gpgsig`) and what it signs (the object without that header); null for an unsigned
   * commit. Only `readCommit` reads it: undefined where the commit came from a listing.
   */
  signature?: { signature: string; payload: string } | null;
}

/** Parses `Name <email> <epoch> <offset>` of a commit or tag header. */
export function parseIdentity(line: string): CommitIdentity {
  // "Name <email> 1700000000 +0000"
  const match = /^(.*) <([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: '', date: '0 +0000', iso: new Date(0).toISOString() };
  return { name: match[1]!, email: match[2]!, date: `${match[3]} ${match[4]}`, iso: new Date(Number(match[3]) * 1000).toISOString().replace('.000Z', 'Z') };
}

/** The commit's tree, parents, identities and message, or undefined when `id` is not a commit here. */
export async function readCommit(gitDir: string, id: string): Promise<CommitObject | undefined> {
  if ((await objectInfo(gitDir, id))?.type !== 'commit') return undefined;
  const raw = (await runGit(['cat-file', 'commit', id], { gitDir })).stdout.toString('utf8');
  const { value, message } = splitObject(raw);
  return {
    id,
    tree: value('tree')[0]!,
    parents: value('parent'),
    author: parseIdentity(value('author')[0] ?? ''),
    committer: parseIdentity(value('committer')[0] ?? ''),
    message,
    signature: commitSignature(raw),
  };
}

/**
 * The `gpgsig` (or `gpgsig-sha256`) header of a raw commit, its continuation lines joined, and the object without it
 * (what the signature signs); null when the commit is not signed.
 */
function commitSignature(raw: string): { signature: string; payload: string } | null {
  const split = raw.indexOf('\n\n');
  const lines = (split < 0 ? raw : raw.slice(0, split)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('gpgsig ') || line.startsWith('gpgsig-sha256 '));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && lines[end]!.startsWith(' ')) end += 1;
  const first = lines[start]!;
  const signature = [first.slice(first.indexOf(' ') + 1), ...lines.slice(start + 1, end).map((line) => line.slice(1))].join('\n');
  const payload = [...lines.slice(0, start), ...lines.slice(end)].join('\n') + (split < 0 ? '' : raw.slice(split));
  return { signature: `${signature}\n`, payload };
}

export interface TagObject {
  id: string;
  /** The tagged object and its type. */
  object: string;
  type: string;
  tag: string;
  tagger: CommitIdentity | undefined;
  message: string;
}

/** Splits a raw commit or tag object into its header lines and message. */
function splitObject(raw: string): { value: (key: string) => string[]; message: string } {
  const split = raw.indexOf('\n\n');
  const headers = (split < 0 ? raw : raw.slice(0, split)).split('\n');
  return {
    value: (key) => headers.filter((line) => line.startsWith(`${key} `)).map((line) => line.slice(key.length + 1)),
    message: split < 0 ? '' : raw.slice(split + 2),
  };
}

/** An annotated tag object, or undefined when `id` is not a tag object here. */
export async function readTag(gitDir: string, id: string): Promise<TagObject | undefined> {
  if ((await objectInfo(gitDir, id))?.type !== 'tag') return undefined;
  const { value, message } = splitObject((await runGit(['cat-file', 'tag', id], { gitDir })).stdout.toString('utf8'));
  const tagger = value('tagger')[0];
  return { id, object: value('object')[0]!, type: value('type')[0]!, tag: value('tag')[0]!, tagger: tagger === undefined ? undefined : parseIdentity(tagger), message };
}

export interface TagInput {
  tag: string;
  message: string;
  object: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  tagger: GitIdentity;
}

/** Writes an annotated tag object (`git mktag`, which checks it; no ref moves) and returns its id. */
export async function writeTag(gitDir: string, input: TagInput): Promise<string> {
  requireId(input.object, 'object');
  const text = `object ${input.object}\ntype ${input.type}\ntag ${input.tag}\ntagger ${input.tagger.name} <${input.tagger.email}> ${gitDate(input.tagger.date)}\n\n${input.message}`;
  try {
    return trimmed((await runGit(['mktag'], { gitDir, input: text })).stdout);
  } catch (error) {
    if (isGitError(error)) throw new GitObjectError(`cannot write the tag: ${error.stderr.trim().split('\n').pop() ?? error.message}`);
    throw error;
  }
}

/** A guarded ref update found the ref somewhere else than expected (someone moved it meanwhile). */
export class RefMovedError extends Error {
  constructor(readonly ref: string) {
    super(`${ref} moved meanwhile`);
    this.name = 'RefMovedError';
  }
}

/** The ref to use with update-ref: only full names under refs/, which git itself validates further. */
function requireRefName(ref: string): void {
  if (!/^refs\/[^\0\s]+$/.test(ref) || ref.includes('..')) throw new GitObjectError(`not a full ref name: ${JSON.stringify(ref)}`);
}

/**
 * Points `ref` at `id` only if it still points at `expected` (`null`: only if it does not exist yet;
 * undefined: unguarded). Throws RefMovedError when the guard fails.
 */
export async function updateRef(gitDir: string, ref: string, id: string, expected: string | null | undefined, reason = 'repohost'): Promise<void> {
  requireRefName(ref);
  requireId(id, 'new value');
  if (expected) requireId(expected, 'expected value');
  const old = expected === undefined ? [] : [expected ?? ''];
  await guarded(ref, () => runGit(['update-ref', '-m', reason, ref, id, ...old], { gitDir }));
}

/** Deletes `ref` only if it still points at `expected` (undefined: unguarded); RefMovedError when not. */
export async function deleteRef(gitDir: string, ref: string, expected: string | undefined, reason = 'repohost'): Promise<void> {
  requireRefName(ref);
  if (expected !== undefined) requireId(expected, 'expected value');
  await guarded(ref, () => runGit(['update-ref', '-m', reason, '-d', ref, ...(expected ? [expected] : [])], { gitDir }));
}

async function guarded(ref: string, update: () => Promise<unknown>): Promise<void> {
  try {
    await update();
  } catch (error) {
    if (!isGitError(error)) throw error;
    // git's wording for a failed guard or a lock held by a concurrent update of the same ref.
    if (/but expected|already exists|unable to resolve reference|cannot lock ref|does not exist/i.test(error.stderr)) throw new RefMovedError(ref);
    throw new GitObjectError(`cannot update ${ref}: ${error.stderr.trim().split('\n').pop() ?? error.message}`);
  }
}

/** Points HEAD (the default branch) at `refs/heads/<branch>`, which may not exist yet. */
export async function setHeadBranch(gitDir: string, branch: string): Promise<void> {
  requireRefName(`refs/heads/${branch}`);
  await runGit(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { gitDir });
}

/** One commit of `importCommits`. */
export interface HistoryCommit {
  /** The parent: the index of an earlier commit of the same call, a commit id of the repository, or none (a root). */
  parent?: number | string;
  message: string;
  author: GitIdentity;
  committer?: GitIdentity;
  /** Changes to the parent's tree, as for buildTree. */
  changes: ReadonlyMap<string, TreeChange>;
}

/** A path as fast-import reads it: C-style quoted, so any name git allows survives. */
function quotedPath(path: string): string {
  const escaped = [...Buffer.from(path, 'utf8')].map((byte) => {
    if (byte === 0x22) return '\\"';
    if (byte === 0x5c) return '\\\\';
    if (byte < 0x20 || byte >= 0x7f) return `\\${byte.toString(8).padStart(3, '0')}`;
    return String.fromCharCode(byte);
  });
  return `"${escaped.join('')}"`;
}

/** `data` of a fast-import stream: the exact bytes. */
function data(content: string | Uint8Array): Buffer[] {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  return [Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')];
}

/** The files of a tree (under `prefix`) whose mode is not 100644: executables, links, submodules. */
async function specialModes(gitDir: string, tree: string, prefix: string): Promise<Map<string, string>> {
  const entries = (await readTree(gitDir, tree, { recursive: true })) ?? [];
  return new Map(entries.filter((entry) => entry.type !== 'tree' && entry.mode !== '100644').map((entry) => [`${prefix}${entry.path}`, entry.mode]));
}

/** Where `importCommits` builds its commits; deleted once their ids are known. */
const IMPORT_REF = 'refs/repohost/import';

/**
 * Writes a whole series of commits in one `git fast-import` run (one pack, no child per object) and returns their
 * ids in order; no branch moves. The commits are the very objects `buildTree` and `commitTree` would make from the
 * same input (same trees, identities, dates and message bytes), so the ids are the same.
 */
export async function importCommits(gitDir: string, commits: readonly HistoryCommit[]): Promise<string[]> {
  const stream: Buffer[] = [];
  const line = (text: string) => stream.push(Buffer.from(`${text}\n`));
  const person = (identity: GitIdentity) => `${identity.name} <${identity.email}> ${gitDate(identity.date)}`;
  // Files whose mode is not 100644, after each commit: new content keeps a file's mode, as buildTree does.
  const modesAfter: Map<string, string>[] = [];
  for (const [index, commit] of commits.entries()) {
    if (typeof commit.parent === 'number' && !(commit.parent >= 0 && commit.parent < index)) throw new GitObjectError(`commit ${index}: its parent must come before it`);
    if (typeof commit.parent === 'string') requireId(commit.parent, 'parent');
    const modes =
      commit.parent === undefined ? new Map<string, string>() : typeof commit.parent === 'number' ? new Map(modesAfter[commit.parent]) : await specialModes(gitDir, commit.parent, '');
    // A root commit starts from nothing: the import ref is reset first.
    if (commit.parent === undefined) line(`reset ${IMPORT_REF}`);
    line(`commit ${IMPORT_REF}`);
    line(`mark :${index + 1}`);
    line(`author ${person(commit.author)}`);
    line(`committer ${person(commit.committer ?? commit.author)}`);
    stream.push(...data(commit.message));
    if (commit.parent !== undefined) line(`from ${typeof commit.parent === 'number' ? `:${commit.parent + 1}` : commit.parent}`);
    for (const [path, change] of commit.changes) {
      splitTreePath(path);
      const before = modes.get(path);
      // Whatever was at or below the path goes; what comes is noted again.
      for (const known of [...modes.keys()]) if (known === path || known.startsWith(`${path}/`)) modes.delete(known);
      if (change === null) {
        line(`D ${quotedPath(path)}`);
        continue;
      }
      if ('id' in change) {
        requireId(change.id, quotedPath(path));
        if (change.mode === undefined) throw new GitObjectError(`${path}: an entry given by id needs its mode here`);
        const mode = normaliseMode(change.mode);
        line(`M ${mode} ${change.id} ${quotedPath(path)}`);
        if (mode === '040000') for (const [below, special] of await specialModes(gitDir, change.id, `${path}/`)) modes.set(below, special);
        else if (mode !== '100644') modes.set(path, mode);
        continue;
      }
      const mode = normaliseMode(change.mode ?? before ?? '100644');
      if (ownValue(MODE_TYPES, mode) !== 'blob') throw new GitObjectError(`${path}: content needs a file mode, not ${mode}`);
      line(`M ${mode} inline ${quotedPath(path)}`);
      stream.push(...data(change.content));
      if (mode !== '100644') modes.set(path, mode);
    }
    modesAfter.push(modes);
    line('');
  }
  line('done');
  const scratch = await mkdtemp(join(tmpdir(), 'repohost-import-'));
  try {
    const marks = join(scratch, 'marks');
    try {
      await runGit(['fast-import', '--quiet', '--done', '--force', `--export-marks=${marks}`], { gitDir, input: Buffer.concat(stream) });
    } catch (error) {
      if (isGitError(error)) throw new GitObjectError(`cannot write the commits: ${error.stderr.trim().split('\n').pop() ?? error.message}`);
      throw error;
    }
    const ids = new Map<number, string>();
    for (const entry of (await readFile(marks, 'utf8')).split('\n')) {
      const match = /^:(\d+) ([0-9a-f]+)$/.exec(entry);
      if (match) ids.set(Number(match[1]), match[2]!);
    }
    return commits.map((_, index) => ids.get(index + 1)!);
  } finally {
    await runGit(['update-ref', '-d', IMPORT_REF], { gitDir }).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  }
}
