import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { invalid } from '../errors.js';
import { DEFAULT_GIT_TIMEOUT_MS, isGitError, runGit, spawnGit } from './run-git.js';
import { ownValue } from '../own-value.js';
import { isDotGitName } from './dot-git.js';

// Low-level object plumbing for commits made without a work tree or a push: ids, identities and dates, blobs, trees,
// commits and tags, each a stock git command over an argument array. Trees from changes: tree-builder.ts; ref
// updates: ref-writes.ts (callers that move refs do the post-push bookkeeping themselves: GitRepositories.afterPush,
// ReposService.recordPush); series of commits: history-import.ts.

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

export function requireId(id: string, what: string): void {
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
export const MODE_TYPES: Record<string, EntryType> = { '100644': 'blob', '100755': 'blob', '120000': 'blob', '040000': 'tree', '160000': 'commit' };

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
export function isEntryName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !isDotGitName(name) && !/[/\0]/.test(name);
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
