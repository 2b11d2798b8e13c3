import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Total size of the files below `dir` (missing entries count as nothing: git renames as it goes). */
export async function folderBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderBytes(path);
    else total += (await stat(path).catch(() => undefined))?.size ?? 0;
  }
  return total;
}

/**
 * Calls `onOver` once the folder grows past `limit` bytes, checking every `everyMs` while it runs; `stop()` ends it.
 * For work whose size cannot be bounded up front (a clone of an unknown repository).
 */
export function watchFolderSize(dir: string, limit: number, onOver: () => void, everyMs = 250): { stop(): void } {
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    folderBytes(dir)
      .then((bytes) => {
        if (bytes > limit) {
          clearInterval(timer);
          onOver();
        }
      })
      // A folder that vanished or cannot be read is judged again at the next tick.
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
