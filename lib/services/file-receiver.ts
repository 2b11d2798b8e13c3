import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { tooLarge } from '../errors.js';

/** Names of uploads still arriving (or cut off by a crash): harness snapshots skip them. */
export const INCOMING_PREFIX = '.incoming-';

/** An upload's file untouched for this long was cut off by a crash (a live one grows as its bytes arrive). */
const STALE_INCOMING_MS = 60 * 60_000;
/** Folders swept in this process; forgotten past this many (sweeping again is only a little wasted work). */
const MAX_SWEPT = 10_000;
const swept = new Set<string>();

/**
 * Removes what uploads cut off by a crash left in `dir`, once per folder and process: at its first upload, so start-up
 * reads nothing and a folder's leftovers go when it is written to again.
 */
async function sweepLeftovers(dir: string): Promise<void> {
  if (swept.has(dir)) return;
  if (swept.size >= MAX_SWEPT) swept.clear();
  swept.add(dir);
  const staleBefore = Date.now() - STALE_INCOMING_MS;
  for (const name of await readdir(dir)) {
    if (!name.startsWith(INCOMING_PREFIX)) continue;
    const path = join(dir, name);
    const seen = await stat(path).catch(() => undefined);
    if (seen && seen.mtimeMs < staleBefore) await rm(path, { force: true });
  }
}

async function syncFolder(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Counts and hashes what passes, and fails once more than `limit` bytes did. */
function measured(limit: number, what: string): Transform & { seen(): number; sha256(): string } {
  let seen = 0;
  const hash = createHash('sha256');
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) return done(tooLarge(`${what} may be at most ${limit} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return Object.assign(counter, { seen: () => seen, sha256: () => hash.digest('hex') });
}

export interface ReceiveOptions {
  maxBytes: number;
  /** What is received, for the message of a body that is too large ("a release asset"). */
  what: string;
  /** Asked before the file takes its name: throws to refuse what arrived (its size or hash). */
  check?: (received: { size: number; sha256: string }) => void;
  /** Folders above `dir` to sync too (those this may have made). */
  syncAlso?: readonly string[];
}

/**
 * Streams a body into `dir/name`, durably: written under a temporary name, synced, checked, renamed, and the folders
 * synced, so the file is whole on disk before anything that names it is written. A body that is too long, cut off or
 * refused by `check` leaves nothing behind (and what a crash left is swept, see sweepLeftovers). Answers its size and SHA-256 (hex).
 */
export async function receiveFile(dir: string, name: string, body: Readable, options: ReceiveOptions): Promise<{ size: number; sha256: string }> {
  await mkdir(dir, { recursive: true });
  // Best effort: a folder that cannot be swept never fails the upload.
  await sweepLeftovers(dir).catch(() => undefined);
  const incoming = join(dir, `${INCOMING_PREFIX}${randomBytes(16).toString('hex')}`);
  const counter = measured(options.maxBytes, options.what);
  const file = createWriteStream(incoming, { flags: 'wx' });
  try {
    await pipeline(body, counter, file);
    await syncFolder(incoming);
    const received = { size: counter.seen(), sha256: counter.sha256() };
    options.check?.(received);
    await rename(incoming, join(dir, name));
    for (const folder of [dir, ...(options.syncAlso ?? [])]) await syncFolder(folder);
    return received;
  } catch (error) {
    // A body refused early (too large at once) can fail the pipeline while the file is still being opened: the file
    // appears once that open completes, so it is removed only after the stream has closed.
    if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
    await rm(incoming, { force: true });
    throw error;
  }
}
