import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { invalid, tooLarge } from '../errors.js';
import { CHECK_RECEIVED_OBJECTS } from './dot-git.js';
import type { ImportSource } from './import-guard.js';
import { isGitError, runGit } from './run-git.js';
import { folderBytes, watchFolderSize } from './size-watch.js';

/** How much an import may bring, how slowly, and for how long. */
export interface CloneLimits {
  maxBytes: number;
  lowSpeedBytes: number;
  lowSpeedSeconds: number;
  timeoutMs: number;
}

/**
 * Clones the checked `source` into the empty folder `temp` as a bare repository without its remote: what it brings
 * is checked as a push is, and a clone past `maxBytes` (watched while it runs), too slow or too long is stopped.
 * `settle` then fixes up what was cloned (its HEAD). Failures of either are `invalid` with git's reason, or `tooLarge`.
 */
export async function cloneBare(source: ImportSource, temp: string, limits: CloneLimits, settle: () => Promise<unknown>): Promise<void> {
  const tooBig = new AbortController();
  try {
    // git clone wants to make the folder itself.
    await rm(temp, { recursive: true });
    const watch = watchFolderSize(temp, limits.maxBytes, () => tooBig.abort());
    try {
      await runGit(
        [
          ...source.gitConfig,
          // A server that stops sending (or trickles) is given up on, not waited for until the time limit.
          ...['-c', `http.lowSpeedLimit=${limits.lowSpeedBytes}`, '-c', `http.lowSpeedTime=${limits.lowSpeedSeconds}`],
          // What it brings is checked as a push is: no tree naming .git (a clone of it would write into .git).
          ...CHECK_RECEIVED_OBJECTS,
          ...['clone', '--bare', '--quiet', '--no-local', '--template=', '--', source.url, temp],
        ],
        { cwd: dirname(temp), timeoutMs: limits.timeoutMs, env: { GIT_ALLOW_PROTOCOL: 'http:https:git' }, signal: tooBig.signal },
      );
    } finally {
      watch.stop();
    }
    // A clone quicker than the watch's first look is measured once done.
    if ((await folderBytes(temp)) > limits.maxBytes) tooBig.abort();
    if (tooBig.signal.aborted) throw tooLarge(`the repository at clone_url is larger than ${limits.maxBytes} bytes`);
    await runGit(['config', '--unset-all', 'remote.origin.url'], { gitDir: temp }).catch(() => {});
    await runGit(['config', '--remove-section', 'remote.origin'], { gitDir: temp }).catch(() => {});
    await settle();
  } catch (error) {
    if (tooBig.signal.aborted) throw tooLarge(`the repository at clone_url is larger than ${limits.maxBytes} bytes`);
    if (isGitError(error)) {
      // git's last line, or the object check's own where one failed (the last then says only that one did).
      const lines = error.stderr.trim().split('\n');
      const line = lines.find((text) => /^error: object [0-9a-f]+: \w+: /.test(text)) ?? lines.pop() ?? '';
      const reason = error.timedOut ? 'timed out' : line.replace(/^(?:fatal|error): /, '').slice(0, 200);
      throw invalid(`import from clone_url failed${reason ? `: ${reason}` : ''}`);
    }
    throw error;
  }
}
