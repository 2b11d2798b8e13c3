import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiveFile } from '../../lib/services/file-receiver.js';

// Uploads (release assets, LFS objects) are written under a temporary name first. A body refused at its first bytes
// fails the write while the file is still being opened; the temporary file must not appear after its removal.
describe('receiving a file', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'repohost-receive-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves nothing behind when a body is refused at once, however quickly', async () => {
    for (let round = 0; round < 100; round++) {
      // Bytes already there (too many), and a body that fails before giving any.
      const tooLong = new PassThrough();
      tooLong.end(Buffer.alloc(64, 'x'));
      await expect(receiveFile(dir, `long-${round}`, tooLong, { maxBytes: 10, what: 'a test file' })).rejects.toThrow(/at most 10 bytes/);
      const cut = new Readable({
        read() {
          this.destroy(new Error('cut off'));
        },
      });
      await expect(receiveFile(dir, `cut-${round}`, cut, { maxBytes: 10, what: 'a test file' })).rejects.toThrow(/cut off/);
    }
    // A removal that came before the open would leave the file now, once the opens have finished.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await readdir(dir)).toEqual([]);
  });

  it('keeps a whole body under its name', async () => {
    expect(await receiveFile(dir, 'kept', Readable.from([Buffer.from('hello')]), { maxBytes: 10, what: 'a test file' })).toMatchObject({ size: 5 });
    expect(await readdir(dir)).toEqual(['kept']);
  });
});
