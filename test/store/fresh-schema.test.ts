import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
    // The real path: Store.open on a new file, which starts from the fresh image.
    const store = await Store.open(join(dir, 'fresh.db'), { snapshotThresholdBytes: 1 << 30, ephemeral: true });
    // One write (to the store's own table, left out below), so that the export is of the open database, not a copy
    // of the image it was opened on (which a store answers until its first write).
    await store.write(async (tx) => {
      await tx.run("INSERT INTO repohost_meta (key, value) VALUES ('fresh-schema-test', 'x')");
    });
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

  // `npm run build` writes the image that a fresh database starts from (lib/store/fresh-image.ts); tests from the
  // sources make it in memory, as the fresh database above was.
  it('is shipped by the build as an image with the same schema and rows', async () => {
    const built = await readFile(new URL(`../../dist/fresh-image-v${SCHEMA_VERSION}.sqlite`, import.meta.url)).catch(() => {
      throw new Error('dist/ holds no image of this schema version: run `npm run build` first');
    });
    const SQL = await loadSqlJs();
    expect(schemaOf(new SQL.Database(built))).toEqual(fresh);
  });

  // Every fresh database of a process opens the same image bytes: none may write into them (sql.js shared the memory
  // of a Buffer, so the first database's writes showed up in, or broke, the next one's start).
  it('gives every new database of the process the image untouched by the ones before', async () => {
    const first = await Store.open(join(dir, 'first.db'), { snapshotThresholdBytes: 1 << 30, ephemeral: true });
    for (let i = 0; i < 50; i++) {
      await first.write(async (tx) => {
        await tx.run('INSERT INTO users (username, username_lower, email, password_hash, created_at) VALUES (?, ?, ?, ?, ?)', [`u${i}`, `u${i}`, 'x@example.com', 'x'.repeat(500), '2026-01-01']);
      });
    }
    const second = await Store.open(join(dir, 'second.db'), { snapshotThresholdBytes: 1 << 30, ephemeral: true });
    try {
      expect(await second.get('SELECT count(*) AS n FROM users')).toEqual({ n: 0 });
      expect(await second.get('PRAGMA integrity_check')).toEqual({ integrity_check: 'ok' });
    } finally {
      await first.close();
      await second.close();
    }
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

// Version 16 makes the check tables again (check suites per app): every row must come through, with its references.
describe('the check tables made again by version 16', () => {
  it('keeps suites, runs and annotations, with their references and cascades', async () => {
    const db = await databaseAt(15);
    db.exec(`INSERT INTO users (id, username, username_lower, email, password_hash, created_at) VALUES (1, 'a', 'a', 'a@example.com', 'x', '2026-01-01')`);
    db.exec(`INSERT INTO repositories (id, owner_id, name, name_lower, created_at, updated_at) VALUES (1, 1, 'r', 'r', '2026-01-01', '2026-01-01')`);
    db.exec(`INSERT INTO check_suites (id, repo_id, head_sha, head_branch, created_at, updated_at) VALUES (7, 1, 'abc', 'main', '2026-01-01', '2026-01-02')`);
    db.exec(`INSERT INTO check_runs (id, repo_id, suite_id, head_sha, name, status, conclusion, creator_id, created_at, updated_at, annotations_count)
      VALUES (70, 1, 7, 'abc', 'lint', 'completed', 'success', 1, '2026-01-01', '2026-01-01', 1)`);
    db.exec(`INSERT INTO check_annotations (id, check_run_id, path, start_line, end_line, annotation_level, message) VALUES (700, 70, 'a.txt', 1, 2, 'warning', 'hm')`);
    await runMigrations(storeOver(db));
    expect(rows(db, 'SELECT id, repo_id, head_sha, head_branch, app_id, updated_at FROM check_suites')).toEqual([{ id: 7, repo_id: 1, head_sha: 'abc', head_branch: 'main', app_id: 0, updated_at: '2026-01-02' }]);
    expect(rows(db, 'SELECT id, suite_id, name, conclusion, annotations_count FROM check_runs')).toEqual([{ id: 70, suite_id: 7, name: 'lint', conclusion: 'success', annotations_count: 1 }]);
    expect(rows(db, 'SELECT id, check_run_id, message FROM check_annotations')).toEqual([{ id: 700, check_run_id: 70, message: 'hm' }]);
    expect(rows(db, 'PRAGMA foreign_key_check')).toEqual([]);
    // Another app's suite of the same commit may now exist; deleting a suite still takes its runs and their annotations.
    db.exec(`INSERT INTO check_suites (repo_id, head_sha, app_id, created_at, updated_at) VALUES (1, 'abc', 5, '2026-01-03', '2026-01-03')`);
    db.exec('DELETE FROM check_suites WHERE id = 7');
    expect(rows(db, 'SELECT COUNT(*) AS n FROM check_runs')).toEqual([{ n: 0 }]);
    expect(rows(db, 'SELECT COUNT(*) AS n FROM check_annotations')).toEqual([{ n: 0 }]);
  });
});
