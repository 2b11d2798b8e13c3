import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../lib/store/database.js';
import { tempDir } from '../helpers/host.js';

// Issue 18: one asynchronous store interface, so that a second engine (PostgreSQL) can sit behind it. The sql.js
// engine keeps its guarantees: works run one at a time in order, and no statement sees a transaction's
// uncommitted rows.

const LIB = join(import.meta.dirname, '../../lib');

function sourcesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourcesOf(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('the asynchronous store (issue 18)', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let store: Store;

  beforeEach(async () => {
    dir = await tempDir();
    store = await Store.open(join(dir.path, 'db.sqlite'), { snapshotThresholdBytes: 1 << 20, ephemeral: true });
    await store.write(async (tx) => await tx.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)'));
  });

  afterEach(async () => {
    await store.close();
    await dir.cleanup();
  });

  it('answers every statement with a promise, outside and inside transactions', async () => {
    const calls: unknown[] = [store.all('SELECT 1'), store.get('SELECT 1')];
    calls.push(
      store.read(async (tx) => {
        const inside = [tx.all('SELECT 1'), tx.get('SELECT 1')];
        calls.push(...inside);
        return await Promise.all(inside);
      }),
      store.write(async (tx) => {
        const inside = [tx.all('SELECT 1'), tx.get('SELECT 1'), tx.run("INSERT INTO t (v) VALUES ('x')")];
        calls.push(...inside);
        return await Promise.all(inside);
      }),
    );
    await Promise.all(calls);
    expect(calls).toHaveLength(9);
    for (const call of calls) expect(call).toBeInstanceOf(Promise);
  });

  it('keeps the in-memory file locked and its journal in memory, through a failed write and a restore', async () => {
    // Without the lock SQLite rereads the file's header and drops its page cache before every statement (issue 18).
    const settings = async () => [await store.get('PRAGMA locking_mode'), await store.get('PRAGMA journal_mode')];
    expect(await settings()).toEqual([{ locking_mode: 'exclusive' }, { journal_mode: 'memory' }]);
    await store.write(async (tx) => await tx.run("INSERT INTO t (v) VALUES ('kept')"));
    const failing = store.write(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES ('undone')");
      throw new Error('changed its mind');
    });
    await expect(failing).rejects.toThrow('changed its mind');
    expect(await store.all('SELECT v FROM t')).toEqual([{ v: 'kept' }]);
    await store.replaceWith(await store.exportBytes());
    expect(await settings()).toEqual([{ locking_mode: 'exclusive' }, { journal_mode: 'memory' }]);
    expect(await store.all('SELECT v FROM t')).toEqual([{ v: 'kept' }]);
  });

  it('runs works one at a time, in the order they were asked for', async () => {
    const steps: string[] = [];
    const slow = async (name: string, tx: { get(sql: string): Promise<unknown> }) => {
      steps.push(`${name} starts`);
      for (let i = 0; i < 20; i++) await tx.get('SELECT 1');
      steps.push(`${name} ends`);
    };
    await Promise.all([store.write((tx) => slow('first', tx)), store.read((tx) => slow('second', tx)), store.write((tx) => slow('third', tx))]);
    expect(steps).toEqual(['first starts', 'first ends', 'second starts', 'second ends', 'third starts', 'third ends']);
  });

  it("never shows a statement outside a transaction the transaction's uncommitted rows", async () => {
    const seen: number[] = [];
    const writing = store.write(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES ('never committed')");
      for (let i = 0; i < 50; i++) await tx.get('SELECT 1');
      throw new Error('rolled back');
    });
    // Started after the write, so its statements are asked for while the transaction is open.
    const reading = (async () => {
      for (let i = 0; i < 50; i++) seen.push((await store.get<{ n: number }>('SELECT count(*) AS n FROM t'))!.n);
    })();
    await expect(writing).rejects.toThrow('rolled back');
    await reading;
    expect(seen).toHaveLength(50);
    expect(seen.every((n) => n === 0)).toBe(true);
  });

  it('rolls back a write that reads the store outside its transaction (it would wait for itself), saying what to do instead', async () => {
    const writing = store.write(async (tx) => {
      await tx.run("INSERT INTO t (v) VALUES ('gone')");
      await store.get('SELECT count(*) AS n FROM t');
    });
    await expect(writing).rejects.toThrow(/a read of the store outside its transaction: read through the transaction instead/);
    expect(await store.all('SELECT v FROM t')).toEqual([]);
  });

  it('keeps SQL and the engine inside lib/store: the rest of lib uses only the interface', () => {
    const offenders = sourcesOf(LIB)
      .filter((path) => !relative(LIB, path).startsWith('store/'))
      .flatMap((path) => {
        const text = readFileSync(path, 'utf8');
        const problems: string[] = [];
        if (/\b(SELECT\s.+\sFROM|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b/.test(text)) problems.push('SQL');
        if (/from '[./]*(store\/)?sqlite\.js'|from 'sql\.js'/.test(text) && !/import \{ loadSqlJs \} from '\.\/store\/sqlite\.js'/.test(text)) problems.push('the sql.js engine');
        return problems.map((problem) => `${relative(LIB, path)}: ${problem}`);
      });
    expect(offenders).toEqual([]);
  });
});
