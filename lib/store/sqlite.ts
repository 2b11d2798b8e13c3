import { createRequire } from 'node:module';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { CAPTURE_DIR, captureStatement } from './postgres/statement-capture.js';
import type { SqlParam } from './write-log.js';

export type Row = Record<string, string | number | null | Uint8Array>;

let engine: Promise<SqlJsStatic> | undefined;

/**
 * Loads the sql.js WebAssembly module once per process, when the first embedded database opens (a host on PostgreSQL
 * never does). sql.js is CommonJS and is required rather than imported: an import has Node's ESM loader scan its
 * source for the names it exports first, which cost ~15 ms of every start (issue 23).
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  engine ??= (createRequire(import.meta.url)('sql.js') as typeof import('sql.js').default)();
  return engine;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

export function looksLikeSqlite(bytes: Uint8Array): boolean {
  return bytes.length >= SQLITE_MAGIC.length && Buffer.from(bytes.subarray(0, SQLITE_MAGIC.length)).equals(SQLITE_MAGIC);
}

/** Runs statements on one sql.js database through a cache of prepared statements. */
export class StatementRunner {
  private readonly cache = new Map<string, Statement>();
  /** Statements run so far (a test checks that a list costs a fixed number, whatever its length). */
  executed = 0;

  constructor(readonly db: Database) {}

  private statement(sql: string): Statement {
    let statement = this.cache.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.cache.set(sql, statement);
      // Off unless REPOHOST_SQL_CAPTURE is set (the suite's PostgreSQL check): one constant compared per new statement.
      if (CAPTURE_DIR !== undefined) captureStatement(sql);
    }
    return statement;
  }

  all<T = Row>(sql: string, params: readonly SqlParam[] = []): T[] {
    const statement = this.statement(sql);
    this.executed += 1;
    try {
      statement.bind(params as SqlParam[]);
      const rows: T[] = [];
      // Values by position, the column names read once per run: getAsObject() asks for the names on every row, which
      // was most of a list query's cost.
      let columns: string[] | undefined;
      while (statement.step()) {
        const values = statement.get();
        columns ??= statement.getColumnNames();
        const row: Record<string, unknown> = {};
        // The statement's own column names (our SQL's), never a user's: the fastest way to build a row.
        // eslint-disable-next-line repohost/own-keys
        for (let index = 0; index < columns.length; index++) row[columns[index]!] = values[index];
        rows.push(row as T);
      }
      return rows;
    } finally {
      statement.reset();
    }
  }

  /** Runs a statement, returning its rows (for RETURNING clauses) and the number of rows it changed. */
  run<T = Row>(sql: string, params: readonly SqlParam[] = []): { rows: T[]; changes: number } {
    const rows = this.all<T>(sql, params);
    return { rows, changes: this.db.getRowsModified() };
  }

  freeAll(): void {
    for (const statement of this.cache.values()) statement.free();
    this.cache.clear();
  }
}
