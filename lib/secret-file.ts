import { randomBytes } from 'node:crypto';
import { link, open, readFile, rm } from 'node:fs/promises';

/** Writes a new secret file once (mode 0600): when another instance sharing the folder wrote it first, its content wins. */
export async function createOnce(path: string, make: () => Promise<string>): Promise<Buffer> {
  const existing = await readFile(path).catch(() => undefined);
  if (existing) return existing;
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const file = await open(temporary, 'wx', 0o600);
  try {
    await file.writeFile(await make());
    await file.sync();
  } finally {
    await file.close();
  }
  // A hard link never replaces a file: the first key written is the one every instance uses.
  await link(temporary, path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await rm(temporary, { force: true });
  return await readFile(path);
}
