import { tooLarge } from '../errors.js';
import { isGitError, runGit } from './run-git.js';
import type { Signature } from './history.js';

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Runs a read that fails (exit 128) for a missing object; undefined then. */
async function readOrMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (isGitError(error) && error.code !== null) return undefined;
    throw error;
  }
}

/** The type and size of an object, or undefined when the repository has no such object. */
export async function objectInfo(gitDir: string, sha: string): Promise<{ type: ObjectType; size: number } | undefined> {
  if (!OBJECT_ID.test(sha)) return undefined;
  const line = await readOrMissing(async () => (await runGit(['cat-file', '--batch-check=%(objecttype) %(objectsize)'], { gitDir, input: `${sha}\n` })).stdout.toString('utf8'));
  const match = line ? /^(blob|tree|commit|tag) (\d+)$/m.exec(line) : null;
  return match ? { type: match[1] as ObjectType, size: Number(match[2]) } : undefined;
}

/** A blob's bytes; undefined when `sha` is not a blob; `too_large` beyond `maxBytes` (never read into memory then). */
export async function readBlob(gitDir: string, sha: string, maxBytes: number): Promise<Buffer | undefined> {
  const info = await objectInfo(gitDir, sha);
  if (!info || info.type !== 'blob') return undefined;
  if (info.size > maxBytes) throw tooLarge(`the blob is ${info.size} bytes; this API returns blobs of at most ${maxBytes} bytes (clone the repository for larger ones)`);
  return (await runGit(['cat-file', 'blob', sha], { gitDir })).stdout;
}

/** One entry of a tree listing. */
export interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  /** Blobs only. */
  size?: number;
}

/**
 * The entries of the tree `treeish` names (a tree, or a commit's tree), optionally every level (`recursive`), at most
 * `max` entries (then `truncated`). Undefined when it names no tree.
 */
export async function readTree(gitDir: string, treeish: string, options: { recursive: boolean; max: number; path?: string }): Promise<{ sha: string; entries: TreeEntry[]; truncated: boolean } | undefined> {
  const target = options.path ? `${treeish}:${options.path}` : `${treeish}^{tree}`;
  const sha = await readOrMissing(async () => (await runGit(['rev-parse', '--verify', '--quiet', `${target}^{tree}`], { gitDir })).stdout.toString('utf8').trim());
  if (!sha) return undefined;
  const { stdout } = await runGit(['ls-tree', '-z', '-l', ...(options.recursive ? ['-r', '-t'] : []), sha], { gitDir });
  const entries: TreeEntry[] = [];
  let truncated = false;
  for (const record of stdout.toString('utf8').split('\0')) {
    // "<mode> <type> <sha> <size>\t<path>" (size is "-" for trees and submodules).
    const match = /^(\d+) (blob|tree|commit) ([0-9a-f]+) +(-|\d+)\t(.*)$/s.exec(record);
    if (!match) continue;
    if (entries.length === options.max) {
      truncated = true;
      break;
    }
    const [, mode, type, id, size, path] = match;
    entries.push({ path: path!, mode: mode!, type: type as TreeEntry['type'], sha: id!, ...(size !== '-' ? { size: Number(size) } : {}) });
  }
  return { sha, entries, truncated };
}

/** An annotated tag object. */
export interface TagDetails {
  sha: string;
  tag: string;
  message: string;
  tagger: Signature | null;
  object: { type: ObjectType; sha: string };
}

/** Parses `<name> <email> <epoch> <offset>` of a tag or commit header. */
function signature(line: string | undefined): Signature | null {
  const match = line ? /^(.*) <(.*)> (\d+) [+-]\d{4}$/.exec(line) : null;
  return match ? { name: match[1]!, email: match[2]!, date: new Date(Number(match[3]) * 1000).toISOString().replace(/\.000Z$/, 'Z') } : null;
}

/** The annotated tag object `sha`, or undefined when it is not one. */
export async function readTag(gitDir: string, sha: string): Promise<TagDetails | undefined> {
  const info = await objectInfo(gitDir, sha);
  if (!info || info.type !== 'tag') return undefined;
  const text = (await runGit(['cat-file', 'tag', sha], { gitDir })).stdout.toString('utf8');
  const split = text.indexOf('\n\n');
  const header = new Map<string, string>();
  for (const line of (split < 0 ? text : text.slice(0, split)).split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0 && !header.has(line.slice(0, space))) header.set(line.slice(0, space), line.slice(space + 1));
  }
  return {
    sha,
    tag: header.get('tag') ?? '',
    message: split < 0 ? '' : text.slice(split + 2),
    tagger: signature(header.get('tagger')),
    object: { type: (header.get('type') ?? 'commit') as ObjectType, sha: header.get('object') ?? '' },
  };
}

/** Tags, newest first: name, the object the ref points to, and the commit it leads to. */
export async function listTags(gitDir: string): Promise<Array<{ name: string; sha: string; commit: string }>> {
  const { stdout } = await runGit(['for-each-ref', '--sort=-creatordate', '--format=%(refname:strip=2)%00%(objectname)%00%(*objectname)', 'refs/tags/'], { gitDir });
  return stdout
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, sha, peeled] = line.split('\0');
      return { name: name!, sha: sha!, commit: peeled || sha! };
    });
}
