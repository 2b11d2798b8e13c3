import { runGit } from './run-git.js';

/** The commit a run of lines comes from, as `git blame --porcelain` describes it. */
export interface BlameCommit {
  sha: string;
  author: string;
  /** Seconds since the epoch. */
  authorTime: number;
  summary: string;
  /** The commit before it and the file's path there: where "the blame before this change" is. */
  previous?: { sha: string; path: string };
}

/** Consecutive lines from one commit. */
export interface BlameHunk {
  commit: BlameCommit;
  /** The first line's number in the file (1-based). */
  start: number;
  lines: string[];
}

/** Blame runs at most this long; a file whose history is too costly is answered without it. */
export const BLAME_TIMEOUT_MS = 20_000;
const ENTRY = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ (\d+)(?: \d+)?$/;

/** Reads `git blame --porcelain` output into runs of lines per commit. */
export function parseBlame(output: string): BlameHunk[] {
  const commits = new Map<string, BlameCommit>();
  const hunks: BlameHunk[] = [];
  let current: { commit: BlameCommit; line: number } | undefined;
  for (const line of output.split('\n')) {
    if (current && line.startsWith('\t')) {
      const last = hunks.at(-1);
      if (last && last.commit === current.commit && last.start + last.lines.length === current.line) last.lines.push(line.slice(1));
      else hunks.push({ commit: current.commit, start: current.line, lines: [line.slice(1)] });
      current = undefined;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (entry) {
      const sha = entry[1]!;
      let commit = commits.get(sha);
      if (!commit) {
        commit = { sha, author: '', authorTime: 0, summary: '' };
        commits.set(sha, commit);
      }
      current = { commit, line: Number(entry[2]) };
      continue;
    }
    if (!current) continue;
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    const value = space < 0 ? '' : line.slice(space + 1);
    if (key === 'author') current.commit.author = value;
    else if (key === 'author-time') current.commit.authorTime = Number(value);
    else if (key === 'summary') current.commit.summary = value;
    else if (key === 'previous') {
      const split = value.indexOf(' ');
      current.commit.previous = { sha: value.slice(0, split), path: value.slice(split + 1) };
    }
  }
  return hunks;
}

/** Who last changed each line of `path` as of `commit` (a full id), in runs of lines. */
export async function blame(gitDir: string, commit: string, path: string): Promise<BlameHunk[]> {
  const { stdout } = await runGit(['blame', '--porcelain', '--no-progress', commit, '--', path], { gitDir, timeoutMs: BLAME_TIMEOUT_MS, env: { GIT_LITERAL_PATHSPECS: '1' } });
  return parseBlame(stdout.toString('utf8'));
}
