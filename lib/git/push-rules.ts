/** The rules a push must keep, per branch (see services/branch-protection.ts). */
export interface PushRule {
  /** Regular expression source over the branch name. */
  branches: string;
  pattern: string;
  allowForcePush: boolean;
  allowDeletion: boolean;
  allowPush: boolean;
  /** Status contexts (or check run names) the commit a branch moves to must have passed (GitHub's required checks). */
  requiredChecks: readonly string[];
}

/** The required checks of `contexts` that commit `sha` has not passed, each with its state (`missing`: none reported). */
export type UnmetChecks = (sha: string, contexts: readonly string[]) => Promise<ReadonlyArray<{ context: string; state: string }>>;

const NONE = /^0+$/;

/**
 * Why moving `ref` from `before` to `after` breaks a rule, or undefined when it may move. The one rule function for
 * every way a ref moves (pushes through git's hooks, the API, the contents API, merges and branch deletions). A branch
 * named `HEAD` is refused whatever the rules (git would then read `HEAD` ambiguously; GitHub refuses it too).
 * `isFastForward` and `unmetChecks` are asked only when they matter; `defaultBranch` is never deleted (see
 * defaultBranchRefusal). Required checks hold for moving a branch that
 * exists (as GitHub's: push the commit elsewhere first, let it pass, then move the branch to it); merges of pull
 * requests check them on the head instead (PullService.requireMergeRules), never here.
 */
export async function pushRefusal(
  rules: readonly PushRule[],
  ref: string,
  before: string,
  after: string,
  isFastForward: () => boolean | Promise<boolean>,
  unmetChecks: UnmetChecks,
  defaultBranch: string,
): Promise<string | undefined> {
  if (!ref.startsWith('refs/heads/')) return undefined;
  const branch = ref.slice('refs/heads/'.length);
  if (branch === 'HEAD' && NONE.test(before) && !NONE.test(after)) return 'refusing to create a branch named HEAD';
  const rule = rules.find((candidate) => new RegExp(candidate.branches).test(branch));
  if (!rule) return defaultBranchRefusal(ref, after, defaultBranch);
  let why: string | undefined;
  if (NONE.test(after)) why = rule.allowDeletion ? undefined : 'it may not be deleted';
  else if (!rule.allowPush) why = 'changes reach it through pull requests only';
  else if (!NONE.test(before) && !rule.allowForcePush && !(await isFastForward())) why = 'force pushes are not allowed';
  else if (!NONE.test(before) && rule.requiredChecks.length > 0) {
    const unmet = await unmetChecks(after, rule.requiredChecks);
    if (unmet.length > 0) why = `required status checks are expected: ${unmet.map(({ context, state }) => `${context} (${state})`).join(', ')}`;
  }
  return why === undefined ? defaultBranchRefusal(ref, after, defaultBranch) : `branch ${branch} is protected (${rule.pattern}): ${why}`;
}

/**
 * The default branch is never deleted, protected or not (git's own words, which GitHub answers a push with; its API
 * answers 422): change the default branch first.
 */
export function defaultBranchRefusal(ref: string, after: string, defaultBranch: string): string | undefined {
  return NONE.test(after) && ref === `refs/heads/${defaultBranch}` ? `refusing to delete the current branch: ${ref}` : undefined;
}
