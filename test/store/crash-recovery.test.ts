import { existsSync, readdirSync } from 'node:fs';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRepoHost } from '../../lib/index.js';
import { LogLossError } from '../../lib/store/write-log.js';
import { tempDir } from '../helpers/host.js';
import { call, listAll, runCli, startCliServer, startFixtureServer, type ServerProcess } from '../cli/processes.js';

interface Acked {
  id: number;
  number: number;
  title: string;
}

let dir: { path: string; cleanup: () => Promise<void> };
let servers: ServerProcess[] = [];
beforeEach(async () => {
  dir = await tempDir('repohost-crash-');
  servers = [];
});
afterEach(async () => {
  for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.kill('SIGKILL');
  await dir.cleanup();
});

const dbPath = () => join(dir.path, 'forge.db');
const logFiles = () => readdirSync(dir.path).filter((name) => name.startsWith('forge.db.wal.')).sort();

async function start(options: Record<string, unknown> = {}): Promise<ServerProcess> {
  const server = await startFixtureServer({ port: 0, dbPath: dbPath(), ...options });
  servers.push(server);
  return server;
}

/** A user, token and repository created through the server's admin channel (the CLI). */
async function prepare(): Promise<string> {
  const db = ['--db', dbPath()];
  expect((await runCli(['user', 'add', 'alice', '--email', 'alice@example.com', '--password-stdin', ...db], { input: 'password123\n' })).code).toBe(0);
  const token = await runCli(['token', 'create', 'alice', ...db]);
  expect(token.code).toBe(0);
  expect((await runCli(['repo', 'create', 'alice/crash', ...db])).code).toBe(0);
  return token.stdout.trim();
}

