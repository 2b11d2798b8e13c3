import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_GIT_TIMEOUT_MS, gitOutput, runGit, spawnGit } from './run-git.js';
import { ownValue } from '../own-value.js';

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
  /** The file's blob after the change (before it, for a deleted file): GitHub's `sha` of a changed file. */
  blob: string;
  /** The unified diff of the file; absent for binary files and when larger than the bound (then `patch_omitted`). */
  patch?: string;
  patch_omitted?: boolean;
}

/** Most commits a pull request lists (GitHub stops at 250 too). */
const MAX_LISTED_COMMITS = 250;
/** A file's patch larger than this is left out (`patch_omitted`). */
const DEFAULT_MAX_PATCH_BYTES = 256 * 1024;
/** Most files one read lists (GitHub's most for a pull request's or a commit's files). */
export const MAX_DIFF_FILES = 3000;
/**
 * Most patch text one read keeps in all, unless told otherwise: past it, later files are listed with their line
 * counts and `patch_omitted`. Bounds what a read holds (and caches) however many files it lists.
 */
const DEFAULT_PATCH_BUDGET: PatchBudget = { bytes: 4 * 1024 * 1024, lines: 100_000 };
/** Most patch bytes one read scans (kept or only counted); where it is passed, the listing stops (`truncated`). */
const MAX_SCANNED_BYTES = 64 * 1024 * 1024;
/** A patch line longer than this is counted without being held whole (a minified file's one line can be huge). */
const MAX_LINE_CHARS = 1024 * 1024;

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** The id of the empty tree (SHA-1): what a root commit is compared with. */
export const EMPTY_TREE_ID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

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

/** What a pull request from `head` into `base` changes, as GitHub counts it in its payloads. */
/** How what a pair of commits changes (`DiffStats`) is kept: by the base and head commit ids. */
export const pullStatsKey = (base: string, head: string): string => `${base}\0${head}`;

export interface DiffStats {
  /** The commits of head not in base (all of them: not bounded as the listing is). */
  commits: number;
  /** The files changed against the merge base, a rename counting once, and their lines added and removed. */
  changed_files: number;
  additions: number;
  deletions: number;
}

/** Counts what `head` changes against its merge base with `base`: two git runs, whatever the size of the change. */
export async function diffStats(gitDir: string, base: string, head: string): Promise<DiffStats> {
  checkIds(base, head);
  const [count, stat] = await Promise.all([
    runGit(['rev-list', '--count', `${base}..${head}`, '--'], { gitDir }),
    runGit(['diff', '--shortstat', '-M', `${base}...${head}`, '--'], { gitDir }),
  ]);
  // " 3 files changed, 10 insertions(+), 2 deletions(-)": each part is left out when it is zero.
  const text = stat.stdout.toString('utf8');
  const counted = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? 0);
  return {
    commits: Number.parseInt(count.stdout.toString('utf8'), 10) || 0,
    changed_files: counted(/(\d+) files? changed/),
    additions: counted(/(\d+) insertions?\(\+\)/),
    deletions: counted(/(\d+) deletions?\(-\)/),
  };
}

/** How much patch text a read may keep in all: a file whose patch would not fit is listed without it. */
export interface PatchBudget {
  bytes: number;
  lines: number;
}

/** Which files of a diff to read, and how much of their patches to keep. */
export interface DiffWindow {
  /** Files to pass over first (a later page). @default 0 */
  skip?: number;
  /** Most files listed. @default MAX_DIFF_FILES */
  maxFiles?: number;
  /** A file's patch larger than this is left out (`patch_omitted`). @default 262144 */
  maxPatchBytes?: number;
  /** Most patch text kept in all. @default 4 MiB and 100,000 lines */
  budget?: PatchBudget;
  /** What head changes against base itself (a commit against its parent or the empty tree), not their merge base. */
  direct?: boolean;
  /** Changes of white space alone left out of the patches (`git diff -w`), as a page's "hide whitespace" asks. */
  ignoreWhitespace?: boolean;
  /** Every line of each file as context, not three around each change (a page's "show all lines"). */
  allLines?: boolean;
  /** Only these files (a renamed file's old path too, or it shows as added). */
  paths?: readonly string[];
}

/** Context lines that stand for "all of them" (`-U`): more than any file a patch is shown for has. */
const ALL_LINES = 1_000_000;

