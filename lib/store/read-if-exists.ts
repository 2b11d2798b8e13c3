import { readFile } from 'node:fs/promises';

/** The file's bytes, or undefined when there is no such file (other read errors throw). */
export async function readIfExists(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