/** 8 clients creating issues one after another until the server dies; returns every acknowledged issue. */
async function createIssuesUntilKilled(server: ServerProcess, token: string, killWhen: (acked: Acked[]) => boolean | Promise<boolean>): Promise<Acked[]> {
  const acked: Acked[] = [];
  let dead = false;
  const client = async (n: number) => {
    for (let i = 0; !dead; i++) {
      const title = `client ${n} issue ${i}`;
      try {
        const result = await call(`${server.url}/api/v1/repos/alice/crash/issues`, { token, form: { title, body: `body of ${title}` } });
        expect(result.status).toBe(200);
        acked.push({ id: result.json.id, number: result.json.number, title });
      } catch (error) {
        if (dead) return; // the request was cut by the kill: not acknowledged
        throw error;
      }
    }
  };
  const clients = Array.from({ length: 8 }, (_, n) => client(n));
  const deadline = Date.now() + 20_000;
  while (!(await killWhen(acked))) {
    if (Date.now() > deadline) throw new Error('the kill condition never came');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  dead = true;
  expect(await server.kill('SIGKILL')).toBe('SIGKILL');
  await Promise.all(clients);
  return acked;
}

async function expectAllPresent(url: string, acked: Acked[]): Promise<void> {
  const list = { json: await listAll(`${url}/api/v1/repos/alice/crash/issues`) };
  const byId = new Map((list.json as Acked[]).map((issue) => [issue.id, issue]));
  const missing = acked.filter((issue) => byId.get(issue.id)?.title !== issue.title);
  expect(missing).toEqual([]);
  // Numbers stay unique per repository after replay.
  const numbers = (list.json as Acked[]).map((issue) => issue.number);
  expect(new Set(numbers).size).toBe(numbers.length);
}

describe('durability under SIGKILL', () => {
  it('keeps every acknowledged issue when the server is killed while 8 clients create issues', async () => {
    const server = await start();
    const token = await prepare();
    const acked = await createIssuesUntilKilled(server, token, (done) => done.length >= 300);
    expect(acked.length).toBeGreaterThanOrEqual(300);
    expect(existsSync(`${dbPath()}.lock`)).toBe(true); // left behind by the kill: stale, taken over below
    const again = await start();
    await expectAllPresent(again.url, acked);
    // New writes continue after the recovered ones.
    const next = await call(`${again.url}/api/v1/repos/alice/crash/issues`, { token, form: { title: 'after restart' } });
    expect(next.status).toBe(200);
    // Issues committed but cut off before their answer may exist too; numbering continues after all of them.
    expect(next.json.number).toBeGreaterThan(Math.max(...acked.map((issue) => issue.number)));
  });

  it('keeps every acknowledged issue when killed while a snapshot is being written', async () => {
    // A 4 MB ballast makes each snapshot take a while; a 16 KB threshold makes them happen every few dozen issues.
    const options = { snapshotThresholdBytes: 16 * 1024, ballastBytes: 4 * 1024 * 1024 };
    const server = await start(options);
    const token = await prepare();
    const tempSnapshot = `${dbPath()}.snapshot-tmp`;
    const acked = await createIssuesUntilKilled(server, token, () => existsSync(tempSnapshot));
    expect(acked.length).toBeGreaterThan(0);
    const interrupted = [existsSync(tempSnapshot)];
    const again = await start(options);
    await expectAllPresent(again.url, acked);
    expect(existsSync(tempSnapshot)).toBe(false);

    // Second round: kill while logs are being swapped (two logs on disk: the snapshot has not finished).
    const more = await createIssuesUntilKilled(again, token, () => logFiles().length >= 2);
    interrupted.push(logFiles().length >= 2);
    // The kills did land inside snapshots (files of an unfinished one were still there).
    expect(interrupted).toContain(true);
    const third = await start(options);
    await expectAllPresent(third.url, [...acked, ...more]);
  });

  it('recovers a log whose tail was torn by a crash (a partial record is discarded, nothing acknowledged is lost)', async () => {
    const server = await start();
    const token = await prepare();
    const acked = await createIssuesUntilKilled(server, token, (done) => done.length >= 40);
    const [log] = logFiles().slice(-1);
    const path = join(dir.path, log!);
    const intact = await readFile(path);
    // A torn append: the first 30 bytes of a copy of the log's first record (valid magic, length past the end).
    await appendFile(path, intact.subarray(0, 30));
    const again = await start();
    await expectAllPresent(again.url, acked);
    await again.kill('SIGKILL');
    // A tail of zeros (a file extended by a crash before its data reached the disk) is a torn tail too.
    await appendFile(join(dir.path, logFiles().at(-1)!), Buffer.alloc(4096));
    const third = await start();
    await expectAllPresent(third.url, acked);
  });
});

describe('refusing damaged files', () => {
  async function serveFails(): Promise<{ code: number | null; stderr: string }> {
    const result = await runCli(['serve', '--port', '0', '--db', dbPath()]);
    return { code: result.code, stderr: result.stderr };
  }

  async function snapshotOfDir(): Promise<Map<string, Buffer>> {
    const files = new Map<string, Buffer>();
    // The database and its logs; a stale lock or admin file left by the kill is not part of the data.
    for (const name of readdirSync(dir.path)) if (name === 'forge.db' || name.startsWith('forge.db.wal.')) files.set(name, await readFile(join(dir.path, name)));
    return files;
  }

  it('refuses a file that is not a database, with a clear message, and leaves it byte for byte unchanged', async () => {
    const { writeFile } = await import('node:fs/promises');
    const garbage = Buffer.from('these are my notes, not a database\n'.repeat(100));
    await writeFile(dbPath(), garbage);
    const result = await serveFails();
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('is not a repohost database');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await snapshotOfDir()).toEqual(new Map([['forge.db', garbage]]));

    // A SQLite header followed by garbage is refused too.
    const fake = Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(8192, 0x5a)]);
    await writeFile(dbPath(), fake);
    const second = await serveFails();
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('cannot be opened as a database');
    expect(await snapshotOfDir()).toEqual(new Map([['forge.db', fake]]));
  });

  it('refuses a log that is corrupt before its tail and touches nothing', async () => {
    const server = await start();
    const token = await prepare();
    // Sequential creations: each is its own group-commit batch.
    for (let i = 0; i < 5; i++) expect((await call(`${server.url}/api/v1/repos/alice/crash/issues`, { token, form: { title: `issue ${i}` } })).status).toBe(200);
    await server.kill('SIGKILL');
    const log = join(dir.path, logFiles().at(-1)!);
    const bytes = await readFile(log);
    const { writeFile } = await import('node:fs/promises');

    // A flipped bit inside the first record's payload.
    const flipped = Buffer.from(bytes);
    flipped[40] = flipped[40]! ^ 0x01;
    await writeFile(log, flipped);
    let before = await snapshotOfDir();
    let result = await serveFails();
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/write log .* is corrupt at byte 0 .*refusing to start/);
    expect(await snapshotOfDir()).toEqual(before);

    // A damaged length field (it would otherwise look like a torn tail and silently drop later records).
    const badLength = Buffer.from(bytes);
    badLength.writeUInt32LE(0x7fffffff, 8);
    await writeFile(log, badLength);
    before = await snapshotOfDir();
    result = await serveFails();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is corrupt at byte 0');
    expect(await snapshotOfDir()).toEqual(before);

    // Restored, it opens with everything.
    await writeFile(log, bytes);
    const again = await start();
    const list = { json: (await listAll(`${again.url}/api/v1/repos/alice/crash/issues`)) as Acked[] };
    expect(list.json.map((issue: Acked) => issue.title)).toEqual(expect.arrayContaining(['issue 0', 'issue 4']));
  });

  it('refuses every damage beyond an unfinished final append, changing no file (issue 7 point 2)', async () => {
    const server = await start();
    const token = await prepare();
    // Sequential creations: each is its own batch, each acknowledged.
    for (let i = 0; i < 40; i++) expect((await call(`${server.url}/api/v1/repos/alice/crash/issues`, { token, form: { title: `issue ${i}`, body: 'x'.repeat(200) } })).status).toBe(200);
    // The durable mark is written in the background after each batch: give it a moment, as time would.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await server.kill('SIGKILL');
    const log = join(dir.path, logFiles().at(-1)!);
    const bytes = await readFile(log);
    const { writeFile } = await import('node:fs/promises');
    const everything = async () => {
      const files = new Map<string, Buffer>();
      for (const name of readdirSync(dir.path)) if (name.startsWith('forge.db') && !/\.(lock|admin)$/.test(name)) files.set(name, await readFile(join(dir.path, name)));
      return files;
    };
    const damages: Array<[string, Buffer, RegExp]> = [];
    const flipped = Buffer.from(bytes);
    flipped[bytes.length - 10] = flipped[bytes.length - 10]! ^ 0x01; // inside the last complete record
    damages.push(['a flipped byte in the last record', flipped, /is corrupt at byte \d+/]);
    const zeroed = Buffer.from(bytes);
    zeroed.fill(0, bytes.length - 4096);
    damages.push(['the last 4 KiB zeroed', zeroed, /is corrupt at byte \d+/]);
    damages.push(['the log cut in half', bytes.subarray(0, Math.floor(bytes.length / 2)), /cut short/]);
    for (const [what, damaged, message] of damages) {
      await writeFile(log, damaged);
      const before = await everything();
      const result = await runCli(['serve', '--port', '0', '--db', dbPath()]);
      expect({ what, code: result.code }).toEqual({ what, code: 1 });
      expect(result.stderr).toMatch(message);
      expect(result.stderr).toContain('refusing to start');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await everything()).toEqual(before);
    }

    // A deleted log beside the snapshot: the writes it held were acknowledged.
    await writeFile(log, bytes);
    const { rm } = await import('node:fs/promises');
    await rm(log);
    const before = await everything();
    const missing = await runCli(['serve', '--port', '0', '--db', dbPath()]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/write log .* is missing/);
    expect(await everything()).toEqual(before);

    // Restored, and with a genuinely unfinished append after it: starts, keeps the bytes beside the log, says so.
    await writeFile(log, Buffer.concat([bytes, bytes.subarray(0, 30)]));
    const again = await start();
    expect(again.output().stderr).toMatch(/ended in an unfinished write \(30 bytes never acknowledged\); they were moved to .*torn-/);
    const kept = readdirSync(dir.path).filter((name) => name.includes('.torn-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir.path, kept[0]!))).toEqual(bytes.subarray(0, 30));
    const titles = ((await listAll(`${again.url}/api/v1/repos/alice/crash/issues`)) as Acked[]).map((issue) => issue.title);
    expect(titles).toHaveLength(40);
  });
});

