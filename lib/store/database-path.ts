import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The database file a path names, with every symbolic link resolved (of the file when it exists, else of its
 * folder). Lock, log, snapshot and channel files are named after it, so a second server started through a link
 * meets the first one's lock, and snapshots replace the real file, never the link.
 */
export async function realDatabasePath(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const folder = await realpath(dirname(absolute)).catch(() => dirname(absolute));
  return join(folder, basename(absolute));
}
