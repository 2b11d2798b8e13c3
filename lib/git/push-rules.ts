/** The rules a push must keep, per branch (see services/branch-protection.ts). */
export interface PushRule {
  /** Regular expression source over the branch name. */
  branches: string;
  pattern: string;
  allowForcePush: boolean;
  allowDeletion: boolean;
  allowPush: boolean;
}

const NONE = /^0+$/;

/**
 * Why moving `ref` from `before` to `after` breaks a rule, or undefined when it may move. The one rule function for
 * every way a ref moves (pushes through git's hooks, the API, the contents API, merges and branch deletions). A branch
 * named `HEAD` is refused whatever the rules (git would then read `HEAD` ambiguously; GitHub refuses it too).
 * `isFastForward` is asked only when it matters.
 */
export async function pushRefusal(
  rules: readonly PushRule[],
  ref: string,
  before: string,
  after: string,
  isFastForward: () => boolean | Promise<boolean>,
): Promise<string | undefined> {
  if (!ref.startsWith('refs/heads/')) return undefined;
  const branch = ref.slice('refs/heads/'.length);
  if (branch === 'HEAD' && NONE.test(before) && !NONE.test(after)) return 'refusing to create a branch named HEAD';
  const rule = rules.find((candidate) => new RegExp(candidate.branches).test(branch));
  if (!rule) return undefined;
  let why: string | undefined;
  if (NONE.test(after)) why = rule.allowDeletion ? undefined : 'it may not be deleted';
  else if (!rule.allowPush) why = 'changes reach it through pull requests only';
  else if (!NONE.test(before) && !rule.allowForcePush && !(await isFastForward())) why = 'force pushes are not allowed';
  return why === undefined ? undefined : `branch ${branch} is protected (${rule.pattern}): ${why}`;
}
