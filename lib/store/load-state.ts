// What a database is opened from: its files (snapshot and write logs), the image they start from, and the replay of
// the logs on it, with the checks that refuse a log that may have lost acknowledged writes. Store (database.ts) runs
// on what this loads.
import { open, readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Database } from 'sql.js';
import { DurableMark, type Mark } from './durable-mark.js';
import { freshImage } from './fresh-image.js';
import { readIfExists } from './read-if-exists.js';
import { loadSqlJs, looksLikeSqlite, StatementRunner } from './sqlite.js';
import { fsyncDir, LogLossError, readLog, WriteLog, type LogRecord, type ParsedLog } from './write-log.js';

export const META_TABLE = 'repohost_meta';
export const LOG_SEQ_KEY = 'log_seq';

/** Files of one database: the snapshot and its write logs, named `<db>.wal.<first seq>`. */
export class DatabaseFiles {
  readonly dir: string;
  readonly base: string;
  /**
   * @param durable false for a ':memory:' database (removed when its host closes): its files are written as always,
   * in the same order, but never fsync'd.
   */
  constructor(
    readonly dbPath: string,
    readonly durable = true,
  ) {
    this.dir = dirname(dbPath);
    this.base = basename(dbPath);
  }
  logPath(firstSeq: number): string {
    return join(this.dir, `${this.base}.wal.${String(firstSeq).padStart(12, '0')}`);
  }
  async logs(): Promise<Array<{ path: string; firstSeq: number }>> {
    const prefix = `${this.base}.wal.`;
    const names = (await readdir(this.dir)).filter((name) => name.startsWith(prefix) && /^\d+$/.test(name.slice(prefix.length)));
    return names
      .map((name) => ({ path: join(this.dir, name), firstSeq: Number(name.slice(prefix.length)) }))
      .sort((a, b) => a.firstSeq - b.firstSeq);
  }
  get tempPath(): string {
    return `${this.dbPath}.snapshot-tmp`;
  }
  get markPath(): string {
    return `${this.dbPath}.wal-mark`;
  }
}

async function readSnapshot(dbPath: string): Promise<Uint8Array | undefined> {
  const bytes = await readIfExists(dbPath);
  if (!bytes || bytes.length === 0) return undefined;
  if (!looksLikeSqlite(bytes)) throw new Error(`${dbPath} is not a repohost database (no SQLite header); refusing to touch it`);
  return bytes;
}

/** The durable state on disk: the snapshot with every logged write after it replayed, and the log to append to. */
interface LoadedState {
  db: Database;
  runner: StatementRunner;
  log: WriteLog;
  seq: number;
  firstSeq: number;
  snapshotSeq: number;
  hasSnapshot: boolean;
  base: Uint8Array | undefined;
}

