import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../lib/store/database.js';
import { FRESH_SCHEMA, FRESH_SCHEMA_VERSION } from '../../lib/store/fresh-schema.js';
import { MIGRATIONS, runMigrations, SCHEMA_VERSION } from '../../lib/store/migrations.js';
import { loadSqlJs } from '../../lib/store/sqlite.js';

// Issue 23: a fresh database gets the newest schema from one script (lib/store/fresh-schema.ts) instead of replaying
// every migration; existing databases still migrate step by step. Both must end with the same schema and rows.
//
// After adding a migration this test fails: regenerate FRESH_SCHEMA from `sqlite_master` (`sql` of every entry in
// rowid order, `repohost_meta` and `sqlite_*` left out) of a database migrated step by step, plus an INSERT for each
// row the steps leave (not `schema_version`'s), and set FRESH_SCHEMA_VERSION.

type Schema = { objects: unknown[]; indexes: unknown[]; rows: Record<string, unknown[]> };

function rows(db: Database, sql: string): Array<Record<string, unknown>> {
  const result = db.exec(sql)[0];
  return result ? result.values.map((values) => Object.fromEntries(result.columns.map((column, i) => [column, values[i]]))) : [];
}

/** Every table, index and trigger with its SQL, every index's columns, and every row, of a database. */
function schemaOf(db: Database): Schema {
  const objects = rows(db, "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name <> 'repohost_meta' ORDER BY type, name");
  const tables = objects.filter((object) => object.type === 'table').map((object) => object.name as string);
  const indexes = tables.flatMap((table) =>
    rows(db, `SELECT name, "unique", origin, partial FROM pragma_index_list('${table}') ORDER BY name`).map((index) => ({
      table,
      ...index,
      columns: rows(db, `SELECT seqno, cid, name FROM pragma_index_info('${index.name as string}') ORDER BY seqno`),
    })),
  );
  const data = Object.fromEntries(tables.map((table) => [table, rows(db, `SELECT * FROM "${table}" ORDER BY 1`)]));
  return { objects, indexes, rows: data };
}

/** The parts of a Store that `runMigrations` uses, over a bare sql.js database. */
function storeOver(db: Database): Store {
  const tx = {
    run: async (sql: string, params: unknown[] = []) => {
      db.run(sql, params as never);
      return { rows: [], changes: db.getRowsModified() };
    },
  };
  return {
    get: async (sql: string) => rows(db, sql)[0],
    write: async (work: (t: typeof tx) => Promise<unknown>) => {
      db.exec('BEGIN');
      try {
        await work(tx);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
  } as unknown as Store;
}

/** A bare database at `version`, built by running the steps up to it the way `runMigrations` once did. */
async function databaseAt(version: number): Promise<Database> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.exec('PRAGMA foreign_keys = ON');
  db.exec('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  db.exec('INSERT INTO schema_version (version) VALUES (0)');
  for (const migration of MIGRATIONS.filter((step) => step.version <= version)) {
    db.exec('BEGIN');
    for (const statement of migration.statements) db.exec(statement);
    db.run('UPDATE schema_version SET version = ?', [migration.version]);
    db.exec('COMMIT');
  }
  return db;
}

describe('a fresh database and a migrated one', () => {
  let dir: string;
  let fresh: Schema;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'repohost-fresh-schema-'));
    // The real path: Store.open on a new file, which writes the fresh schema.
    const store = await Store.open(join(dir, 'fresh.db'), { snapshotThresholdBytes: 1 << 30, ephemeral: true });
    const bytes = await store.exportBytes();
    await store.close();
    const SQL = await loadSqlJs();
    fresh = schemaOf(new SQL.Database(bytes));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is created from the schema script at the newest version', () => {
    expect(FRESH_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
    expect(fresh.rows.schema_version).toEqual([{ version: SCHEMA_VERSION }]);
    expect(fresh.objects.length).toBeGreaterThan(30);
    expect(FRESH_SCHEMA.length).toBeGreaterThan(30);
  });

  it('has the same schema, indexes and rows as one built by replaying every step', async () => {
    const replayed = await databaseAt(SCHEMA_VERSION);
    expect(fresh).toEqual(schemaOf(replayed));
  });

  it.each(MIGRATIONS.slice(0, -1).map((step) => step.version))('has the same as a database migrated step by step from version %i', async (version) => {
    const db = await databaseAt(version);
    await runMigrations(storeOver(db));
    expect(schemaOf(db)).toEqual(fresh);
  });
});
