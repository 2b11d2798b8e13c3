import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FRESH_SCHEMA } from '../../lib/store/fresh-schema.js';
import { MIGRATIONS } from '../../lib/store/migrations.js';
import { freshPostgresSchema, POSTGRES_MIGRATIONS, SCHEMA_VERSION_TABLE } from '../../lib/store/postgres/migrations.js';
import { toPostgresPlaceholders } from '../../lib/store/postgres/placeholders.js';
import { loadSqlJs } from '../../lib/store/sqlite.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { SQL_CAPTURE_DIR } from '../helpers/sql-capture.js';

// Runs after the suite (`npm test`, or alone with `npm run check:postgres`): every statement the store prepared during
// the suite (recorded through REPOHOST_SQL_CAPTURE) must PREPARE on a fresh PostgreSQL database built from
// lib/store/postgres/migrations.ts, so SQL only SQLite accepts fails CI. Not checked, each for a stated reason:

/** The sql.js engine's own statements: no PostgreSQL engine issues them. */
const ENGINE_OWN: ReadonlyArray<[RegExp, string]> = [
  [/^\s*PRAGMA\b/i, 'SQLite settings'],
  [/\bpragma_\w+\s*\(/i, 'SQLite page counts (Store.sizeBytes)'],
  [/\bsqlite_(?:master|schema|sequence)\b/i, 'SQLite catalogue'],
  [/^\s*(?:BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i, 'transaction control'],
  [/\brepohost_meta\b/, 'snapshot bookkeeping of the write log'],
];

/**
 * SQLite's schema steps, and the fresh schema made of them (lib/store/fresh-schema.ts): PostgreSQL gets its own
 * (lib/store/postgres/migrations.ts), checked below against them.
 */
const SQLITE_MIGRATION_TEXT = new Set<string>([SCHEMA_VERSION_TABLE, ...MIGRATIONS.flatMap((migration) => migration.statements), ...FRESH_SCHEMA]);

interface Captured {
  sql: string;
  from: Set<string>;
}

/** Statements issued from lib/ or dist/ (or from a place the capture could not name) are the store's own. */
function issuedByStore(from: ReadonlySet<string>): boolean {
  return [...from].some((origin) => origin.startsWith('lib/') || origin.startsWith('dist/') || origin === 'unknown');
}

async function readCapture(): Promise<Map<string, Captured>> {
  let names: string[];
  try {
    names = (await readdir(SQL_CAPTURE_DIR)).filter((name) => name.endsWith('.jsonl'));
  } catch {
    names = [];
  }
  const statements = new Map<string, Captured>();
  for (const name of names) {
    for (const line of (await readFile(join(SQL_CAPTURE_DIR, name), 'utf8')).split('\n')) {
      if (!line) continue;
      let record: { sql: string; from: string };
      try {
        record = JSON.parse(line) as { sql: string; from: string };
      } catch {
        continue; // a line cut short by a process killed mid-write; the statement recurs elsewhere or the check misses one
      }
      const entry = statements.get(record.sql) ?? { sql: record.sql, from: new Set<string>() };
      entry.from.add(record.from);
      statements.set(record.sql, entry);
    }
  }
  return statements;
}

/** `sql` with the text around PostgreSQL's 1-based error position marked. */
function pointAt(sql: string, position: number | undefined): string {
  if (!position) return '';
  const at = position - 1;
  return `near: ${sql.slice(Math.max(0, at - 40), at).replace(/\s+/g, ' ')} ⟨HERE⟩ ${sql.slice(at, at + 40).replace(/\s+/g, ' ')}`;
}

let server: PostgresServer;
let client: pg.Client;

beforeAll(async () => {
  server = await startPostgres();
  client = new pg.Client({ connectionString: await server.createDatabase('repohost_check'), connectionTimeoutMillis: 10_000 });
  await client.connect();
  await client.query('BEGIN');
  for (const statement of freshPostgresSchema()) {
    try {
      await client.query(statement);
    } catch (error) {
      throw new Error(`lib/store/postgres/migrations.ts does not build on PostgreSQL ${server.version}: ${(error as Error).message}\n${statement}`);
    }
  }
  await client.query('COMMIT');
});

afterAll(async () => {
  await client?.end().catch(() => undefined);
  await server?.stop();
});

describe('the PostgreSQL schema', () => {
  it('has the same numbered steps as the SQLite one', () => {
    expect(POSTGRES_MIGRATIONS.map((step) => step.version)).toEqual(MIGRATIONS.map((step) => step.version));
  });

  it('has the same tables, columns and named indexes as the SQLite one, identities for its row ids, and no triggers', async () => {
    const SQL = await loadSqlJs();
    const sqlite = new SQL.Database();
    try {
      sqlite.exec('PRAGMA foreign_keys = ON');
      sqlite.exec(SCHEMA_VERSION_TABLE);
      for (const statement of MIGRATIONS.flatMap((step) => step.statements)) sqlite.exec(statement);
      const rows = (sql: string) => sqlite.exec(sql)[0]?.values ?? [];
      const sqliteColumns: string[] = [];
      const sqliteIdentities: string[] = [];
      for (const [table] of rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")) {
        const columns = rows(`SELECT name, type, pk FROM pragma_table_info('${String(table)}')`);
        for (const [name] of columns) sqliteColumns.push(`${String(table)}.${String(name)}`);
        const keys = columns.filter(([, , pk]) => Number(pk) > 0);
        // An INTEGER PRIMARY KEY alone is SQLite's row id; a key that refers to another table stays a plain key.
        const foreign = rows(`SELECT "from" FROM pragma_foreign_key_list('${String(table)}')`).map(([from]) => from);
        if (keys.length === 1 && String(keys[0]![1]).toUpperCase() === 'INTEGER' && !foreign.includes(keys[0]![0])) {
          sqliteIdentities.push(`${String(table)}.${String(keys[0]![0])}`);
        }
      }
      const sqliteIndexes = rows("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").map(([name]) => String(name));

      const pgColumns = await client.query<{ c: string }>(
        "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'public'",
      );
      const pgIdentities = await client.query<{ c: string }>(
        "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND is_identity = 'YES'",
      );
      const pgIndexes = await client.query<{ name: string }>(
        "SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT IN (SELECT conname FROM pg_constraint)",
      );
      const triggers = await client.query("SELECT trigger_name FROM information_schema.triggers WHERE trigger_schema = 'public'");
      const sorted = (values: string[]) => [...values].sort();
      expect(sorted(pgColumns.rows.map((row) => row.c))).toEqual(sorted(sqliteColumns));
      expect(sorted(pgIdentities.rows.map((row) => row.c))).toEqual(sorted(sqliteIdentities));
      expect(sorted(pgIndexes.rows.map((row) => row.name))).toEqual(sorted(sqliteIndexes));
      expect(triggers.rows).toEqual([]);
      // Text compares by bytes as on SQLite, whatever the database's locale (migration 18; later steps say COLLATE "C").
      const otherwiseCollated = await client.query<{ c: string }>(
        "SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'",
      );
      expect(otherwiseCollated.rows.map((row) => row.c)).toEqual([]);
    } finally {
      sqlite.close();
    }
  });
});

describe('the statements the store issued during the suite', () => {
  it('all PREPARE on PostgreSQL', async () => {
    const captured = await readCapture();
    if (captured.size === 0) {
      throw new Error(`no statements were captured in ${SQL_CAPTURE_DIR}: run the suite first (npm test; vitest.config.ts sets REPOHOST_SQL_CAPTURE), then npm run check:postgres`);
    }
    const skipped = new Map<string, number>();
    const skip = (reason: string) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
    const testFiles = new Set<string>();
    const checked: Captured[] = [];
    for (const entry of captured.values()) {
      const own = ENGINE_OWN.find(([pattern]) => pattern.test(entry.sql));
      if (own) skip(`the sql.js engine's own (${own[1]})`);
      else if (SQLITE_MIGRATION_TEXT.has(entry.sql)) skip('SQLite schema steps (PostgreSQL has its own, compared above)');
      else if ([...entry.from].every((origin) => origin === 'replay')) skip('only seen replayed from a write log (each was captured where it was first run)');
      else if (!issuedByStore(entry.from)) {
        skip('issued by tests themselves, not the store');
        for (const origin of entry.from) if (origin !== 'replay') testFiles.add(origin.replace(/:\d+$/, ''));
      }
      else checked.push(entry);
    }
    // A capture without the store's queries means the suite did not record what it ran: nothing would be checked.
    expect(checked.some((entry) => [...entry.from].some((origin) => /^(?:lib|dist)\/store\/queries\//.test(origin)))).toBe(true);

    const failures: string[] = [];
    let index = 0;
    for (const entry of checked.sort((a, b) => a.sql.localeCompare(b.sql))) {
      index += 1;
      let text: string;
      try {
        text = toPostgresPlaceholders(entry.sql);
      } catch (error) {
        failures.push(describeFailure(entry, entry.sql, (error as Error).message));
        continue;
      }
      const prefix = `PREPARE repohost_check_${index} AS `;
      try {
        await client.query(prefix + text);
        await client.query(`DEALLOCATE repohost_check_${index}`);
      } catch (error) {
        const failure = error as Error & { code?: string; position?: string };
        const position = failure.position ? Number(failure.position) - prefix.length : undefined;
        failures.push(describeFailure(entry, text, `${failure.code ?? ''} ${failure.message}`.trim(), pointAt(text, position)));
      }
    }
    const summary =
      `${checked.length} statements the store issued, PREPAREd on PostgreSQL ${server.version}: ${checked.length - failures.length} ok, ${failures.length} failed. ` +
      `Not checked: ${[...skipped].map(([reason, n]) => `${n} ${reason}`).join('; ')}` +
      (testFiles.size > 0 ? ` (${[...testFiles].sort().join(', ')}).` : '.');
    console.log(summary);
    if (failures.length > 0) {
      throw new Error(`${failures.length} of ${checked.length} statements the store issues do not PREPARE on PostgreSQL ${server.version}:\n\n${failures.join('\n\n')}\n\n${summary}`);
    }
  });
});

function describeFailure(entry: Captured, text: string, message: string, near = ''): string {
  const from = [...entry.from].filter((origin) => origin !== 'replay').sort();
  const callers = from.length > 3 ? `${from.slice(0, 3).join(', ')} (+${from.length - 3} more)` : from.join(', ');
  return [`✗ ${callers}`, `  ${text.replace(/\s*\n\s*/g, ' ')}`, `  → ${message}`, ...(near ? [`  ${near}`] : [])].join('\n');
}
