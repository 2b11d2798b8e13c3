import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The hooks every receive-pack runs (`core.hooksPath`), as small bash scripts: a node script would cost tens of
 * milliseconds a run, and `update` runs once per ref. They talk to the host only through the environment of one push
 * (see push/session.ts): the loopback port and token of the hook channel, and a file of the push's own for its refusals.
 *
 * - `pre-receive`, once the pack is in and before any ref moves: sends git's proposed updates to the host, which reads
 *   the protection rules now and notes durably that the repository's refs may move, and answers refusals.
 * - `update` (per-ref mode only): refuses its ref when the host did, so the other refs of the push still land.
 * What moved is read from receive-pack's own report-status as it streams to the client (push/report-status.ts): no
 * hook process after the refs move.
 */
const PRE_RECEIVE = `#!/bin/bash
refused="$REPOHOST_REFUSED"
: > "$refused" || exit 1
if ! exec 3<>"/dev/tcp/127.0.0.1/$REPOHOST_HOOK_PORT"; then
  echo "repohost: the server could not be reached; nothing was changed" >&2
  exit 1
fi
mapfile -t updates
printf '%s\\n' "$REPOHOST_HOOK_TOKEN" "$GIT_QUARANTINE_PATH" "\${updates[@]}" '' >&3
status=1
while IFS= read -r line <&3; do
  case "$line" in
    ok) status=0 ;;
    "refuse "*) printf '%s\\n' "\${line#refuse }" >> "$refused" ;;
    "error "*) echo "repohost: \${line#error }" >&2 ;;
  esac
done
exec 3<&-
if [ "$status" = 0 ] && [ -s "$refused" ] && [ -z "$REPOHOST_PER_REF" ]; then
  while IFS=$'\\t' read -r ref reason; do echo "repohost: $reason" >&2; done < "$refused"
  exit 1
fi
exit $status
`;

const UPDATE = `#!/bin/bash
while IFS=$'\\t' read -r ref reason; do
  if [ "$ref" = "$1" ]; then
    echo "repohost: $reason" >&2
    exit 1
  fi
done < "$REPOHOST_REFUSED"
exit 0
`;


/** The hook folders: `whole` refuses a push as a whole, `per-ref` refuses single refs, `none` has no hook at all. */
export interface HookFolders {
  whole: string;
  perRef: string;
  none: string;
}

/** Written aside and renamed into place: another instance sharing the folder may be running the hook right now. */
async function writeHook(dir: string, name: string, source: string): Promise<void> {
  const path = join(dir, name);
  const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, source);
  await chmod(temp, 0o755);
  await rename(temp, path);
}

/** Writes the hook folders below `dir` (once per host; repository names never start with a dot). */
export async function writeHookFolders(dir: string): Promise<HookFolders> {
  const whole = join(dir, 'whole');
  const perRef = join(dir, 'per-ref');
  for (const folder of [whole, perRef]) {
    await mkdir(folder, { recursive: true });
    await writeHook(folder, 'pre-receive', PRE_RECEIVE);
    // Written by earlier versions, and a process per push for nothing now.
    await rm(join(folder, 'post-receive'), { force: true });
  }
  await writeHook(perRef, 'update', UPDATE);
  // For pushes the host admitted before receive-pack ran (see push/session.ts): nothing to ask.
  const none = join(dir, 'none');
  await mkdir(none, { recursive: true });
  return { whole, perRef, none };
}
