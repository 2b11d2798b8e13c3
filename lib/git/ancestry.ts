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