describe('a damaged log tail that no durable mark vouches for (issue 17, defect 7)', () => {
  const markPath = () => `${dbPath()}.wal-mark`;
  const titles = async (url: string) => ((await listAll(`${url}/api/v1/repos/alice/crash/issues`)) as Acked[]).map((issue) => issue.title).sort();
  const firstTitles = (n: number) => Array.from({ length: n }, (_, i) => `issue ${i}`).sort();
  /** The database's files (not the lock or the admin channel), byte for byte. */
  const everything = async () => {
    const files = new Map<string, Buffer>();
    for (const name of readdirSync(dir.path)) if (name.startsWith('forge.db') && !/\.(lock|admin)$/.test(name)) files.set(name, await readFile(join(dir.path, name)));
    return files;
  };

  /**
   * 20 issues created one after another (each acknowledged on its own), then a kill. Returns the newest log, its
   * bytes and those bytes cut 10 bytes into the record of the 9th issue: 8 acknowledged issues are left whole.
   */
  async function twentyIssuesThenKill(): Promise<{ log: string; bytes: Buffer; cut: Buffer; cutAt: number }> {
    const server = await start();
    const token = await prepare();
    for (let i = 0; i < 20; i++) expect((await call(`${server.url}/api/v1/repos/alice/crash/issues`, { token, form: { title: `issue ${i}` } })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the mark follows each batch in the background
    await server.kill('SIGKILL');
    const log = join(dir.path, logFiles().at(-1)!);
    const bytes = await readFile(log);
    // Frames: magic, checksum, payload length, offset in batch (16 bytes), then the JSON payload.
    let ninth: number | undefined;
    for (let at = 0; at + 16 <= bytes.length && ninth === undefined; at += 16 + bytes.readUInt32LE(at + 8)) {
      if (bytes.subarray(at + 16, at + 16 + bytes.readUInt32LE(at + 8)).includes('"issue 8"')) ninth = at;
    }
    expect(ninth).toBeDefined();
    const cutAt = ninth! + 10;
    return { log, bytes, cut: bytes.subarray(0, cutAt), cutAt };
  }

  it('refuses to start with the mark deleted or damaged and the log cut short, changes nothing, says how to accept the loss, and accepts it when asked', async () => {
    const { log, cut, cutAt } = await twentyIssuesThenKill();
    const mark = await readFile(markPath());
    await writeFile(log, cut);
    const damagedMark = Buffer.from(mark);
    damagedMark[20] = damagedMark[20]! ^ 0x01;
    for (const [what, prepareMark] of [
      ['deleted', () => rm(markPath())],
      ['damaged', () => writeFile(markPath(), damagedMark)],
    ] as const) {
      await prepareMark();
      const before = await everything();
      const result = await runCli(['serve', '--port', '0', '--db', dbPath()]);
      expect({ what, code: result.code }).toEqual({ what, code: 1 });
      expect(result.stdout).toBe('');
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(`write log ${log} ends in 10 damaged bytes from byte ${cutAt - 10}`);
      expect(result.stderr).toContain(`the durable mark ${markPath()} is missing or damaged`);
      expect(result.stderr).toContain('refusing to start, no file was changed');
      expect(result.stderr).toContain('repohost serve --accept-log-loss');
      expect(result.stderr).not.toContain('never acknowledged');
      expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
      expect(await everything()).toEqual(before); // no truncation, no snapshot, no new mark
    }

    // Accepted knowingly: starts with the 8 whole issues, says what was dropped and where the bytes went.
    expect((await runCli(['serve', '--help'])).stdout).toMatch(/--accept-log-loss +start even if the end of the write log is damaged/);
    const accepted = await startCliServer(['--db', dbPath(), '--accept-log-loss']);
    servers.push(accepted);
    expect(accepted.output().stderr).toMatch(
      /write log .* ends in 10 damaged bytes from byte \d+, and the durable mark .* is missing or damaged.*Starting anyway as asked \(acceptLogLoss\): kept its \d+ records before the damage \(writes up to #\d+\), moved the 10 bytes from byte \d+ to .*\.torn-.*; any acknowledged writes after those records are lost/,
    );
    expect(accepted.output().stderr).not.toContain('never acknowledged');
    const kept = readdirSync(dir.path).filter((name) => name.includes('.torn-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir.path, kept[0]!))).toEqual(cut.subarray(cutAt - 10));
    expect(await titles(accepted.url)).toEqual(firstTitles(8));
    expect(await accepted.kill('SIGTERM')).toBe(0);

    // The loss was accepted once: the next start needs no flag.
    const again = await startCliServer(['--db', dbPath()]);
    servers.push(again);
    expect(await titles(again.url)).toEqual(firstTitles(8));
    expect(await again.kill('SIGTERM')).toBe(0);
  });

  it('makes createRepoHost reject with a LogLossError naming both files, refuses a whole log without its mark, and opens either with acceptLogLoss', async () => {
    const { log, bytes, cut } = await twentyIssuesThenKill();
    const killed = await everything();
    /** The files as the kill left them, with `logBytes` for the log and no mark. */
    const markless = async (logBytes: Buffer) => {
      for (const name of readdirSync(dir.path)) if (name.startsWith('forge.db') && !/\.(lock|admin)$/.test(name)) await rm(join(dir.path, name));
      for (const [name, content] of killed) if (!name.endsWith('.wal-mark')) await writeFile(join(dir.path, name), content);
      await writeFile(log, logBytes);
    };
    const damagedMark = Buffer.from(killed.get('forge.db.wal-mark')!);
    damagedMark[4] = damagedMark[4]! ^ 0xff; // its checksum
    await writeFile(markPath(), damagedMark);
    await writeFile(log, cut);
    const before = await everything();
    const error = await createRepoHost({ port: 0, dbPath: dbPath(), bcryptCost: 4 }).then(
      async (host) => {
        await host.close();
        throw new Error('opened a log cut short without a mark');
      },
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(LogLossError);
    expect(error).toMatchObject({ name: 'LogLossError', code: 'REPOHOST_LOG_LOSS', logPath: log });
    expect((error as Error).message).toContain(markPath());
    expect((error as Error).message).toContain('acceptLogLoss');
    expect(await everything()).toEqual(before);

    // The same log with its mark gone, whole or cut at a record's end: whole records prove nothing about what was
    // acknowledged, so both are refused (issue 38: the cut one started with 15 of 20 issues and said nothing).
    const ends: number[] = [];
    for (let at = 0; at < bytes.length; at += 16 + bytes.readUInt32LE(at + 8)) ends.push(at + 16 + bytes.readUInt32LE(at + 8));
    for (const logBytes of [bytes, bytes.subarray(0, ends.at(-6))]) {
      await markless(logBytes);
      const unchanged = await everything();
      await expect(createRepoHost({ port: 0, dbPath: dbPath(), bcryptCost: 4 })).rejects.toThrow(
        new RegExp(`write log ${log} holds ${logBytes.length} bytes, and the durable mark .* is missing or damaged, so nothing shows how many of them were acknowledged`),
      );
      expect(await everything()).toEqual(unchanged);
    }
    // Accepted knowingly, the whole log opens with everything.
    await markless(bytes);
    const quiet = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const intact = await createRepoHost({ port: 0, dbPath: dbPath(), bcryptCost: 4, acceptLogLoss: true }).finally(() => quiet.mockRestore());
    try {
      expect(await titles(intact.url)).toEqual(firstTitles(20));
    } finally {
      await intact.close();
    }

    // Cut short with the mark gone: refused, then opened with acceptLogLoss with the 8 issues before the cut.
    await markless(cut);
    await expect(createRepoHost({ port: 0, dbPath: dbPath(), bcryptCost: 4 })).rejects.toBeInstanceOf(LogLossError);
    const told: string[] = [];
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      told.push(String(text));
      return true;
    });
    const lossy = await createRepoHost({ port: 0, dbPath: dbPath(), bcryptCost: 4, acceptLogLoss: true }).finally(() => stderr.mockRestore());
    try {
      expect(told.join('')).toMatch(/^repohost: write log .* ends in 10 damaged bytes .* Starting anyway as asked \(acceptLogLoss\): kept its \d+ records before the damage/);
      expect(lossy.options.acceptLogLoss).toBe(true);
      expect(await titles(lossy.url)).toEqual(firstTitles(8));
    } finally {
      await lossy.close();
    }
  });
});
