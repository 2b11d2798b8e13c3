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

// git runs `update` once per ref, before moving it: exit 1 refuses that ref alone (what it printed on stderr reaches
// the pusher as "remote: ..."), and the other refs of a non-atomic push still land.
const UPDATE_HOOK = (node: string) => `#!${node}
'use strict';
const [ref, before, after] = process.argv.slice(2);
if (!ref.startsWith('refs/heads/')) process.exit(0);
const branch = ref.slice('refs/heads/'.length);
const rule = JSON.parse(process.env.${PUSH_RULES_ENV} || '[]').find((candidate) => new RegExp(candidate.branches).test(branch));
if (!rule) process.exit(0);
const refuse = (why) => {
  process.stderr.write('repohost: branch ' + branch + ' is protected (' + rule.pattern + '): ' + why + '\\n');
  process.exit(1);
};
const none = /^0+$/;
if (none.test(after)) {
  if (!rule.allowDeletion) refuse('it may not be deleted');
  process.exit(0);
}
if (!rule.allowPush) refuse('changes reach it through pull requests only');
if (!none.test(before) && !rule.allowForcePush) {
  const ancestry = require('node:child_process').spawnSync('git', ['merge-base', '--is-ancestor', before, after]);
  if (ancestry.status !== 0) refuse('force pushes are not allowed');
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
