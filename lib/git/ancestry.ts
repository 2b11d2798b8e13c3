import { DEFAULT_GIT_TIMEOUT_MS, isGitError, runGit, spawnGit } from './run-git.js';

/** True when `ancestor` is reachable from `descendant` (or is it); `env` lets git see objects elsewhere (a push's quarantine). */
export async function isAncestor(gitDir: string, ancestor: string, descendant: string, env?: Record<string, string>): Promise<boolean> {
  try {
    await runGit(['merge-base', '--is-ancestor', ancestor, descendant], { gitDir, env });
    return true;
  } catch (error) {
    if (isGitError(error) && error.code === 1) return false;
    throw error;
  }
}

/**
 * Which of `tips` (commit ids) have `commit` in their history (it included), in one walk: git lists the commits on
 * the ancestry paths from `commit` to the tips, and a tip is among them exactly when it descends from `commit`. The
 * walk stops once every tip is found; nothing else of its output is kept.
 */
export async function tipsContaining(gitDir: string, commit: string, tips: Iterable<string>): Promise<Set<string>> {
  const wanted = new Set(tips);
  const found = new Set<string>();
  if (wanted.delete(commit)) found.add(commit);
  if (wanted.size === 0) return found;
  const child = spawnGit(['rev-list', '--ancestry-path', '--stdin'], { gitDir, timeoutMs: DEFAULT_GIT_TIMEOUT_MS });
  child.stdin.on('error', () => {
    /* git may stop before reading every tip (killed once all are found); its exit tells what happened */
  });
  child.stdin.end(`^${commit}\n${[...wanted].join('\n')}\n`);
  let rest = '';
  let stopped = false;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop()!;
    for (const line of lines) if (wanted.delete(line)) found.add(line);
    if (wanted.size === 0 && !stopped) {
      stopped = true;
      child.kill('SIGTERM');
    }
  });
  await child.done.catch((error: unknown) => {
    if (!stopped) throw error;
  });
  return found;
}
