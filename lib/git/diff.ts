import type { Readable } from 'node:stream';
import { runGit, spawnGit } from './run-git.js';

/** A commit of a pull request, oldest first. */
export interface CommitSummary {
  sha: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_at: string;
  committer_name: string;
  committed_at: string;
}

/** One file a pull request changes, against the merge base, renames detected. */
export interface ChangedFile {
  filename: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied';
  additions: number;
  deletions: number;
  changes: number;
  previous_filename: string | null;
  /** The unified diff of the file; absent for binary files and when larger than the bound (then `patch_omitted`). */
  patch?: string;
  patch_omitted?: boolean;
}

/** Most commits a pull request lists (GitHub stops at 250 too). */
const MAX_LISTED_COMMITS = 250;
/** A file's patch larger than this is left out (`patch_omitted`). */
const DEFAULT_MAX_PATCH_BYTES = 256 * 1024;

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

function checkIds(...ids: string[]): void {
  for (const id of ids) if (!OBJECT_ID.test(id)) throw new TypeError(`not a commit id: ${id}`);
}

const iso = (date: string) => new Date(date).toISOString();

/** The commits of `head` not in `base`, oldest first (at most MAX_LISTED_COMMITS, the oldest ones). */
export async function commitsBetween(gitDir: string, base: string, head: string): Promise<CommitSummary[]> {
  checkIds(base, head);
  const { stdout } = await runGit(['log', '--reverse', '--topo-order', '--format=%H%x00%B%x00%an%x00%ae%x00%aI%x00%cn%x00%cI%x1e', `${base}..${head}`, '--'], { gitDir });
  const commits: CommitSummary[] = [];
  for (const record of stdout.toString('utf8').split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\0');
    if (fields.length < 7) continue;
    const [sha, message, authorName, authorEmail, authoredAt, committerName, committedAt] = fields as [string, string, string, string, string, string, string];
    commits.push({ sha, message: message.replace(/\n+$/, ''), author_name: authorName, author_email: authorEmail, authored_at: iso(authoredAt), committer_name: committerName, committed_at: iso(committedAt) });
    if (commits.length === MAX_LISTED_COMMITS) break;
  }
  return commits;
}

const STATUS_NAMES: Readonly<Record<string, ChangedFile['status']>> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'modified' };

/**
 * What `head` changes against its merge base with `base` (`git diff base...head`), renames detected: per file its
 * status, line counts and patch. One git run (`-z --raw --patch`): the raw records name the files, then the patches
 * follow in the same order, so the n-th patch belongs to the n-th file; the line counts are those of the patch (what
 * `--numstat` would count again in a second diff of every file).
 */
export async function changedFiles(gitDir: string, base: string, head: string, options: { maxPatchBytes?: number; direct?: boolean } = {}): Promise<ChangedFile[]> {
  checkIds(base, head);
  // `direct`: what head changes against base itself (a commit against its parent, or the empty tree for a root).
  const range = options.direct ? [base, head] : [`${base}...${head}`];
  const { stdout } = await runGit(['diff', '-z', '-M', '--raw', '--patch', ...range, '--'], { gitDir });
  const { files, patchText } = parseRaw(stdout.toString('utf8'));
  const texts = splitPatches(patchText);
  const limit = options.maxPatchBytes ?? DEFAULT_MAX_PATCH_BYTES;
  files.forEach((file, index) => {
    const text = texts[index];
    const hunks = text === undefined ? -1 : text.indexOf('\n@@');
    // No hunk: a binary file ("Binary files … differ"), or only a mode or a name changed.
    if (hunks === -1) return;
    const patch = text!.slice(hunks + 1).replace(/\n$/, '');
    countLines(file, patch);
    if (Buffer.byteLength(patch) > limit) file.patch_omitted = true;
    else file.patch = patch;
  });
  return files;
}

/**
 * The raw part of `-z --raw` output (":<modes> <ids> <status>" then one path, or two for renames and copies, each
 * ended by a NUL; an empty field ends the part) and the patch text after it. Only the raw part is split at NULs: a
 * patch may hold one.
 */
function parseRaw(output: string): { files: ChangedFile[]; patchText: string } {
  const files: ChangedFile[] = [];
  let at = 0;
  const field = () => {
    const end = output.indexOf('\0', at);
    const value = output.slice(at, end === -1 ? output.length : end);
    at = end === -1 ? output.length : end + 1;
    return value;
  };
  while (output.startsWith(':', at)) {
    const letter = field().split(' ').pop()!.charAt(0);
    const twoPaths = letter === 'R' || letter === 'C';
    const from = field();
    const to = twoPaths ? field() : from;
    files.push({ filename: to, status: STATUS_NAMES[letter] ?? 'modified', additions: 0, deletions: 0, changes: 0, previous_filename: twoPaths ? from : null });
  }
  if (output.startsWith('\0', at)) at += 1;
  return { files, patchText: output.slice(at) };
}

/** Adds up the patch's added and removed lines (each hunk line's first character; `\` marks "no newline"). */
function countLines(file: ChangedFile, patch: string): void {
  let additions = 0;
  let deletions = 0;
  for (let at = 0; at < patch.length; ) {
    const first = patch.charCodeAt(at);
    if (first === 0x2b) additions += 1;
    else if (first === 0x2d) deletions += 1;
    const end = patch.indexOf('\n', at);
    if (end === -1) break;
    at = end + 1;
  }
  file.additions = additions;
  file.deletions = deletions;
  file.changes = additions + deletions;
}

/** Splits a multi-file patch at each `diff --git` header. */
function splitPatches(output: string): string[] {
  const parts = output.split(/^(?=diff --git )/m);
  return parts.filter((part) => part.startsWith('diff --git '));
}

/** The unified diff of `base...head` (what the pull request changes), streamed. */
export function streamDiff(gitDir: string, base: string, head: string): Readable {
  checkIds(base, head);
  return streamed(spawnGit(['diff', '-M', `${base}...${head}`, '--'], { gitDir }));
}

/** The commits of `head` not in `base` as a format-patch mail series, streamed. */
export function streamFormatPatch(gitDir: string, base: string, head: string): Readable {
  checkIds(base, head);
  return streamed(spawnGit(['format-patch', '--stdout', `${base}..${head}`, '--'], { gitDir }));
}

function streamed(child: ReturnType<typeof spawnGit>): Readable {
  child.stdin.end();
  // A reader that goes away stops git; git failing ends the stream with an error instead of a silent cut.
  child.stdout.on('close', () => child.kill('SIGTERM'));
  child.done.catch((error: Error) => child.stdout.destroy(error));
  return child.stdout;
}
