import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { unavailable } from '../../errors.js';
import type { ChangeFeed, HostDatabase, ReadTx, Row, SqlParam, SharedLocks, WriteTx } from '../interface.js';
import { freshPostgresSchema, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from './migrations.js';
import { toPostgresPlaceholders } from './placeholders.js';
import { ownValue } from '../../own-value.js';

/** How often a write that failed on a serialization failure (40001) or a deadlock (40P01) is run again. */
const WRITE_ATTEMPTS = 5;
const RETRIED = new Set(['40001', '40P01']);
/** One key for the schema steps: instances starting together migrate one at a time. */
const MIGRATION_LOCK = 0x7265706f; // 'repo'
/** One key every write holds until it commits: writes run one at a time across every instance, as on sql.js. */
const WRITE_LOCK = 0x72657077; // 'repw'
/** numeric_value_out_of_range */
const OUT_OF_RANGE = '22003';

/** Integers come back as numbers, as from SQLite: `BIGINT` ids and counts, and `SUM`'s numeric, all well below 2^53. */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};

/**
 * Parameters as PostgreSQL takes them. Its text cannot hold NUL (SQLite's can): a NUL in a string becomes U+FFFD, the
 * replacement character, rather than fail the write.
 */
function postgresParams(params: readonly SqlParam[]): unknown[] {
  return params.map((param) => (typeof param === 'string' && param.includes('\u0000') ? param.replaceAll('\u0000', '\uFFFD') : param));
}

/**
 * Distinct statements sent as named prepared statements: each connection parses and plans one once, then only binds
 * and runs it (parse and plan cost PostgreSQL several times the run of a short statement). `inList` rounds its lists,
 * so the suite's statements number about 550; past this bound a statement goes unnamed, keeping what every server
 * connection holds bounded.
 */
export const NAMED_STATEMENTS = 2_000;
/** Each distinct statement's text in PostgreSQL's placeholders and, within the bound, its name; made once per text. */
const prepared = new Map<string, { text: string; name?: string }>();

/** The query `pg` is given for `sql`: PostgreSQL's placeholders, its values, and the statement's name when it has one. */
function postgresQuery(sql: string, params: readonly SqlParam[]): pg.QueryConfig {
  let statement = prepared.get(sql);
  if (statement === undefined) {
    statement = { text: toPostgresPlaceholders(sql), name: prepared.size < NAMED_STATEMENTS ? `repohost_${prepared.size}` : undefined };
    if (prepared.size < 10_000) prepared.set(sql, statement);
  }
  return { text: statement.text, name: statement.name, values: postgresParams(params) };
}

/** One connection's statements inside a transaction, refused once the transaction has ended. */
class PostgresTransaction implements WriteTx {
  private open = true;
  readonly afterCommit: Array<() => void> = [];

  constructor(
    private readonly client: pg.PoolClient,
    private readonly counted: () => void,
  ) {}

  async all<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    return (await this.run<T>(sql, params)).rows;
  }

  async get<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<{ rows: T[]; changes: number }> {
    if (!this.open) throw new Error('a transaction was used after it ended');
    this.counted();
    const result = await this.client.query(postgresQuery(sql, params));
    return { rows: result.rows as T[], changes: result.rowCount ?? 0 };
  }

  onDurable(callback: () => void): void {
    this.afterCommit.push(callback);
  }

  end(): void {
    this.open = false;
  }
}

/**
 * The PostgreSQL engine (issue 19): the same queries as sql.js through a `pg` pool. Each `write` is one transaction
 * that first takes a transaction-scoped advisory lock shared by every instance, so writes run one at a time as on
 * sql.js and each sees every write committed before it (read-then-write checks such as "at most N hooks" hold). A
 * write that still fails on a serialization failure or a deadlock is run again from the start, a bounded number of
 * times. What a write sets going (`onDurable`) runs only after COMMIT, which PostgreSQL acknowledges once durable.
 * (Measured first with SERIALIZABLE alone: eight concurrent issue creations in one repository exhausted the retries.)
 */
export class PostgresStore implements HostDatabase {
  private executed = 0;
  private closed = false;
  /** Settles once this instance's queued writes have run (see `write`). */
  private writeTurn: Promise<void> = Promise.resolve();

