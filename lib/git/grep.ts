import { isGitError, runGit } from './run-git.js';

/** One matching line of a search. */
export interface GrepMatch {
  path: string;
  line: number;
  text: string;
}

export interface GrepResult {
  matches: GrepMatch[];
  /** More matches exist than were kept. */
  truncated: boolean;
}

/** Most matching lines one search keeps, and per file. */
export const MAX_GREP_MATCHES = 200;
const MAX_PER_FILE = 10;
/** Longest line shown; longer ones are cut (minified files). */
const MAX_LINE_CHARS = 500;
const GREP_TIMEOUT_MS = 10_000;

/**
 * The lines of a commit's files holding `text` (case-insensitive, literally: no patterns), text files only, at most
 * MAX_PER_FILE a file and MAX_GREP_MATCHES in all, within a time limit.
 */
export async function grep(gitDir: string, commit: string, text: string): Promise<GrepResult> {
  let stdout: Buffer;
  try {
    ({ stdout } = await runGit(['grep', '-z', '-n', '-I', '-i', '-F', `--max-count=${MAX_PER_FILE}`, '-e', text, commit], { gitDir, timeoutMs: GREP_TIMEOUT_MS }));
  } catch (error) {
    // git grep exits 1 when nothing matches.
    if (isGitError(error) && error.code === 1 && !error.stderr.trim()) return { matches: [], truncated: false };
    throw error;
  }
  const matches: GrepMatch[] = [];
  const prefix = `${commit}:`;
  for (const record of stdout.toString('utf8').split('\n')) {
    if (!record) continue;
    const [name = '', line = '', ...rest] = record.split('\0');
    if (matches.length === MAX_GREP_MATCHES) return { matches, truncated: true };
    matches.push({ path: name.startsWith(prefix) ? name.slice(prefix.length) : name, line: Number(line), text: rest.join('\0').slice(0, MAX_LINE_CHARS) });
  }
  return { matches, truncated: false };
}
