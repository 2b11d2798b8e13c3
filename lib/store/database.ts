import { mkdir, open, rename, rm, truncate } from 'node:fs/promises';
import type { Database } from 'sql.js';
import { unavailable } from '../errors.js';
import { DurableMark } from './durable-mark.js';
import { runMigrations } from './migrations.js';
import { looksLikeSqlite, StatementRunner, type Row } from './sqlite.js';
import { fsyncDir, WriteLog, type SqlParam } from './write-log.js';
import type { HostDatabase, ReadTx, WriteTx } from './interface.js';
import { ReadTransaction, WriteTransaction } from './transactions.js';
import { META_TABLE, LOG_SEQ_KEY, DatabaseFiles, openDatabase, loadState } from './load-state.js';

export interface OpenDatabaseOptions {
  /** Log size after which a snapshot is taken and the log restarted. */
  snapshotThresholdBytes: number;
  /**
   * Start even when the end of the write log is damaged or missing in a way that may have lost acknowledged writes
   * (see `LogLossError`): keep every record before the damage, move the damaged bytes aside and say so on stderr.
   * Without it such a log refuses startup and no file is changed. Damage that intact records follow is refused
   * either way.
   * @default false
   */
  acceptLogLoss?: boolean;
  /**
   * A database removed when its host closes (':memory:'): its log is written before a write is acknowledged, as
   * always, but never fsync'd (nothing of it is meant to outlive the process).
   * @default false
   */
  ephemeral?: boolean;
}

function runAll(callbacks: ReadonlyArray<() => void>): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch {
      /* a follower's failure never fails the write that is already durable */
    }
  }
}

/**
 * Settles with `work`, or fails once the event loop turns before it has: work inside a transaction may await only the
 * transaction's own statements (they resolve at once on sql.js). Waiting for I/O or a timer there would hold every
 * other request of the host behind it, and waiting for a single-statement read of the store would never end.
 */
function beforeAnyIo<T>(work: Promise<T>, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const turn = setImmediate(() => reject(new Error(`${what} work waited for something other than its own statements (I/O, a timer, or a read of the store outside its transaction: read through the transaction instead); it was rolled back`)));
    work.then(
      (value) => {
        clearImmediate(turn);
        resolve(value);
      },
      (error: unknown) => {
        clearImmediate(turn);
        reject(error);
      },
    );
  });
}

/**
 * The sql.js database with durability: an in-memory SQLite whose committed write transactions are appended
 * to a checksummed log (fsync'd, group commit) before they are acknowledged, and replayed on open after the
 * last snapshot. Snapshots are written atomically when the log grows past a threshold and on close.
 */
export class Store implements HostDatabase {
  private seq: number;
  private closed = false;
  private failure: unknown;
  private failureCount = 0;
  private recovery: Promise<unknown> | undefined;
  private snapshotting: Promise<void> | undefined;
  private snapshotSeq: number;
  /** The newest record's durability (never rejects). */
  private lastAppend: Promise<void> = Promise.resolve();
  /** Set while `replaceWith` swaps the database; writes wait for it. */
  private replacing: Promise<void> | undefined;
  /** The last `read` or `write` work queued (FIFO: no two interleave); see `exclusively`. */
  private queueTail: Promise<unknown> = Promise.resolve();
  /** True while a `read` or `write` work runs: single statements wait, so none sees a transaction's uncommitted rows. */
  private busy = false;
  /** See `dataVersion`: counts commits, reloads and replaces (never `seq`, which a reload may take back). */
  private version = 0;

  private constructor(
    private readonly files: DatabaseFiles,
    private db: Database,
    private runner: StatementRunner,
    private log: WriteLog,
    seq: number,
    private readonly options: OpenDatabaseOptions,
    snapshotSeq: number,
    private hasSnapshotFile: boolean,
    private readonly mark: DurableMark,
    /** What the log is replayed on while there is no snapshot file (see `loadState`). */
    private readonly base: Uint8Array | undefined,
  ) {
    this.seq = seq;
    this.snapshotSeq = snapshotSeq;
  }

