import { isGitError, runGit } from './run-git.js';

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
 * the ancestry paths from `commit` to the tips, and a tip is among them exactly when it descends from `commit`. A tip
 * git no longer has (a deleted branch's commits, pruned) is left out, not an error.
 */
export async function tipsContaining(gitDir: string, commit: string, tips: Iterable<string>): Promise<Set<string>> {
  const wanted = new Set(tips);
  const found = new Set<string>();
  if (wanted.delete(commit)) found.add(commit);
  if (wanted.size === 0) return found;
  const { stdout } = await runGit(['rev-list', '--ancestry-path', '--ignore-missing', '--stdin'], { gitDir, input: `^${commit}\n${[...wanted].join('\n')}\n` });
  for (const line of stdout.toString('utf8').split('\n')) if (wanted.has(line)) found.add(line);
  return found;
}

/**
 * The commit that merged `head` into a branch now at `tip` (`head` one of its ancestors), as a pull request merged by a
 * push records it: the oldest commit of the branch's first-parent line that descends from `head`, or `head` itself
 * when that commit's first parent is `head` (a fast-forward). Commits pushed after the merge are not it, so the pull
 * request is not said to have brought them.
 */
export async function mergingCommit(gitDir: string, head: string, tip: string): Promise<string> {
  if (head === tip) return head;
  const { stdout } = await runGit(['rev-list', '--first-parent', '--ancestry-path', '--parents', `${head}..${tip}`], { gitDir });
  const lines = stdout.toString('utf8').trim().split('\n').filter(Boolean);
  const [oldest, firstParent] = (lines.at(-1) ?? tip).split(' ');
  return firstParent === head ? head : oldest!;
}
