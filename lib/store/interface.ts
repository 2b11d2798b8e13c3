import type { Row } from './sqlite.js';
import type { SqlParam } from './write-log.js';

export type { Row } from './sqlite.js';
export type { SqlParam } from './write-log.js';

/** Statements that only read. Every call is asynchronous, so a second engine (PostgreSQL) can sit behind it. */
export interface ReadTx {
  all<T = Row>(sql: string, params?: readonly SqlParam[]): Promise<T[]>;
  get<T = Row>(sql: string, params?: readonly SqlParam[]): Promise<T | undefined>;
}

/** Executes statements inside one write transaction; every change is recorded for the write log. */
export interface WriteTx extends ReadTx {
  /** A statement that changes data; it is logged with its parameters and replayed on recovery. */
  run<T = Row>(sql: string, params?: readonly SqlParam[]): Promise<{ rows: T[]; changes: number }>;
  /**
   * Runs `callback` once this transaction is durable (never when it rolls back or fails to reach the disk): what a
   * change sets going (events, deliveries) starts only after it can no longer be taken back. Errors are swallowed.
   */
  onDurable(callback: () => void): void;
}

/**
 * The database as services see it. Single statements read the committed state; `read` gives several statements one
 * consistent view; `write` runs one transaction, serialized with every other, resolved once it is durable.
 * Work given to `read` and `write` awaits only the statements of its own transaction: never I/O, timers or another
 * read of the store (the embedded engine refuses work that does, rather than hold every other request behind it).
 */
export interface Db extends ReadTx {
  read<T>(work: (tx: ReadTx) => Promise<T>): Promise<T>;
  write<T>(work: (tx: WriteTx) => Promise<T>): Promise<T>;
}

/** What a host needs of its database besides statements: readiness, durability before answers, and closing. */
export interface HostDatabase extends Db {
  /** Resolves once the database can answer (after a reload from a failed write, on the embedded engine). */
  ready(): Promise<void>;
  /** How many writes have failed to become durable so far; see `settled`. */
  failures(): number;
  /** Resolves once everything applied so far is durable; 503 when a write failed since `failuresBefore`. */
  settled(failuresBefore: number): Promise<void>;
  /** The whole database as bytes that `replaceWith` of the same engine takes back (harness snapshots). */
  exportBytes(): Promise<Uint8Array>;
  /** Replaces every row with what `exportBytes` gave, durably and at once. */
  replaceWith(bytes: Uint8Array): Promise<void>;
  /** Statements run so far, reads and writes (tests count what a request costs). */
  statementsRun(): number;
  /**
   * A number that changes whenever what reads see may have changed (a commit, a reload after a failed write, a
   * replace), so that an answer kept in memory is valid while it stays the same; undefined where other processes
   * change the database too (PostgreSQL), where no such number can be exact.
   */
  dataVersion(): number | undefined;
  /** Locks shared with other instances of the same database (PostgreSQL); absent when this process is the only one. */
  readonly sharedLocks?: SharedLocks;
  /** News of changes between instances of the same database (PostgreSQL); absent when this process is the only one. */
  readonly changeFeed?: ChangeFeed;
  close(): Promise<void>;
}

/** Tells the other instances what changed, so that what they keep in memory of it is read again. */
export interface ChangeFeed {
  /** Announces that `key` changed (once the change is made); never fails the caller. */
  announce(key: string): void;
  /**
   * Calls `changed(key)` for each change another instance announces, and `reset()` whenever announcements may have
   * been missed (at first, and each time the feed's connection is made again): forget everything then.
   */
  follow(changed: (key: string) => void, reset: () => void): void;
}

/**
 * Named locks that every instance sharing the database sees, taken without waiting: each name is a pair (a number
 * such as an owner's id, and a text such as a lower-cased repository name).
 */
export interface SharedLocks {
  /** Takes every name (exclusive, or shared with other shared holders) or none; resolves to its release, or undefined when any is held elsewhere. */
  tryLock(names: ReadonlyArray<readonly [number, string]>, mode: 'exclusive' | 'shared'): Promise<(() => Promise<void>) | undefined>;
  /** This instance's name, held as a lock for as long as it runs (what it writes for later may carry it). */
  readonly instance: string;
  /** True while the instance named `instance` runs (it still holds its name). */
  isRunning(instance: string): Promise<boolean>;
}
