import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../lib/store/database.js';
import { acquireLock, DatabaseLockedError, lockPathOf } from '../../lib/store/lock.js';
import { encodeBatch, parseLog, WriteLog, type LogRecord } from '../../lib/store/write-log.js';
import { tempDir } from '../helpers/host.js';

const record = (seq: number): LogRecord => ({ seq, statements: [['INSERT INTO t (v) VALUES (?)', [`value ${seq}`]]] });
const batch = (...seqs: number[]) => encodeBatch(seqs.map((seq) => Buffer.from(JSON.stringify(record(seq)))));

describe('write log framing', () => {
  it('reads back batches record by record', () => {
    const parsed = parseLog(Buffer.concat([batch(1, 2), batch(3)]), 'log');
    expect(parsed.records.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(parsed.tornTail).toBe(false);
  });

  it('discards only an unfinished final append: a last frame cut short, or zeros to the end of the file', () => {
    const whole = Buffer.concat([batch(1, 2), batch(3)]);
    const cut = Buffer.concat([whole, batch(4, 5).subarray(0, 30)]);
    expect(parseLog(cut, 'log')).toMatchObject({ tornTail: true, validBytes: whole.length });
    expect(parseLog(cut, 'log').records.map((r) => r.seq)).toEqual([1, 2, 3]);
    const headerCut = Buffer.concat([whole, batch(4).subarray(0, 6)]);
    expect(parseLog(headerCut, 'log')).toMatchObject({ tornTail: true, validBytes: whole.length });
    const zeros = Buffer.concat([whole, Buffer.alloc(4096)]);
    expect(parseLog(zeros, 'log')).toMatchObject({ tornTail: true, validBytes: whole.length });
  });

  it('refuses damage inside complete records, even in the final batch (issue 7 point 2)', () => {
    const last = batch(3, 4, 5);
    last.fill(0, 0, 40); // zeros where a complete batch was
    expect(() => parseLog(Buffer.concat([batch(1, 2), last]), 'log')).toThrow(/corrupt at byte/);
    const flipped = Buffer.concat([batch(1, 2), batch(3)]);
    flipped[flipped.length - 5] = flipped[flipped.length - 5]! ^ 0x01; // the last complete record
    expect(() => parseLog(flipped, 'log')).toThrow(/corrupt at byte/);
  });

  it('refuses to discard what was acknowledged: a file shorter than its mark, or a tail before it', () => {
    const whole = Buffer.concat([batch(1, 2), batch(3), batch(4)]);
    expect(() => parseLog(whole.subarray(0, Math.floor(whole.length / 2)), 'log', whole.length)).toThrow(/cut short/);
    const zeroedTail = Buffer.from(whole);
    zeroedTail.fill(0, batch(1, 2).length);
    expect(() => parseLog(zeroedTail, 'log', whole.length)).toThrow(/corrupt at byte/);
    // Past the mark, an unfinished append is still a torn write.
    expect(parseLog(Buffer.concat([whole, batch(5).subarray(0, 20)]), 'log', whole.length).tornTail).toBe(true);
  });

  it('refuses damage that a later batch follows', () => {
    const middle = batch(3, 4);
    const at = middle.length - 3; // inside the last record of a batch that was followed by another one
    middle[at] = middle[at]! ^ 0xff;
    expect(() => parseLog(Buffer.concat([batch(1, 2), middle, batch(5)]), 'log')).toThrow(/corrupt at byte/);
  });

  it('refuses a damaged length field instead of reading it as a tail', () => {
    const bytes = Buffer.concat([batch(1), batch(2), batch(3)]);
    bytes.writeUInt32LE(0xffffff, 8);
    expect(() => parseLog(bytes, 'log')).toThrow(/corrupt at byte 0/);
  });
});

describe('log swap ordering', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('repohost-swap-');
  });
  afterEach(() => dir.cleanup());

  it('writes nothing to a new log before the previous one is closed, and fails its records if that close fails', async () => {
    let finishPrevious!: () => void;
    const next = await WriteLog.open(join(dir.path, 'next'));
    next.follow(new Promise<void>((resolve) => (finishPrevious = resolve)));
    let durable = false;
    const appended = next.append(record(2)).then(() => (durable = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(durable).toBe(false);
    expect((await readFile(join(dir.path, 'next'))).length).toBe(0);
    finishPrevious();
    await appended;
    expect(parseLog(await readFile(join(dir.path, 'next')), 'next').records.map((r) => r.seq)).toEqual([2]);
    await next.close();

    const failing = await WriteLog.open(join(dir.path, 'failing'));
    failing.follow(Promise.reject(new Error('previous log failed')));
    await expect(failing.append(record(3))).rejects.toThrow('previous log failed');
    await expect(failing.append(record(4))).rejects.toThrow('previous log failed');
    expect((await readFile(join(dir.path, 'failing'))).length).toBe(0);
    await failing.close().catch(() => undefined);
  });
});

