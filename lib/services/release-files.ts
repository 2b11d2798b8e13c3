import { randomBytes } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { INCOMING_PREFIX, receiveFile } from './file-receiver.js';

export { INCOMING_PREFIX };

/**
 * Where the bytes of release assets live: a folder inside the repository's own folder, so that they move with a
 * rename, go with a delete and are taken by harness snapshots like the rest of the repository. A file is written
 * once under a random name and never changed (snapshots may hard-link it); partial uploads carry a prefix that
 * snapshots skip.
 */
export const ASSET_FOLDER = 'repohost-assets';
const FILE_NAME = /^[0-9a-f]{32}$/;

export class ReleaseFiles {
  /** `maxBytes`: of one asset; `maxBytesPerRepository`: of all the assets of one repository. */
  constructor(private readonly maxBytes: number, readonly maxBytesPerRepository: number) {}

  /**
   * Streams an upload into the repository's asset folder and syncs it to disk; returns its file name and size. A
   * body longer than the limit of one asset or than the room left in the repository's quota (`used`: what its
   * assets take), or cut off, leaves nothing behind.
   */
  async receive(gitDir: string, body: Readable, used: number): Promise<{ file: string; size: number; digest: string }> {
    const room = this.maxBytesPerRepository - used;
    const [maxBytes, what] = room < this.maxBytes ? [Math.max(0, room), `a release asset (a repository's assets may take ${this.maxBytesPerRepository} bytes in all)`] : [this.maxBytes, 'a release asset'];
    const file = randomBytes(16).toString('hex');
    const received = await receiveFile(join(gitDir, ASSET_FOLDER), file, body, { maxBytes, what, syncAlso: [gitDir] });
    return { file, size: received.size, digest: `sha256:${received.sha256}` };
  }

  /** The file's bytes; undefined when it is gone (its asset deleted meanwhile). */
  async read(gitDir: string, file: string): Promise<Readable | undefined> {
    if (!FILE_NAME.test(file)) throw new Error(`not an asset file name: ${file}`);
    try {
      const handle = await open(join(gitDir, ASSET_FOLDER, file), 'r');
      return handle.createReadStream();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Removes files whose rows are gone (after that removal is durable); a file already missing is fine. */
  async remove(gitDir: string, files: readonly string[]): Promise<void> {
    await Promise.all(files.filter((file) => FILE_NAME.test(file)).map((file) => rm(join(gitDir, ASSET_FOLDER, file), { force: true })));
  }
}