/** Part of a diff: the files of the window asked for, and how many files the whole diff changes. */
export interface DiffPage {
  files: ChangedFile[];
  /** Files the whole diff changes (all of them, not only the window's). */
  total: number;
  /** True when the window ended early because the read reached its scanning bound: fewer files than asked. */
  truncated: boolean;
}

const STATUS_NAMES: Readonly<Record<string, ChangedFile['status']>> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', C: 'copied', T: 'modified' };

/**
 * What `head` changes against its merge base with `base` (`git diff base...head`), renames detected: per file its
 * status, line counts and patch. One git run (`-z --raw --patch`): the raw records name the files, then the patches
 * follow in the same order, so the n-th patch belongs to the n-th file; the line counts are those of the patch (what
 * `--numstat` would count again in a second diff of every file). At most MAX_DIFF_FILES files (see `readDiff`).
 */
export async function changedFiles(gitDir: string, base: string, head: string, options: Omit<DiffWindow, 'skip'> = {}): Promise<ChangedFile[]> {
  return (await readDiff(gitDir, base, head, options)).files;
}

/**
 * A window of `changedFiles`, read as git writes it and bounded whatever the diff's size: every raw record is
 * counted (for `total`) but only the window's are kept; patches before the window are passed over, the window's
 * are kept within the per-file bound and the budget, and git is stopped as soon as the window is complete (so it
 * does not compute the rest of a 20,000-file diff either).
 */
export async function readDiff(gitDir: string, base: string, head: string, window: DiffWindow = {}): Promise<DiffPage> {
  checkIds(base, head);
  // `direct`: what head changes against base itself (a commit against its parent, or the empty tree for a root).
  const range = window.direct ? [base, head] : [`${base}...${head}`];
  const reader = new DiffReader(window);
  const options = [...(window.ignoreWhitespace ? ['-w'] : []), ...(window.allLines ? [`-U${ALL_LINES}`] : [])];
  // Paths in `diff --git` lines as the reader expects them when it matches patches to files by name (see DiffReader).
  // `--no-abbrev`: whole blob ids in the raw records.
  const child = spawnGit(['diff', '-z', '-M', '--raw', '--no-abbrev', '--patch', ...options, ...range, '--', ...(window.paths ?? [])], {
    gitDir,
    timeoutMs: DEFAULT_GIT_TIMEOUT_MS,
    env: {
      // core.quotePath=false (as `-c` would, but keeping `git diff` the command's name in its errors).
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.quotePath',
      GIT_CONFIG_VALUE_0: 'false',
      // Paths are names, never patterns.
      ...(window.paths ? { GIT_LITERAL_PATHSPECS: '1' } : {}),
    },
  });
  child.stdin.end();
  const decoder = new StringDecoder('utf8');
  let read = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) if (reader.push(decoder.write(chunk))) break;
    if (!reader.finished) reader.push(decoder.end(), true);
    read = true;
  } finally {
    if (reader.stoppedEarly || !read) child.kill('SIGKILL');
  }
  // A git that was stopped because its answer was complete is no failure; any other exit is.
  const failure = await child.done.then(() => undefined, (error: unknown) => error);
  if (failure && !reader.stoppedEarly) throw failure;
  return reader.page();
}

/** The state of one `readDiff`: raw records first, then the patches, fed as text in pieces of any size. */
/** C escapes git writes in a quoted path (`core.quotePath=false`: bytes past ASCII are left as they are). */
const C_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

/** A path as git writes it in a `diff --git` line with `core.quotePath=false`: quoted only when it holds `"`, `\` or control characters. */
function quotedPath(path: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(path)) return path;
  return `"${path.replace(/["\\\x00-\x1f\x7f]/g, (char) => ownValue(C_ESCAPES, char) ?? `\\${char.charCodeAt(0).toString(8).padStart(3, '0')}`)}"`;
}

class DiffReader {
  readonly #skip: number;
  readonly #maxFiles: number;
  readonly #maxPatchBytes: number;
  readonly #budget: PatchBudget;
  readonly #files: ChangedFile[] = [];
  /**
   * With `-w` git writes no patch for a file whose changes are all white space: each patch is matched to its file by
   * its `diff --git` line (the headers every raw record would have, kept for that), not by its place.
   */
  readonly #headers: string[] | undefined;
  #total = 0;
  #inRaw = true;
  /** Raw record being read: its fields so far. */
  #fields: string[] = [];
  #pending = '';
  /** Index in the diff of the file whose patch is being read (-1 before the first). */
  #patchIndex = -1;
  #current: { file: ChangedFile; inHunks: boolean; lines: string[]; bytes: number; additions: number; deletions: number; tooLarge: boolean } | undefined;
  #scanned = 0;
  #truncated = false;
  /** Inside a line longer than MAX_LINE_CHARS, already counted: the rest of it is passed over. */
  #passingLine = false;
  /** Nothing more is needed from git. */
  finished = false;
  /** Finished before git's output ended (git is then stopped, and its exit means nothing). */
  stoppedEarly = false;