describe('store', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('repohost-store-');
  });
  afterEach(() => dir.cleanup());

  it('replays the log after a crash-like stop and never loses a snapshot taken while writes were flushing', async () => {
    const path = join(dir.path, 'db.sqlite');
    const store = await Store.open(path, { snapshotThresholdBytes: 2048 });
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
    // Many concurrent writers: snapshots (and log swaps) happen while batches are in flight.
    await Promise.all(Array.from({ length: 500 }, (_, i) => store.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', [`v${i}`]))));
    // Copy the files as they are now (like a kill), without close()'s final snapshot. Synchronous reads hold the
    // event loop so the store cannot move on mid-copy; `cp` is not used: on overlay file systems it can read
    // freshly written data as holes and copy zeros.
    const copy = join(dir.path, 'copy');
    mkdirSync(copy);
    for (const name of readdirSync(dir.path)) if (name !== 'copy') writeFileSync(join(copy, name), readFileSync(join(dir.path, name)));
    await store.close();
    for (const base of [path, join(copy, 'db.sqlite')]) {
      const reopened = await Store.open(base, { snapshotThresholdBytes: 2048 });
      expect(reopened.get<{ n: number }>('SELECT count(*) AS n FROM t')?.n).toBe(500);
      await reopened.close();
    }
  });

  it('rolls back a failing or asynchronous transaction, logs nothing for it, and keeps later writes', async () => {
    const path = join(dir.path, 'db.sqlite');
    const store = await Store.open(path, { snapshotThresholdBytes: 1 << 20 });
    await store.write((tx) => tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
    await expect(store.write(() => Promise.resolve(1) as unknown as number)).rejects.toThrow(/synchronous/);
    await expect(store.write((tx) => tx.run('INSERT INTO missing VALUES (1)'))).rejects.toThrow();
    await store.write((tx) => tx.run('INSERT INTO t (v) VALUES (?)', ['kept']));
    await store.close();
    const reopened = await Store.open(path, { snapshotThresholdBytes: 1 << 20 });
    expect(reopened.all('SELECT v FROM t')).toEqual([{ v: 'kept' }]);
    await reopened.close();
  });
});

describe('single-writer lock', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('repohost-lock-');
  });
  afterEach(() => dir.cleanup());

  it('refuses a second holder, frees on release, and takes over a lock whose process is gone', async () => {
    const db = join(dir.path, 'x.db');
    const lock = await acquireLock(db);
    await expect(acquireLock(db)).rejects.toBeInstanceOf(DatabaseLockedError);
    await expect(acquireLock(db)).rejects.toThrow(`pid ${process.pid}`);
    await lock.release();
    expect(existsSync(lockPathOf(db))).toBe(false);

    // A pid that no longer runs: a finished child's.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    await writeFile(lockPathOf(db), JSON.stringify({ pid: Number(gone), host: (await import('node:os')).hostname() }));
    const taken = await acquireLock(db);
    expect(JSON.parse(await readFile(lockPathOf(db), 'utf8')).pid).toBe(process.pid);
    await taken.release();

    // Our own pid in a lock we do not hold (pids repeat across restarts in containers): stale too.
    await writeFile(lockPathOf(db), JSON.stringify({ pid: process.pid }));
    await (await acquireLock(db)).release();
  });
});