  private constructor(
    private readonly pool: pg.Pool,
    readonly sharedLocks: AdvisoryLocks,
    readonly changeFeed: ChangeNotifications,
  ) {}

  /** Connects to `url` and brings the schema to the newest version (one instance at a time). */
  static async open(url: string, options: { poolSize?: number } = {}): Promise<PostgresStore> {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, types: TYPES });
    // An idle connection the server dropped must not crash the process; the next query gets a fresh one.
    pool.on('error', () => undefined);
    const store = new PostgresStore(pool, new AdvisoryLocks(url), new ChangeNotifications(url, pool));
    try {
      await store.migrate();
      await store.sharedLocks.hold();
      await store.changeFeed.listen();
      return store;
    } catch (error) {
      await store.changeFeed.close();
      await store.sharedLocks.close();
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  private async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        const exists = await client.query("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_version'");
        const current = exists.rowCount ? Number((await client.query('SELECT version FROM schema_version')).rows[0]?.version ?? 0) : 0;
        if (current > POSTGRES_SCHEMA_VERSION) {
          throw new Error(`the database has schema version ${current}, newer than this repohost (${POSTGRES_SCHEMA_VERSION}); upgrade repohost`);
        }
        const steps = exists.rowCount ? POSTGRES_MIGRATIONS.filter((step) => step.version > current).flatMap((step) => [...step.statements, `UPDATE schema_version SET version = ${step.version}`]) : freshPostgresSchema();
        if (steps.length === 0) return;
        await client.query('BEGIN');
        try {
          for (const statement of steps) await client.query(statement);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      }
    } finally {
      client.release();
    }
  }

  async all<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T[]> {
    this.assertOpen();
    this.executed += 1;
    try {
      return (await this.pool.query(postgresQuery(sql, params))).rows as T[];
    } catch (error) {
      // A value its column cannot hold (issue number 3000000000 in an INTEGER) matches no row, as on SQLite, rather
      // than fail the request. Only here: inside a transaction the error has already aborted it.
      if ((error as { code?: string }).code === OUT_OF_RANGE) return [];
      throw error;
    }
  }

  async get<T = Row>(sql: string, params: readonly SqlParam[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  /** Several statements with one view of the data (a snapshot taken at the first). */
  async read<T>(work: (tx: ReadTx) => Promise<T>): Promise<T> {
    return await this.transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', work);
  }

  async write<T>(work: (tx: WriteTx) => Promise<T>): Promise<T> {
    // Writes of every instance run one at a time (the advisory lock): this instance's wait their turn here, without a
    // connection, so that writes queued behind another instance's never take the whole pool from reads.
    const turn = this.writeTurn.then(() => this.runWrite(work));
    this.writeTurn = turn.then(
      () => undefined,
      () => undefined,
    );
    return await turn;
  }

  private async runWrite<T>(work: (tx: WriteTx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transaction('BEGIN', work, WRITE_LOCK);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === undefined || !RETRIED.has(code) || attempt >= WRITE_ATTEMPTS) throw error;
        // Apart a little, so the writes that collided do not collide again at once.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }

  private async transaction<T>(begin: string, work: (tx: PostgresTransaction) => Promise<T>, lock?: number): Promise<T> {
    this.assertOpen();
    const client = await this.pool.connect();
    const tx = new PostgresTransaction(client, () => (this.executed += 1));
    let broken = false;
    try {
      try {
        // The lock goes with BEGIN in one round trip (the simple protocol takes both): a write holds the lock for as
        // few round trips as it can, since every other instance's writes wait for it meanwhile.
        await client.query(lock === undefined ? begin : `${begin}; SELECT pg_advisory_xact_lock(${Math.trunc(lock)})`);
      } catch (error) {
        // A transaction that failed to begin (a timeout, a cancel) must not go back to the pool half open.
        broken = true;
        throw error;
      }
      let result: T;
      try {
        result = await work(tx);
        tx.end();
        await client.query('COMMIT');
      } catch (error) {
        tx.end();
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      }
      for (const callback of tx.afterCommit) {
        try {
          callback();
        } catch {
          /* a follower's failure never fails the write that is already durable */
        }
      }
      return result;
    } finally {
      client.release(broken);
    }
  }

  async ready(): Promise<void> {}

  failures(): number {
    return 0;
  }

  /** A COMMIT is durable once acknowledged: nothing applied is ever waiting for the disk. */
  async settled(): Promise<void> {}

  statementsRun(): number {
    return this.executed;
  }

  /** Other instances (and anyone with `psql`) change the database too: nothing read can be kept by a version here. */
  dataVersion(): undefined {
    return undefined;
  }

  /** Every row of every table, in the order the schema creates them (so that `replaceWith` meets each reference). */
  async exportBytes(): Promise<Uint8Array> {
    const tables = await this.tables();
    const rows = await this.read(async (tx) => {
      const all: Array<[string, Row[]]> = [];
      for (const table of tables) all.push([table, await tx.all(`SELECT * FROM ${table}`)]);
      return Object.fromEntries(all);
    });
    return Buffer.from(JSON.stringify({ engine: 'postgres', rows }));
  }

  async replaceWith(bytes: Uint8Array): Promise<void> {
    const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as { engine?: string; rows?: Record<string, Row[]> };
    if (parsed.engine !== 'postgres' || !parsed.rows) throw new Error('not an export of a PostgreSQL database');
    const saved = parsed.rows;
    const tables = await this.tables();
    const identities = new Set(
      (await this.all<{ name: string }>("SELECT table_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'")).map((row) => row.name),
    );
    await this.write(async (tx) => {
      await tx.run(`TRUNCATE ${tables.join(', ')}`);
      for (const table of tables) {
        for (const row of ownValue(saved, table) ?? []) {
          const columns = Object.keys(row);
          await tx.run(`INSERT INTO ${table} (${columns.join(', ')}) OVERRIDING SYSTEM VALUE VALUES (${columns.map(() => '?').join(', ')})`, columns.map((column) => ownValue(row, column) ?? null));
        }
        // Identity columns go on from the highest id restored, as they would have.
        if (identities.has(table)) await tx.run(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), COALESCE((SELECT MAX(id) FROM ${table}), 0) + 1, false)`);
      }
    });
  }

  /**
   * The schema's tables, each after those it references (a later step may add a reference to a table it creates, as
   * `webhooks.installation_id` does), else in the order the steps create them: the order rows can be restored in.
   */
  private async tables(): Promise<string[]> {
    const present = new Set((await this.all<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()')).map((row) => row.name));
    const created: string[] = [];
    for (const statement of freshPostgresSchema()) {
      const name = /^CREATE TABLE (\w+)/.exec(statement.trim())?.[1];
      if (name && present.has(name) && !created.includes(name)) created.push(name);
    }
    const references = await this.all<{ child: string; parent: string }>(
      `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
         JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
        WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace AND c.oid <> p.oid`,
    );
    const ordered: string[] = [];
    const visit = (table: string, path: Set<string>) => {
      if (ordered.includes(table) || path.has(table)) return;
      path.add(table);
      for (const { parent } of references.filter((reference) => reference.child === table)) if (present.has(parent)) visit(parent, path);
      path.delete(table);
      ordered.push(table);
    };
    for (const table of created) visit(table, new Set());
    return ordered;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.changeFeed.close();
    await this.sharedLocks.close();
    await this.pool.end();
  }

  private assertOpen(): void {
    if (this.closed) throw unavailable('The database is closed');
  }
}

/**
 * Session-level advisory locks on one connection of their own, so that they outlive any transaction: what one instance
 * holds, every other sees. Locks are re-entrant within the session, so the caller keeps its own process's holders apart
 * (`NameReservations` does). Should the connection drop, its locks go with it; the next lock opens a new one.
 */
export class AdvisoryLocks implements SharedLocks {
  #client: Promise<pg.Client> | undefined;
  /** The last query asked for: each waits for the one before (see `#query`). */
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly instance = randomUUID();

  constructor(private readonly url: string) {}

  /** Opens the connection now, taking this instance's name (so that other instances see it running from the start). */
  async hold(): Promise<void> {
    await this.#connection();
  }

  async isRunning(instance: string): Promise<boolean> {
    if (instance === this.instance) return true;
    const { rows } = await this.#query<{ free: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS free`, [instanceKey(instance)]);
    if (!rows[0]?.free) return true;
    await this.#query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [instanceKey(instance)]);
    return false;
  }

  async tryLock(names: ReadonlyArray<readonly [number, string]>, mode: 'exclusive' | 'shared'): Promise<(() => Promise<void>) | undefined> {
    const [lock, unlock] = mode === 'shared' ? ['pg_try_advisory_lock_shared', 'pg_advisory_unlock_shared'] : ['pg_try_advisory_lock', 'pg_advisory_unlock'];
    const taken: Array<readonly [number, string]> = [];
    const releaseTaken = async () => {
      for (const [number, text] of taken) await this.#query(`SELECT ${unlock}($1::int, hashtext($2))`, [number, text]).catch(() => undefined);
    };
    for (const name of names) {
      const { rows } = await this.#query<{ ok: boolean }>(`SELECT ${lock}($1::int, hashtext($2)) AS ok`, [name[0], name[1]]);
      if (!rows[0]?.ok) {
        await releaseTaken();
        return undefined;
      }
      taken.push(name);
    }
    return releaseTaken;
  }

  /**
   * One query at a time on the connection, in the order asked (issue 38): concurrent callers share it, and
   * node-postgres refuses a query while another runs from its next major on (8.x only warns and queues).
   */
  #query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<pg.QueryResult<R>> {
    const turn = this.#queue.then(async () => await (await this.#connection()).query<R>(sql, params));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  #connection(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const client = new pg.Client({ connectionString: this.url });
    const connecting = (async () => {
      await client.connect();
      // The one-key form: apart from the two-key locks of names (PostgreSQL keeps the two kinds apart). Taken without
      // waiting: a server still holding a dropped connection's locks must not hang every lock behind it.
      await client.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0))', [instanceKey(this.instance)]);
      return client;
    })();
    this.#client = connecting;
    const lost = () => {
      // Only this connection's own loss; the locks went with it: take the instance's name again soon.
      if (this.#client !== connecting) return;
      this.#client = undefined;
      client.end().catch(() => undefined);
      if (!this.#closed) setTimeout(() => void this.#connection().catch(() => undefined), RELISTEN_MS).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    connecting.catch(lost);
    return connecting;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const client = await this.#client?.catch(() => undefined);
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}

/** The text whose hash names a running instance's lock. */
function instanceKey(instance: string): string {
  return `repohost-instance:${instance}`;
}

/** The channel of `ChangeNotifications`. */
const CHANGES_CHANNEL = 'repohost_changes';
/** How long to wait before listening again after the connection dropped. */
const RELISTEN_MS = 1000;

/**
 * News of changes between instances: `NOTIFY` on one channel, each instance `LISTEN`ing on a connection of its own.
 * An instance ignores its own news. When that connection is made (at first, and again after it dropped) every
 * follower forgets everything, since announcements may have been missed meanwhile.
 */
export class ChangeNotifications implements ChangeFeed {
  readonly #instance = randomUUID();
  readonly #followers: Array<{ changed: (key: string) => void; reset: () => void }> = [];
  #client: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
  ) {}

  announce(key: string): void {
    if (this.#closed) return;
    this.pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, `${this.#instance} ${key}`]).catch(() => undefined);
  }

  follow(changed: (key: string) => void, reset: () => void): void {
    this.#followers.push({ changed, reset });
  }

  /** Starts listening; resolves once the first connection listens (or failed, then it tries again in the background). */
  async listen(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client({ connectionString: this.url });
    const again = () => {
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => undefined);
      if (!this.#closed) this.#retry = setTimeout(() => void this.listen(), RELISTEN_MS).unref();
    };
    this.#client = client;
    client.on('error', again);
    client.on('end', again);
    client.on('notification', (message) => {
      if (message.channel !== CHANGES_CHANNEL || !message.payload) return;
      const space = message.payload.indexOf(' ');
      if (space === -1 || message.payload.slice(0, space) === this.#instance) return;
      const key = message.payload.slice(space + 1);
      for (const follower of this.#followers) follower.changed(key);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      for (const follower of this.#followers) follower.reset();
    } catch {
      again();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }
}