/** Opens sql.js on a database image (or an empty one), set up as every engine connection is. */
export async function openDatabase(bytes: Uint8Array | undefined): Promise<Database> {
  const SQL = await loadSqlJs();
  // sql.js copies the bytes with `slice()`, which for a Buffer shares its memory: the database would then write
  // into the caller's bytes (a shared fresh image, a harness snapshot). A plain Uint8Array view makes it a copy.
  const db = new SQL.Database(bytes && new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  try {
    db.exec('PRAGMA foreign_keys = ON');
    // Nothing else ever opens the in-memory file, so the lock is kept: SQLite otherwise rereads the file header and
    // drops its page cache at every statement, which made a point lookup cost 9 µs instead of 1 µs (issue 18).
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    // Durability comes from our write log; the rollback journal only has to undo a failed write, in memory.
    db.exec('PRAGMA journal_mode = MEMORY');
    db.exec(`CREATE TABLE IF NOT EXISTS ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * `acceptLoss`: see `OpenDatabaseOptions.acceptLogLoss` (never set when reloading after a failed write). `base` is
 * what the log is replayed on when there is no snapshot file: on open ('fresh'), the fresh image for a new database
 * (no log either) and an empty database under a log written without one (by an older repohost, or a crash before
 * the first snapshot); on a reload, what the store was opened on.
 */
export async function loadState(files: DatabaseFiles, acceptLoss: boolean, base: 'fresh' | Uint8Array | undefined): Promise<LoadedState> {
  const snapshot = await readSnapshot(files.dbPath);
  const start = snapshot ?? (base === 'fresh' ? ((await files.logs()).length === 0 ? await freshImage() : undefined) : base);
  let db: Database;
  try {
    db = await openDatabase(start);
  } catch (error) {
    throw new Error(`${files.dbPath} cannot be opened as a database: ${(error as Error).message}`);
  }
  const runner = new StatementRunner(db);
  try {
    const snapshotSeq = Number(runner.all<{ value: string }>(`SELECT value FROM ${META_TABLE} WHERE key = ?`, [LOG_SEQ_KEY])[0]?.value ?? 0);
    const { seq, log, firstSeq } = await replayLogs(files, runner, snapshotSeq, snapshot !== undefined, acceptLoss);
    return { db, runner, log, seq, firstSeq, snapshotSeq, hasSnapshot: snapshot !== undefined, base: snapshot ? undefined : start };
  } catch (error) {
    runner.freeAll();
    db.close();
    throw error;
  }
}

/** Why the durable mark cannot vouch for a log's length: there is none (or it is damaged), or it names `which`. */
function markCannotVouch(files: DatabaseFiles, mark: Mark | undefined, which: string, after: string): string {
  return mark ? `the durable mark ${files.markPath} names ${which} (${files.logPath(mark.firstSeq)})${after}` : `the durable mark ${files.markPath} is missing or damaged`;
}

async function replayLogs(
  files: DatabaseFiles,
  runner: StatementRunner,
  snapshotSeq: number,
  hasSnapshot: boolean,
  acceptLoss: boolean,
): Promise<{ seq: number; log: WriteLog; firstSeq: number }> {
  const logs = await files.logs();
  const mark = await DurableMark.read(files.markPath);
  /** Losses accepted with `acceptLoss`, said once the replay has succeeded. */
  const accepted: string[] = [];
  // The log being appended to is never removed (a snapshot makes the next one before removing older ones): a
  // snapshot without any log, or a mark naming a log newer than every one left, means acknowledged writes are gone.
  const newest = logs.at(-1)?.firstSeq ?? 0;
  if ((hasSnapshot && logs.length === 0) || (mark && mark.bytes > 0 && mark.firstSeq > newest)) {
    const missing = files.logPath(mark && mark.firstSeq > newest ? mark.firstSeq : snapshotSeq + 1);
    const problem = 'is missing but writes recorded in it were acknowledged';
    if (!acceptLoss) throw new LogLossError(missing, problem);
    accepted.push(`write log ${missing} ${problem}; starting anyway as asked (acceptLogLoss) without them: those writes are lost`);
  }
  // Parse everything first: a corrupt log must stop startup before anything is applied or touched. Damage that
  // intact records follow throws here; a damaged end is returned with what it lost, and judged below.
  const parsed: ParsedLog[] = [];
  for (const log of logs) parsed.push(await readLog(log.path, mark?.firstSeq === log.firstSeq ? mark.bytes : 0, true));
  const torn = parsed.findIndex((log) => log.tornTail || log.loss !== undefined);
  if (torn !== -1) {
    // A torn tail is only legitimate in the newest log holding data: a crash while a snapshot was swapping
    // logs can leave an empty newer log, which never receives a byte before the older one is complete.
    const later = logs.slice(torn + 1).find((_log, index) => parsed[torn + 1 + index]!.totalBytes > 0);
    if (later) throw new Error(`write log ${logs[torn]!.path} is damaged before its tail (${later.path} follows it); refusing to start`);
    // Only the mark tells an unfinished append from acknowledged writes cut off, and it vouches only for the log it
    // names (each log is named before its first byte is written). Without it a damaged tail is possible loss.
    const log = logs[torn]!;
    const tail = parsed[torn]!;
    if (mark?.firstSeq !== log.firstSeq && tail.loss === undefined) {
      tail.loss = `ends in ${tail.totalBytes - tail.validBytes} damaged bytes from byte ${tail.validBytes}, and ${markCannotVouch(files, mark, 'another log', ', not this one')}, so nothing shows that they held no acknowledged writes`;
    }
    if (tail.loss !== undefined && !acceptLoss) throw new LogLossError(log.path, tail.loss);
  }
  if (torn === -1) {
    // Whole records to the end prove nothing about the length: a log cut at a record's end looks whole. Only the mark
    // vouches for it, and it names the newest log holding bytes (named before its first byte), or a newer, empty one.
    const index = parsed.findLastIndex((log) => log.totalBytes > 0);
    const written = logs[index];
    if (written && !(mark && mark.firstSeq >= written.firstSeq)) {
      const problem = `holds ${parsed[index]!.totalBytes} bytes, and ${markCannotVouch(files, mark, 'an older log', '')}, so nothing shows how many of them were acknowledged (a log cut at a record's end looks whole)`;
      if (!acceptLoss) throw new LogLossError(written.path, problem);
      accepted.push(`write log ${written.path} ${problem}; starting anyway as asked (acceptLogLoss) with its ${parsed[index]!.records.length} records`);
    }
  }
  let seq = snapshotSeq;
  for (const [index, log] of logs.entries()) {
    for (const record of parsed[index]!.records) {
      if (record.seq <= seq) continue;
      if (record.seq !== seq + 1) throw new Error(`write log ${log.path} is missing records ${seq + 1}..${record.seq - 1}; refusing to start`);
      applyRecord(runner, record, log.path);
      seq = record.seq;
    }
  }
  for (const message of accepted) process.stderr.write(`repohost: ${message}\n`);
  for (const [index, log] of logs.entries()) {
    if (parsed[index]!.tornTail || parsed[index]!.loss !== undefined) await keepTornTail(log.path, parsed[index]!);
  }
  if (torn !== -1 && torn < logs.length - 1) {
    for (const empty of logs.slice(torn + 1)) await rm(empty.path, { force: true });
    if (files.durable) await fsyncDir(files.dir);
  }
  const lastIndex = torn === -1 ? logs.length - 1 : torn;
  const last = logs[lastIndex];
  const log = last ? await WriteLog.open(last.path, parsed[lastIndex]!.validBytes, files.durable) : await WriteLog.open(files.logPath(seq + 1), undefined, files.durable);
  return { seq, log, firstSeq: last?.firstSeq ?? seq + 1 };
}

/**
 * Before a torn final append is cut off, its bytes are kept beside the log (`<log>.torn-<time>`) and the operator
 * is told: nothing of it was acknowledged, but nothing is thrown away silently either. A loss accepted with
 * `acceptLogLoss` is told as such: what was wrong, which records were kept, where the dropped bytes went.
 */
async function keepTornTail(path: string, parsed: ParsedLog): Promise<void> {
  const tail = parsed.tornTail ? (await readFile(path)).subarray(parsed.validBytes) : Buffer.alloc(0);
  let kept: string | undefined;
  if (tail.length > 0) {
    kept = `${path}.torn-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const handle = await open(kept, 'wx');
    try {
      await handle.writeFile(tail);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fsyncDir(dirname(path));
  }
  if (parsed.loss === undefined) {
    if (kept) process.stderr.write(`repohost: write log ${path} ended in an unfinished write (${tail.length} bytes never acknowledged); they were moved to ${kept}\n`);
    return;
  }
  const lastKept = parsed.records.at(-1)?.seq;
  process.stderr.write(
    `repohost: write log ${path} ${parsed.loss}. Starting anyway as asked (acceptLogLoss): kept its ${parsed.records.length} records before the damage` +
      (lastKept === undefined ? '' : ` (writes up to #${lastKept})`) +
      (kept ? `, moved the ${tail.length} bytes from byte ${parsed.validBytes} to ${kept}` : '') +
      '; any acknowledged writes after those records are lost\n',
  );
}

function applyRecord(runner: StatementRunner, record: LogRecord, path: string): void {
  runner.db.exec('BEGIN');
  try {
    for (const [sql, params] of record.statements) runner.run(sql, params);
    runner.db.exec('COMMIT');
  } catch (error) {
    runner.db.exec('ROLLBACK');
    throw new Error(`write log ${path}: record ${record.seq} does not replay: ${(error as Error).message}`);
  }
}
