import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The rules a push must keep, per branch (see services/branch-protection.ts); the update hook enforces them. */
export interface PushRule {
  /** Regular expression source over the branch name. */
  branches: string;
  pattern: string;
  allowForcePush: boolean;
  allowDeletion: boolean;
  allowPush: boolean;
}

/** Environment variable that carries the rules of one push to the hook. */
export const PUSH_RULES_ENV = 'REPOHOST_PUSH_RULES';

/**
 * Why moving `ref` from `before` to `after` breaks the first of `rules` that covers its branch, or undefined when it
 * may move. The one rule function for every way a ref moves: the API calls it, and git's update hook runs a copy
 * of its source (so it uses nothing outside itself). `isFastForward` is asked only when it matters.
 */
export function pushRefusal(rules: readonly PushRule[], ref: string, before: string, after: string, isFastForward: () => boolean): string | undefined {
  if (!ref.startsWith('refs/heads/')) return undefined;
  const branch = ref.slice('refs/heads/'.length);
  const rule = rules.find((candidate) => new RegExp(candidate.branches).test(branch));
  if (!rule) return undefined;
  const none = /^0+$/;
  let why: string | undefined;
  if (none.test(after)) why = rule.allowDeletion ? undefined : 'it may not be deleted';
  else if (!rule.allowPush) why = 'changes reach it through pull requests only';
  else if (!none.test(before) && !rule.allowForcePush && !isFastForward()) why = 'force pushes are not allowed';
  return why === undefined ? undefined : 'branch ' + branch + ' is protected (' + rule.pattern + '): ' + why;
}

// git runs `update` once per ref, before moving it: exit 1 refuses that ref alone (what it printed on stderr reaches
// the pusher as "remote: ..."), and the other refs of a non-atomic push still land.
const UPDATE_HOOK = (node: string) => `#!${node}
'use strict';
const [ref, before, after] = process.argv.slice(2);
const pushRefusal = ${pushRefusal.toString()};
const isFastForward = () => require('node:child_process').spawnSync('git', ['merge-base', '--is-ancestor', before, after]).status === 0;
const why = pushRefusal(JSON.parse(process.env.${PUSH_RULES_ENV} || '[]'), ref, before, after, isFastForward);
if (why !== undefined) {
  process.stderr.write('repohost: ' + why + '\\n');
  process.exit(1);
}
`;

/** Writes the hooks folder (once per host): `core.hooksPath` points receive-pack at it when a push has rules. */
export async function writePushHooks(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const hook = join(dir, 'update');
  await writeFile(hook, UPDATE_HOOK(process.execPath));
  await chmod(hook, 0o755);
  return dir;
}
