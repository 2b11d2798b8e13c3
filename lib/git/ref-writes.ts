// Guarded ref updates (update-ref with the value expected) and the branch HEAD names, for refs moved by hand rather
// than by a push.
import { isGitError, runGit } from './run-git.js';
import { GitObjectError, requireId } from './objects.js';

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