  constructor(window: DiffWindow) {
    this.#skip = Math.max(0, window.skip ?? 0);
    this.#maxFiles = Math.max(0, window.maxFiles ?? MAX_DIFF_FILES);
    this.#maxPatchBytes = window.maxPatchBytes ?? DEFAULT_MAX_PATCH_BYTES;
    this.#budget = { ...(window.budget ?? DEFAULT_PATCH_BUDGET) };
    this.#headers = window.ignoreWhitespace ? [] : undefined;
  }

  page(): DiffPage {
    return { files: this.#files, total: this.#total, truncated: this.#truncated };
  }

  /** Takes the next piece of git's output; true once nothing more is needed. `end`: the output is complete. */
  push(text: string, end = false): boolean {
    if (this.finished) return true;
    this.#pending += text;
    if (this.#inRaw) this.#readRaw();
    if (!this.#inRaw && !this.finished) this.#readPatches(end);
    if (end && !this.finished) {
      this.#endFile();
      this.finished = true;
    }
    return this.finished;
  }

  #stop(): void {
    this.finished = true;
    this.stoppedEarly = true;
    this.#pending = '';
  }

  /**
   * The raw part of `-z --raw` output: ":<modes> <ids> <status>" then one path, or two for renames and copies, each
   * ended by a NUL; an empty field ends the part. Only the raw part is split at NULs: a patch may hold one.
   */
  #readRaw(): void {
    let at = 0;
    for (let end = this.#pending.indexOf('\0', at); end !== -1; end = this.#pending.indexOf('\0', at)) {
      const field = this.#pending.slice(at, end);
      at = end + 1;
      if (this.#fields.length === 0 && !field.startsWith(':')) {
        this.#inRaw = false;
        break;
      }
      this.#fields.push(field);
      const letter = this.#fields[0]!.split(' ').pop()!.charAt(0);
      const twoPaths = letter === 'R' || letter === 'C';
      if (this.#fields.length < (twoPaths ? 3 : 2)) continue;
      const index = this.#total;
      this.#total += 1;
      const from = this.#fields[1]!;
      const to = twoPaths ? this.#fields[2]! : from;
      this.#headers?.push(`diff --git ${quotedPath(`a/${from}`)} ${quotedPath(`b/${to}`)}`);
      if (index >= this.#skip && index < this.#skip + this.#maxFiles) {
        // With `-w`, a file whose patch never comes changed only in white space: an empty patch says so.
        // ":<old mode> <new mode> <old id> <new id> <status>"
        const [, , before = '', after = ''] = this.#fields[0]!.split(' ');
        const status = ownValue(STATUS_NAMES, letter) ?? 'modified';
        const blob = status === 'deleted' ? before : after;
        this.#files.push({ filename: to, status, additions: 0, deletions: 0, changes: 0, previous_filename: twoPaths ? from : null, blob, ...(this.#headers ? { patch: '' } : {}) });
      }
      this.#fields = [];
    }
    this.#pending = this.#pending.slice(at);
    // Nothing of the window in this diff (or nothing in the diff): no patch needs reading.
    if (!this.#inRaw && this.#files.length === 0) this.#stop();
  }

  /**
   * Patches, a line at a time: each `diff --git` line starts the next file's; lines from the first `@@` on are kept.
   * A line longer than MAX_LINE_CHARS is not held until it ends: it is counted by its first character, its file's
   * patch is too large to keep, and the rest of it is passed over as it comes.
   */
  #readPatches(end: boolean): void {
    let text = this.#pending;
    if (this.#passingLine) {
      const newline = text.indexOf('\n');
      if (!this.#scan(newline === -1 ? text.length : newline + 1)) return;
      if (newline === -1) {
        this.#pending = '';
        return;
      }
      this.#passingLine = false;
      text = text.slice(newline + 1);
    }
    const lines = text.split('\n');
    this.#pending = end ? '' : lines.pop()!;
    if (end && lines[lines.length - 1] === '') lines.pop();
    for (const line of lines) if (!this.#line(line, true)) return;
    if (this.#pending.length > MAX_LINE_CHARS) {
      if (!this.#line(this.#pending, false)) return;
      this.#pending = '';
      this.#passingLine = true;
    }
  }

  /** Counts `bytes` more scanned for the window; past MAX_SCANNED_BYTES the listing ends before the current file. */
  #scan(bytes: number): boolean {
    if (!this.#current) return true;
    this.#scanned += bytes;
    if (this.#scanned <= MAX_SCANNED_BYTES) return true;
    // A diff too large to even count: list the files before this one only.
    this.#files.length = this.#patchIndex - this.#skip;
    this.#current = undefined;
    this.#truncated = true;
    this.#stop();
    return false;
  }

  /** One line of the patches (`whole`: or the start of a very long one); false once nothing more is needed. */
  #line(line: string, whole: boolean): boolean {
    if (whole && line.startsWith('diff --git ')) {
      this.#endFile();
      this.#patchIndex += 1;
      if (this.#headers) while (this.#patchIndex < this.#headers.length && this.#headers[this.#patchIndex] !== line) this.#patchIndex += 1;
      const position = this.#patchIndex - this.#skip;
      if (position >= this.#files.length) {
        // The window is complete: the rest of the diff is not read (nor computed: git is stopped).
        this.#stop();
        return false;
      }
      this.#current = position >= 0 ? { file: this.#files[position]!, inHunks: false, lines: [], bytes: 0, additions: 0, deletions: 0, tooLarge: false } : undefined;
      // Its patch came: not a change of white space alone (a binary file or a mode change keeps no patch, as without -w).
      if (this.#current && this.#headers) delete this.#current.file.patch;
      return true;
    }
    const current = this.#current;
    if (!current) return true;
    if (!this.#scan(line.length + 1)) return false;
    if (!current.inHunks) {
      // The extended header ("index", "---", "+++", modes, renames); no hunk at all: a binary file, or only a mode or
      // a name changed.
      if (!line.startsWith('@@')) return true;
      current.inHunks = true;
    }
    const first = line.charCodeAt(0);
    if (first === 0x2b) current.additions += 1;
    else if (first === 0x2d) current.deletions += 1;
    if (current.tooLarge) return true;
    current.bytes += Buffer.byteLength(line) + (current.lines.length > 0 ? 1 : 0);
    if (!whole || current.bytes > this.#maxPatchBytes) {
      current.tooLarge = true;
      current.lines = [];
    } else current.lines.push(line);
    return true;
  }

  #endFile(): void {
    const current = this.#current;
    this.#current = undefined;
    if (!current || !current.inHunks) return;
    const { file } = current;
    file.additions = current.additions;
    file.deletions = current.deletions;
    file.changes = current.additions + current.deletions;
    const lines = current.lines.length;
    if (current.tooLarge || current.bytes > this.#budget.bytes || lines > this.#budget.lines) {
      file.patch_omitted = true;
      return;
    }
    this.#budget.bytes -= current.bytes;
    this.#budget.lines -= lines;
    file.patch = current.lines.join('\n');
  }
}

/** The unified diff of `base...head` (what the pull request changes), streamed. */
export function streamDiff(gitDir: string, base: string, head: string): Readable {
  checkIds(base, head);
  return gitOutput(['diff', '-M', `${base}...${head}`, '--'], { gitDir });
}

/** The commits of `head` not in `base` as a format-patch mail series, streamed. */
export function streamFormatPatch(gitDir: string, base: string, head: string): Readable {
  checkIds(base, head);
  return gitOutput(['format-patch', '--stdout', `${base}..${head}`, '--'], { gitDir });
}

/** What one commit changes against `base` (its first parent, or the empty tree for a root commit), streamed. */
export function streamCommitDiff(gitDir: string, base: string, commit: string): Readable {
  checkIds(base, commit);
  return gitOutput(['diff', '-M', base, commit, '--'], { gitDir });
}

/** One commit as a format-patch mail, streamed (a merge gives nothing, as with `git format-patch`). */
export function streamCommitPatch(gitDir: string, commit: string): Readable {
  checkIds(commit);
  return gitOutput(['format-patch', '--stdout', '-1', commit, '--'], { gitDir });
}

