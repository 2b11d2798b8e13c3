import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';

/** Where a running server tells admin commands how to reach it: `<db>.admin`, readable only by its owner. */
export function channelFilePath(dbPath: string): string {
  return `${dbPath}.admin`;
}

export interface ChannelInfo {
  pid: number;
  /** Loopback URL of the admin endpoint. */
  url: string;
  /** Bearer secret; whoever can read the file may administer the server. */
  secret: string;
}

/** Writes the file with mode 0600 under a temporary name and renames it, so readers never see half of it. */
export async function writeChannelFile(dbPath: string, info: ChannelInfo): Promise<void> {
  const path = channelFilePath(dbPath);
  const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(JSON.stringify(info));
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

/**
 * Reads the channel file of a running server. A file not owned by us or readable by others is ignored: in a
 * shared folder someone else could plant one to collect the passwords that `user add` sends.
 */
export async function readChannelFile(dbPath: string): Promise<ChannelInfo | undefined> {
  try {
    const { uid, mode } = await stat(channelFilePath(dbPath));
    if ((mode & 0o077) !== 0 || (process.getuid && uid !== process.getuid())) return undefined;
    const info = JSON.parse(await readFile(channelFilePath(dbPath), 'utf8')) as Partial<ChannelInfo>;
    if (typeof info.url === 'string' && typeof info.secret === 'string' && typeof info.pid === 'number') return info as ChannelInfo;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES') throw new Error(`cannot read ${channelFilePath(dbPath)}: run this command as the user running the server`);
  }
  return undefined;
}

export async function removeChannelFile(dbPath: string): Promise<void> {
  await rm(channelFilePath(dbPath), { force: true });
}
