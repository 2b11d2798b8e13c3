import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tooLarge } from '../errors.js';

/**
 * Where the bytes of release assets live: a folder inside the repository's own folder, so that they move with a
 * rename, go with a delete and are taken by harness snapshots like the rest of the repository. A file is written
 * once under a random name and never changed (snapshots may hard-link it); partial uploads carry a prefix that
 * snapshots skip.
 */
export const ASSET_FOLDER = 'repohost-assets';
/** Names of uploads still arriving (or cut off by a crash). */
export const INCOMING_PREFIX = '.incoming-';
const FILE_NAME = /^[0-9a-f]{32}$/;

async function syncFolder(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Counts and hashes what passes, and fails once more than `limit` bytes did. */
function measured(limit: number): Transform & { seen(): number; digest(): string } {
  let seen = 0;
  const hash = createHash('sha256');
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) return done(tooLarge(`a release asset may be at most ${limit} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return Object.assign(counter, { seen: () => seen, digest: () => `sha256:${hash.digest('hex')}` });
}

export class ReleaseFiles {
  constructor(private readonly maxBytes: number) {}

  /**
   * Streams an upload into the repository's asset folder and syncs it to disk; returns its file name and size. A
   * body longer than the limit (or cut off) leaves nothing behind.
   */
  async receive(gitDir: string, body: Readable): Promise<{ file: string; size: number; digest: string }> {
    const dir = join(gitDir, ASSET_FOLDER);
    await mkdir(dir, { recursive: true });
    const file = randomBytes(16).toString('hex');
    const incoming = join(dir, `${INCOMING_PREFIX}${file}`);
    const counter = measured(this.maxBytes);
    try {
      await pipeline(body, counter, createWriteStream(incoming, { flags: 'wx' }));
      // On disk before the row that names it is written (the row is what the host acknowledges).
      const handle = await open(incoming, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(incoming, join(dir, file));
      // The rename (and the folder, when this made it) are on disk before the row that names the file is written.
      await syncFolder(dir);
      await syncFolder(gitDir);
    } catch (error) {
      await rm(incoming, { force: true });
      throw error;
    }
    return { file, size: counter.seen(), digest: counter.digest() };
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