  /** Opens (or creates) the database at `dbPath`, replays its log and applies pending migrations. */
  static async open(dbPath: string, options: OpenDatabaseOptions): Promise<Store> {
    const files = new DatabaseFiles(dbPath, options.ephemeral !== true);
    await mkdir(files.dir, { recursive: true });
    const state = await loadState(files, options.acceptLogLoss === true, 'fresh');
    let mark: DurableMark | undefined;
    try {
      mark = await DurableMark.open(files.markPath, files.durable);
      const store = new Store(files, state.db, state.runner, state.log, state.seq, options, state.snapshotSeq, state.hasSnapshot, mark, state.base);
      // The mark names the log (and any loss accepted above is settled on disk) before anything is written.
      await store.follow(state.log, state.firstSeq);
      await runMigrations(store);
      // A ':memory:' database is never opened again: its log replayed on what it was opened on rebuilds it (after a failed
      // write), so it is not copied into a snapshot file at start and on close (issue 23); a long-running one still is
      // past the threshold.
      if (files.durable) await store.snapshot();
      return store;
    } catch (error) {
      await mark?.close().catch(() => undefined);
      await state.log.abandon();
      state.runner.freeAll();
      state.db.close();
      throw error;
    }
  }

  async all<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    // One asked for from inside the running work waits for that work, which `beforeAnyIo` then rolls back.
    while (this.busy) await this.queueTail.catch(() => undefined);
    return this.readNow<T>(sql, params);
  }

  async get<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  private readNow<T>(sql: string, params: readonly SqlParam[]): T[] {
    this.assertOpen();
    // After a failed flush memory holds writes the disk does not: nothing is read until it is rolled back.
    if (this.failure) throw unavailable('Storage is recovering from a failed write; try again');
    return this.runner.all<T>(sql, params);
  }

  /** Statements run on the database so far, reads and writes (tests count what a request costs). */
  statementsRun(): number {
    return this.runner.executed;
  }

  dataVersion(): number {
    return this.version;
  }

  /** How many flushes have failed so far; see `settled`. */
  failures(): number {
    return this.failureCount;
  }

  /**
   * Resolves once everything applied so far is durable. Throws 503 when a flush failed since `failuresBefore` (what
   * `failures()` said when the caller began): what it read may have included writes that never reached the disk.
   * The HTTP layer awaits this before every answer, so no client ever sees state a crash could take back.
   */
  async settled(failuresBefore: number): Promise<void> {
    await this.lastAppend;
    if (this.failure || this.failureCount !== failuresBefore) throw unavailable('The change could not be written to disk; try again');
  }

  /** Runs `work` with a consistent view: no write lands between its statements. */
  async read<T>(work: (tx: ReadTx) => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.exclusively(async () => {
      this.assertOpen();
      if (this.failure) throw unavailable('Storage is recovering from a failed write; try again');
      const tx = new ReadTransaction(() => this.runner);
      try {
        return await beforeAnyIo(work(tx), 'Store.read');
      } finally {
        tx.end();
      }
    });
  }

  /**
   * Runs `work` as one transaction and resolves once it is durable. Works run one at a time, in the order they were
   * asked for; each may await only its own statements (see `beforeAnyIo`). Random values and timestamps must be
   * passed in as parameters so replay is exact.
   */
  async write<T>(work: (tx: WriteTx) => Promise<T>): Promise<T> {
    this.assertOpen();
    while (this.replacing) await this.replacing;
    const applied = await this.exclusively(async () => {
      this.assertOpen();
      if (this.failure) throw unavailable('Storage is recovering from a failed write; try again');
      const tx = new WriteTransaction(this.runner);
      this.db.exec('BEGIN');
      try {
        const result = await beforeAnyIo(work(tx), 'Store.write');
        tx.end();
        this.db.exec('COMMIT');
        if (tx.statements.length === 0) return { result, tx, durable: undefined };
        this.version += 1;
        this.seq += 1;
        // Appended before the next work starts, so records reach the log in commit order.
        const durable = this.log.append({ seq: this.seq, statements: tx.statements });
        // The failure is noted before anyone waiting on `lastAppend` goes on (this handler was attached first).
        this.lastAppend = durable.catch((error: unknown) => this.rollBackToDisk(error));
        return { result, tx, durable };
      } catch (error) {
        tx.end();
        // SQLite may already have rolled back on its own (e.g. after SQLITE_FULL); keep the original error.
        try {
          this.db.exec('ROLLBACK');
        } catch {
          /* no transaction left to roll back */
        }
        throw error;
      }
    });
    if (applied.durable === undefined) {
      // Nothing to log, but what the work read may come from writes still on their way to disk: answer
      // only once those are durable too (records become durable in order, so the last one suffices).
      await this.lastAppend;
      if (this.failure) throw unavailable('The change could not be written to disk');
      runAll(applied.tx.afterDurable);
      return applied.result;
    }
    try {
      await applied.durable;
    } catch {
      throw unavailable('The change could not be written to disk');
    }
    runAll(applied.tx.afterDurable);
    if (this.log.bytes >= this.options.snapshotThresholdBytes) void this.snapshot().catch(() => undefined);
    return applied.result;
  }

  /** Runs `work` after every work queued before it, and with single statements held until it ends. */
  private exclusively<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.queueTail.catch(() => undefined).then(async () => {
      this.busy = true;
      try {
        return await work();
      } finally {
        this.busy = false;
      }
    });
    this.queueTail = turn;
    return turn;
  }

  /** The whole database as SQLite bytes once everything applied so far is durable (harness snapshots). */
  async exportBytes(): Promise<Uint8Array> {
    this.assertOpen();
    await this.lastAppend;
    if (this.failure) throw unavailable('Storage is recovering from a failed write; try again');
    // Between transactions: never a write's uncommitted rows.
    // A pristine store answers a copy of its image (the image itself is shared by every database of the process).
    return this.exclusively(async () => (this.isPristine() ? this.base!.slice() : this.db.export()));
  }

  /** Still exactly the image it was opened on: nothing written since, no snapshot taken (a harness's first baseline). */
  private isPristine(): boolean {
    return this.base !== undefined && this.seq === 0 && !this.hasSnapshotFile;
  }

  /**
   * Replaces the whole database with `bytes` (an `exportBytes` of this store) and makes that durable the way a
   * snapshot is: written atomically as the new snapshot file with a fresh log, the old logs removed after. A crash
   * before the snapshot file is renamed into place leaves the state from before the call, never a mix; writes
   * that land after the call go to the new log on top of the replaced database.
   */
  async replaceWith(bytes: Uint8Array): Promise<void> {
    this.assertOpen();
    if (!looksLikeSqlite(bytes)) throw new Error('not a database export');
    while (this.replacing) await this.replacing;
    let done!: () => void;
    // Writes wait meanwhile: none may land between the swap and the snapshot that makes it durable.
    this.replacing = new Promise<void>((resolve) => (done = resolve));
    try {
      // Writes queued before the call land first (on the database being replaced); later ones wait for `replacing`.
      await this.queueTail.catch(() => undefined);
      await this.lastAppend;
      while (this.snapshotting) await this.snapshotting.catch(() => undefined);
      if (this.failure || this.closed) throw unavailable('Storage is not available; try again');
      const db = await openDatabase(bytes);
      // No `read` runs across the swap.
      await this.exclusively(async () => {
        this.runner.freeAll();
        this.db.close();
        this.db = db;
        this.runner = new StatementRunner(db);
        this.version += 1;
      });
      // The old log's records are all at or below the sequence number the new snapshot file carries: never replayed on it.
      this.hasSnapshotFile = false;
      try {
        await this.snapshot();
      } catch (error) {
        // Memory is ahead of the disk: load what the disk holds (the state before this call) again.
        this.rollBackToDisk(error);
        throw unavailable('The restored database could not be written to disk');
      }
    } finally {
      this.replacing = undefined;
      done();
    }
  }

  /** Writes the whole database atomically and starts a fresh log; old logs are removed once it is durable. */
  snapshot(): Promise<void> {
    this.snapshotting ??= this.writeSnapshot().finally(() => {
      this.snapshotting = undefined;
    });
    return this.snapshotting;
  }

  private async writeSnapshot(): Promise<void> {
    if (this.seq === this.snapshotSeq && this.hasSnapshotFile) return;
    // Between transactions, and with nothing awaited from the export to the log swap: no write lands between them.
    const { seq, bytes, oldLog, nextLog } = await this.exclusively(async () => {
      const seq = this.seq;
      // A log is named after the first record it will hold, so it is opened here, where no write can land first (one
      // that landed while it was opened outside would leave a log whose name is not its first record, which a restart
      // takes for lost acknowledged writes).
      // The current log already starts after the last record when it is still empty: keep it.
      const nextPath = this.files.logPath(seq + 1);
      const nextLog = nextPath === this.log.path ? this.log : await WriteLog.open(nextPath, undefined, this.files.durable);
      this.runner.run(`INSERT INTO ${META_TABLE} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, [LOG_SEQ_KEY, String(seq)]);
      const bytes = this.db.export();
      const oldLog = this.log;
      this.log = nextLog;
      this.snapshotSeq = seq;
      return { seq, bytes, oldLog, nextLog };
    });
    if (oldLog !== nextLog) {
      // Records still flushing to the old log come before any in the new one: the new log waits for them, and
      // for the mark to name it (so the mark leaves the old log only once all of it is on disk).
      const oldClosed = oldLog.close();
      void this.follow(nextLog, seq + 1, oldClosed).catch(() => undefined);
      await oldClosed;
    }
    const temp = this.files.tempPath;
    try {
      const handle = await open(temp, 'w');
      try {
        await handle.writeFile(bytes);
        if (this.files.durable) await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.files.dbPath);
    } catch (error) {
      // The old snapshot and the logs still hold everything; only the partial copy goes.
      await rm(temp, { force: true }).catch(() => undefined);
      throw error;
    }
    if (this.files.durable) await fsyncDir(this.files.dir);
    this.hasSnapshotFile = true;
    for (const log of await this.files.logs()) {
      if (log.path !== this.log.path && log.firstSeq <= seq) await rm(log.path, { force: true });
    }
  }

  /**
   * After a failed flush memory is ahead of the disk: reads and writes are refused (503) while the database is
   * loaded again from what is durable (the log cut back to its last fsync'd length), so the failed writes, and
   * those queued behind them (all refused too), vanish. If that fails, storage stays unavailable until restart.
   */
  private rollBackToDisk(error: unknown): void {
    if (this.failure) return;
    this.failure = error;
    this.failureCount += 1;
    this.version += 1;
    process.stderr.write(`repohost: a write could not be made durable (${(error as Error).message}); reloading the database from disk\n`);
    const failed = this.log;
    this.recovery = (async () => {
      if (this.snapshotting) await this.snapshotting.catch(() => undefined);
      await failed.abandon();
      await truncate(failed.path, failed.durableLength);
      const state = await loadState(this.files, false, this.base);
      this.runner.freeAll();
      this.db.close();
      Object.assign(this, { db: state.db, runner: state.runner, log: state.log, seq: state.seq, snapshotSeq: state.snapshotSeq });
      this.version += 1;
      void this.follow(state.log, state.firstSeq).catch(() => undefined);
      this.failure = undefined;
    })()
      .catch((reason: unknown) => process.stderr.write(`repohost: the database could not be reloaded after a failed write (${(reason as Error).message}); restart the server\n`))
      .finally(() => {
        this.recovery = undefined;
      });
  }

  /** Waits for a reload after a failed write to finish (requests begin after it rather than meet a 503). */
  async ready(): Promise<void> {
    await this.recovery;
  }

  /**
   * Keeps the durable mark on the log being appended to. Nothing is written to `log` before `previous` (the prior
   * log's close) has settled and the mark names `log` on disk: a log holding bytes is always the one the mark names,
   * or newer than it only through damage. A mark that cannot be written fails the log's writes (503) rather than
   * leave acknowledged writes that no mark vouches for. Resolves once the mark names `log`.
   */
  private follow(log: WriteLog, firstSeq: number, previous: Promise<void> = Promise.resolve()): Promise<void> {
    log.syncToDisk = !this.options.ephemeral;
    const marked = previous.then(() => this.mark.set({ firstSeq, bytes: log.durableLength }));
    log.follow(marked);
    log.onDurable = (bytes) => this.mark.note({ firstSeq, bytes });
    return marked;
  }

  /** Flushes, snapshots and closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.snapshotting) await this.snapshotting.catch(() => undefined);
    await this.log.drain().catch(() => undefined);
    if (!this.failure && this.files.durable) await this.snapshot();
    this.closed = true;
    try {
      await this.log.close();
    } finally {
      await this.mark.close().catch(() => undefined);
      this.runner.freeAll();
      this.db.close();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw unavailable('The database is closed');
  }
}
