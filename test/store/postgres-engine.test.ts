import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { NameReservations } from '../../lib/services/name-reservations.js';
import { AdvisoryLocks, NAMED_STATEMENTS, PostgresStore } from '../../lib/store/postgres/engine.js';
import { POSTGRES_MIGRATIONS, POSTGRES_SCHEMA_VERSION } from '../../lib/store/postgres/migrations.js';
import { recordedRefs } from '../../lib/store/queries/refs.js';
import type { RepositoryRow } from '../../lib/store/queries/repositories.js';
import { insertUser } from '../../lib/store/queries/users.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openHostCore, type HostCore } from '../../lib/host.js';
import { Snapshots } from '../../lib/harness/snapshots.js';
import { newRepo, newUser } from '../helpers/api.js';
import { Clone } from '../helpers/clone.js';
import { bearer, cookie, http, register, startHost, tempDir } from '../helpers/host.js';

const run = promisify(execFile);

// Issue 19: the PostgreSQL engine behind the store's one interface. Several stores on one database stand for several
// instances: writes run one at a time across them, what a write sets going follows its COMMIT, and the harness's
// snapshots work on it too. The PostgreSQL pass (`npm run test:postgres`) runs the API suites on it besides.

describe('the PostgreSQL engine (issue 19)', () => {
  let server: PostgresServer;

  beforeAll(async () => {
    server = await startPostgres();
  });

  afterAll(async () => {
    await server?.stop();
  });

  /**
   * Two instances on a fresh database and one data folder, with the account `owner` and a seeded repository `r`, for
   * `run`; closed and removed after.
   */
  async function withTwoInstances(run: (one: HostCore, two: HostCore, repo: RepositoryRow) => Promise<void>): Promise<void> {
    const url = await server.createDatabase();
    const data = await tempDir();
    const open = () => openHostCore({ databaseUrl: url, dataDir: data.path, bcryptCost: 4 });
    const [one, two] = [await open(), await open()];
    try {
      await one.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      await one.admin.seedRepo({ owner: 'owner', name: 'r' });
      await run(one, two, (await one.ctx.repos.findByName('owner', 'r'))!);
    } finally {
      await one.close();
      await two.close();
      await data.cleanup();
    }
  }

  it('creates the newest schema once, even when several instances start together', async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all([PostgresStore.open(url), PostgresStore.open(url), PostgresStore.open(url)]);
    try {
      expect(await stores[0]!.all('SELECT version FROM schema_version')).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
      // Integers come back as numbers, as from SQLite.
      expect(await stores[1]!.get('SELECT COUNT(*) AS n, SUM(version) AS s FROM schema_version')).toEqual({ n: 1, s: POSTGRES_SCHEMA_VERSION });
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it('runs writes one at a time across instances: read-then-write never loses an update', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await PostgresStore.open(url), await PostgresStore.open(url)];
    try {
      await a.write(async (tx) => await tx.run("INSERT INTO id_sequences (name, next_id) VALUES ('counter', 0)"));
      const bump = (store: PostgresStore) =>
        store.write(async (tx) => {
          const { next_id } = (await tx.get<{ next_id: number }>("SELECT next_id FROM id_sequences WHERE name = 'counter'"))!;
          await tx.run("UPDATE id_sequences SET next_id = ? WHERE name = 'counter'", [next_id + 1]);
        });
      await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? a : b)));
      expect(await b.get("SELECT next_id FROM id_sequences WHERE name = 'counter'")).toEqual({ next_id: 40 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps connections for reads while its writes wait for another instance', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await PostgresStore.open(url, { poolSize: 3 }), await PostgresStore.open(url)];
    try {
      await a.write(async (tx) => await tx.run("INSERT INTO id_sequences (name, next_id) VALUES ('counter', 0)"));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let holding!: () => void;
      const holds = new Promise<void>((resolve) => (holding = resolve));
      // Another instance's write holds the write lock until released.
      const other = b.write(async (tx) => {
        await tx.run("UPDATE id_sequences SET next_id = next_id + 100 WHERE name = 'counter'");
        holding();
        await held;
      });
      await holds;
      // More writes than the pool has connections, all waiting for that lock.
      const writes = Array.from({ length: 6 }, () => a.write(async (tx) => await tx.run("UPDATE id_sequences SET next_id = next_id + 1 WHERE name = 'counter'")));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const read = a.get<{ next_id: number }>("SELECT next_id FROM id_sequences WHERE name = 'counter'");
      const timeout = new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 3000));
      expect(await Promise.race([read, timeout])).toEqual({ next_id: 0 });
      release();
      await other;
      await Promise.all(writes);
      expect(await a.get("SELECT next_id FROM id_sequences WHERE name = 'counter'")).toEqual({ next_id: 106 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('sets going what a write asked for only after COMMIT, and nothing of a write that failed', async () => {
    const store = await PostgresStore.open(await server.createDatabase());
    try {
      const told: string[] = [];
      await store.write(async (tx) => {
        tx.onDurable(() => told.push('committed'));
        await insertUser(tx, { username: 'ann', email: 'ann@example.com', fullName: '', passwordHash: 'x', isAdmin: false, now: '2026-01-01T00:00:00.000Z' });
        expect(told).toEqual([]);
      });
      const failing = store.write(async (tx) => {
        tx.onDurable(() => told.push('rolled back'));
        await insertUser(tx, { username: 'bea', email: 'bea@example.com', fullName: '', passwordHash: 'x', isAdmin: false, now: '2026-01-01T00:00:00.000Z' });
        throw new Error('changed my mind');
      });
      await expect(failing).rejects.toThrow('changed my mind');
      expect(told).toEqual(['committed']);
      expect((await store.all<{ username: string }>('SELECT username FROM users')).map((row) => row.username)).toEqual(['ann']);
    } finally {
      await store.close();
    }
  });

  it('takes back what it exported: every row, with ids going on from the highest', async () => {
    const store = await PostgresStore.open(await server.createDatabase());
    try {
      const add = (username: string) =>
        store.write(async (tx) => await insertUser(tx, { username, email: `${username}@example.com`, fullName: '', passwordHash: 'x', isAdmin: false, now: '2026-01-01T00:00:00.000Z' }));
      await add('ann');
      await add('bea');
      const saved = await store.exportBytes();
      await add('cid');
      await store.replaceWith(saved);
      expect((await store.all<{ username: string }>('SELECT username FROM users ORDER BY id')).map((row) => row.username)).toEqual(['ann', 'bea']);
      const dan = await add('dan');
      expect(dan.id).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('serves a host: a NUL in text is kept as U+FFFD, an id no column can hold is simply not found', async () => {
    const data = await tempDir();
    const host = await startHost({ databaseUrl: await server.createDatabase(), dataDir: data.path });
    try {
      await host.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      const token = await host.admin.createToken('owner');
      await host.admin.createRepo({ owner: 'owner', name: 'r' });
      const created = await http(`${host.url}/api/v1/repos/owner/r/issues`, { headers: bearer(token), json: { title: 'with a NUL', body: 'a\u0000b' } });
      expect(created.status).toBe(200);
      expect(created.json.body).toBe('a\uFFFDb');
      expect((await http(`${host.url}/api/v1/repos/owner/r/issues/3000000000`)).status).toBe(404);
      expect((await http(`${host.url}/api/v3/repos/owner/r/issues/3000000000`)).status).toBe(404);
    } finally {
      await host.close();
      await data.cleanup();
    }
  });

  it('sorts text by bytes as sql.js does on a database made with an ICU locale, upgraded from version 17 (migration 18)', async () => {
    // en-US sorts "aé" before "af" (and ignores case and punctuation first); SQLite, and so repohost, by code point.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const name = `icu_${process.pid}`;
    try {
      await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
    } finally {
      await admin.end();
    }
    const url = `${server.url.replace(/\/[^/]*$/, '')}/${name}`;
    const older = new pg.Client({ connectionString: url });
    await older.connect();
    try {
      // The database as the release before made it: every step up to 17.
      await older.query('BEGIN');
      await older.query('CREATE TABLE schema_version (version INTEGER NOT NULL)');
      await older.query('INSERT INTO schema_version (version) VALUES (17)');
      for (const statement of POSTGRES_MIGRATIONS.filter((step) => step.version <= 17).flatMap((step) => step.statements)) await older.query(statement);
      await older.query('COMMIT');
      expect((await older.query("SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' AND collation_name IS NULL")).rows[0].n).toBeGreaterThan(100);
    } finally {
      await older.end();
    }
    const data = await tempDir();
    const host = await startHost({ databaseUrl: url, dataDir: data.path });
    try {
      await host.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      const token = await host.admin.createToken('owner');
      await host.admin.createRepo({ owner: 'owner', name: 'r' });
      const names = ['ab', 'a-c', 'a c', 'aé', 'af', 'B', '_x', 'Z'];
      for (const label of names) expect((await http(`${host.url}/api/v3/repos/owner/r/labels`, { headers: bearer(token), json: { name: label, color: 'ffffff' } })).status).toBe(201);
      const listed = await http(`${host.url}/api/v3/repos/owner/r/labels`, { headers: bearer(token) });
      const byBytes = [...names].sort((a, b) => Buffer.compare(Buffer.from(a.toLowerCase()), Buffer.from(b.toLowerCase())));
      expect(byBytes).toEqual(['_x', 'a c', 'a-c', 'ab', 'af', 'aé', 'B', 'Z']);
      expect(listed.json.map((label: { name: string }) => label.name)).toEqual(byBytes);
    } finally {
      await host.close();
      await data.cleanup();
    }
  });

  it('holds repository names across instances: reserved here is taken there, shared by merges alike', async () => {
    const url = await server.createDatabase();
    const [locksA, locksB] = [new AdvisoryLocks(url), new AdvisoryLocks(url)];
    const [a, b] = [new NameReservations(locksA), new NameReservations(locksB)];
    try {
      const release = await a.reserve(1, ['Project'], 'busy');
      await expect(b.reserve(1, ['project', 'other'], 'busy')).rejects.toMatchObject({ status: 409, message: 'busy' });
      await expect(b.share(1, 'PROJECT', 'busy')).rejects.toMatchObject({ status: 409 });
      // Another owner's name of the same text is another name.
      (await b.reserve(2, ['project'], 'busy'))();
      // Nothing of the refused reservation was kept: 'other' is free.
      (await b.reserve(1, ['other'], 'busy'))();
      // A release resolves once other instances may take the name: at once, not after a while.
      await release();
      const merging = [await a.share(1, 'project', 'busy'), await b.share(1, 'project', 'busy')];
      await expect(a.reserve(1, ['project'], 'busy')).rejects.toMatchObject({ status: 409 });
      await expect(b.reserve(1, ['project'], 'busy')).rejects.toMatchObject({ status: 409 });
      for (const done of merging) await done();
      await (await b.reserve(1, ['project'], 'busy'))();
    } finally {
      await locksA.close();
      await locksB.close();
    }
  });

  it('goes on past the identity\'s last id when it migrates to ids never given twice (schema 27, issue 38)', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    try {
      const before = await startHost({ databaseUrl: url, dataDir: data.path });
      const alice = await newUser(before, 'alice');
      for (const name of ['one', 'two', 'three']) await newRepo(before, alice, name);
      const three = (await http(`${before.url}/api/v1/repos/alice/three`)).json.id as number;
      expect((await http(`${before.url}/api/v3/repos/alice/three`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
      await before.close();
      // Taken back to what version 26 left, with the newest repository deleted: MAX(id) is two, the identity gave three.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query("DELETE FROM id_sequences WHERE name IN ('repository', 'ssh_key', 'installation')");
        await client.query('ALTER TABLE repositories DROP COLUMN pushed_at');
        await client.query('DROP INDEX users_by_email');
        await client.query('ALTER TABLE users DROP COLUMN email_verified');
        // Before step 27 the identity gave the ids: it had given the deleted one's.
        await client.query("SELECT setval(pg_get_serial_sequence('repositories', 'id'), $1)", [three]);
        await client.query('UPDATE schema_version SET version = 26');
      } finally {
        await client.end();
      }
      const after = await startHost({ databaseUrl: url, dataDir: data.path });
      try {
        await newRepo(after, alice, 'four');
        expect((await http(`${after.url}/api/v1/repos/alice/four`)).json.id).toBe(three + 1);
      } finally {
        await after.close();
      }
    } finally {
      await data.cleanup();
    }
  });

  it('runs one query at a time on its lock connection, however many callers share it (pg 9 refuses more; issue 38)', async () => {
    const url = await server.createDatabase();
    const locks = new AdvisoryLocks(url);
    const query = pg.Client.prototype.query;
    const running = new Map<object, number>();
    let most = 0;
    pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
      running.set(this, (running.get(this) ?? 0) + 1);
      most = Math.max(most, running.get(this)!);
      const result = (query as (...given: unknown[]) => unknown).apply(this, args);
      void Promise.resolve(result).finally(() => running.set(this, running.get(this)! - 1)).catch(() => undefined);
      return result;
    } as typeof query;
    try {
      await locks.hold();
      const releases = await Promise.all(Array.from({ length: 20 }, (_, index) => locks.tryLock([[7, `name-${index}`], [7, `other-${index}`]], 'exclusive')));
      expect(releases.every((release) => release !== undefined)).toBe(true);
      await Promise.all([...releases.map((release) => release!()), locks.isRunning(randomUUID()), locks.isRunning(randomUUID())]);
      expect(most).toBe(1);
    } finally {
      pg.Client.prototype.query = query;
      await locks.close();
    }
  });

  it('refuses a repository name another instance is creating (a slow import holds it), and frees it when that fails', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const held: Socket[] = [];
    const silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const [one, two] = [await startHost({ databaseUrl: url, dataDir: data.path }), await startHost({ databaseUrl: url, dataDir: data.path })];
    try {
      const session = await register(one, 'owner');
      const token = await one.admin.createToken('owner');
      const port = (silent.address() as { port: number }).port;
      // An import (the new-repository form) holds its name until the clone is done.
      const importing = http(`${one.url}/new`, { headers: cookie(session), form: { name: 'mirror', clone_url: `http://127.0.0.1:${port}/x.git`, no_redirect: '1' } });
      await expect.poll(() => held.length, { timeout: 10_000 }).toBeGreaterThan(0);
      const create = (host: typeof one, name: string) => http(`${host.url}/new`, { headers: cookie(session), form: { name, clone_url: '', no_redirect: '1' } });
      const clash = await create(two, 'Mirror');
      expect(clash.status).toBe(409);
      expect(clash.text).toMatch(/already exists/);
      for (const socket of held) socket.destroy();
      expect((await importing).status).toBeGreaterThanOrEqual(400);
      const created = await create(two, 'mirror');
      expect([created.status, created.text]).toEqual([200, 'ok']);
      expect((await http(`${one.url}/api/v3/repos/owner/mirror`, { headers: bearer(token) })).status).toBe(200);
    } finally {
      await one.close();
      await two.close();
      silent.close();
      await data.cleanup();
    }
  });

  it('sends each delivery of a hook once, in order, whichever instance recorded it', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const received: Array<{ guid: string; number: number }> = [];
    const receiver = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        if (request.headers['x-github-event'] === 'issues') received.push({ guid: String(request.headers['x-github-delivery']), number: JSON.parse(body).issue.number });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const options = { databaseUrl: url, dataDir: data.path, allowLocalNetwork: true };
    const hosts = [await startHost(options), await startHost(options)];
    try {
      await hosts[0]!.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      const token = await hosts[0]!.admin.createToken('owner');
      await hosts[0]!.admin.createRepo({ owner: 'owner', name: 'r' });
      const port = (receiver.address() as { port: number }).port;
      const hook = await http(`${hosts[1]!.url}/api/v3/repos/owner/r/hooks`, { headers: bearer(token), json: { config: { url: `http://127.0.0.1:${port}/`, content_type: 'json' }, events: ['issues'] } });
      expect(hook.status).toBe(201);
      const created = await Promise.all(
        Array.from({ length: 12 }, (_, index) => http(`${hosts[index % 2]!.url}/api/v1/repos/owner/r/issues`, { headers: bearer(token), json: { title: `issue ${index}` } })),
      );
      expect(created.map((result) => result.status)).toEqual(Array(12).fill(200));
      await expect.poll(() => received.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(12);
      // Nothing sent twice (two senders would), and in the order of the events.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(new Set(received.map((delivery) => delivery.guid)).size).toBe(received.length);
      expect(received.map((delivery) => delivery.number)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    } finally {
      for (const host of hosts) await host.close();
      receiver.close();
      await data.cleanup();
    }
  });

  it('tells the other instances when refs change, so a file read through one follows a push through another', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const work = await tempDir();
    const hosts = [await startHost({ databaseUrl: url, dataDir: data.path }), await startHost({ databaseUrl: url, dataDir: data.path })];
    try {
      const owner = await newUser(hosts[0]!, 'owner');
      await newRepo(hosts[0]!, owner, 'r');
      const clone = await Clone.of(hosts[0]!, owner, 'r', join(work.path, 'clone'), work.path);
      const raw = async () => (await http(`${hosts[1]!.url}/owner/r/raw/branch/main/file.txt`)).text;
      await clone.commit('one', { 'file.txt': 'one\n' });
      await clone.git('push', '-q', 'origin', 'main');
      // Read (and cached) through the second instance, then moved through the first.
      expect(await raw()).toBe('one\n');
      await clone.commit('two', { 'file.txt': 'two\n' });
      await clone.git('push', '-q', 'origin', 'main');
      await expect.poll(raw, { timeout: 5000 }).toBe('two\n');
    } finally {
      for (const host of hosts) await host.close();
      await data.cleanup();
      await work.cleanup();
    }
  });

  it('tells the other instances when a repository goes, so none shows its commits under a new one of its name', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const hosts = [await startHost({ databaseUrl: url, dataDir: data.path }), await startHost({ databaseUrl: url, dataDir: data.path })];
    try {
      const owner = await newUser(hosts[0]!, 'owner');
      await newRepo(hosts[0]!, owner, 'secret', 'private');
      const written = await http(`${hosts[0]!.url}/api/v3/repos/owner/secret/contents/key.txt`, { method: 'PUT', headers: bearer(owner.token), json: { message: 'A secret commit', content: Buffer.from('k').toString('base64') } });
      const sha = written.json.commit.sha as string;
      // The second instance reads (and keeps) the commit page; the first deletes the repository and makes a public one.
      expect((await http(`${hosts[1]!.url}/owner/secret/commit/${sha}`, { headers: bearer(owner.token) })).text).toContain('A secret commit');
      expect((await http(`${hosts[0]!.url}/api/v3/repos/owner/secret`, { method: 'DELETE', headers: bearer(owner.token) })).status).toBe(204);
      await newRepo(hosts[0]!, owner, 'secret', 'public');
      await expect.poll(async () => (await http(`${hosts[1]!.url}/owner/secret/commit/${sha}`)).status, { timeout: 5000 }).toBe(404);
    } finally {
      for (const host of hosts) await host.close();
      await data.cleanup();
    }
  });

  it('reconciles at start only what a stopped instance left, never the refs a running one is moving', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const open = () => openHostCore({ databaseUrl: url, dataDir: data.path, bcryptCost: 4 });
    const running = await open();
    let later: HostCore | undefined;
    try {
      await running.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      await running.admin.seedRepo({ owner: 'owner', name: 'r' });
      const repo = (await running.ctx.repos.findByName('owner', 'r'))!;
      // The running instance is about to move refs (its intent is on record) and git moves one.
      await running.ctx.refUpdates.intend(repo);
      const gitDir = running.ctx.git.pathOf('owner', 'r');
      const main = (await run('git', ['--git-dir', gitDir, 'rev-parse', 'refs/heads/main'])).stdout.trim();
      await run('git', ['--git-dir', gitDir, 'update-ref', 'refs/heads/moving', main]);
      later = await open();
      expect(await later.ctx.refUpdates.reconcilePending()).toEqual([]);
      await later.close();
      // Stopped without recording it: the next instance to start records what it left.
      await running.close();
      later = await open();
      expect(await later.ctx.refUpdates.reconcilePending()).toEqual([{ repo: 'owner/r', changes: [{ ref: 'refs/heads/moving', before: '0'.repeat(40), after: main }] }]);
    } finally {
      await running.close();
      await later?.close();
      await data.cleanup();
    }
  });

  it("settles only the intents of instances that stopped when comparing, and compares nothing while a running one's stands", async () => {
    await withTwoInstances(async (one, two, repo) => {
      // A stopped instance's intent, and one of instance two, which is moving refs right now.
      await one.ctx.store.write(async (tx) => await tx.run("INSERT INTO ref_intents (repo_id, created_at, holder) VALUES (?, '2026-01-01T00:00:00.000Z', 'stopped-instance')", [repo.id]));
      const moving = await two.ctx.refUpdates.intend(repo);
      const holders = async () => (await one.ctx.store.all<{ holder: string }>('SELECT holder FROM ref_intents WHERE repo_id = ? ORDER BY holder', [repo.id])).map((row) => row.holder);
      // While instance two may be moving refs, nothing is compared (it records its own changes).
      await expect(one.ctx.refUpdates.reconcile(repo)).rejects.toThrow('moving through another instance');
      expect(await holders()).toEqual([two.ctx.store.sharedLocks!.instance, 'stopped-instance'].sort());
      // Once it recorded them, the stopped instance's intent is settled by the comparison.
      await two.ctx.refUpdates.recordChanges(repo, [], repo.default_branch, undefined, moving);
      await one.ctx.refUpdates.reconcile(repo);
      expect(await holders()).toEqual([]);
    });
  });

  it("never records another instance's ref changes as its own when comparing while that instance moves refs", async () => {
    await withTwoInstances(async (one, two, repo) => {
      const owner = (await two.ctx.users.byName('owner'))!;
      const tip = (await recordedRefs(one.ctx.store, repo.id)).get(`refs/heads/${repo.default_branch}`)!;
      const created: string[] = [];
      const reconciled: string[] = [];
      for (const core of [one, two]) core.ctx.events.on('create', (payload) => void ((payload as { repohost_reconciled?: boolean }).repohost_reconciled ? reconciled : created).push(payload.ref));
      // Instance two creates branches while instance one compares the repository again and again.
      let comparing = true;
      const comparisons = (async () => {
        let compared = 0;
        while (comparing) {
          await one.ctx.refUpdates.reconcile(repo).then(() => (compared += 1), (error: Error) => expect(error.message).toContain('moving through another instance'));
        }
        return compared;
      })();
      for (let round = 0; round < 40; round++) await two.ctx.refUpdates.apply(repo, owner, { ref: `refs/heads/b${round}`, after: tip, mustExist: false });
      comparing = false;
      expect(await comparisons).toBeGreaterThan(0);
      await one.ctx.refUpdates.reconcile(repo);
      const onDisk = Object.fromEntries(await one.ctx.git.refsOf('owner', 'r'));
      expect(Object.fromEntries(await recordedRefs(one.ctx.store, repo.id))).toEqual(onDisk);
      expect(reconciled).toEqual([]);
      expect(created.sort()).toEqual(Array.from({ length: 40 }, (_, round) => `b${round}`).sort());
    });
  });

  it('keeps the harness snapshots of instances sharing a data folder apart, and a restore through one is seen through the other', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const open = async () => {
      const core = await openHostCore({ databaseUrl: url, dataDir: data.path, bcryptCost: 4 });
      const snapshots = new Snapshots(core.ctx);
      await snapshots.open();
      return { core, snapshots };
    };
    const one = await open();
    let two: Awaited<ReturnType<typeof open>> | undefined;
    try {
      await one.core.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      await one.core.admin.seedRepo({ owner: 'owner', name: 'r' });
      const repo = (await one.core.ctx.repos.findByName('owner', 'r'))!;
      const before = Object.fromEntries(await one.core.ctx.git.refsOf('owner', 'r'));
      const snapshot = await one.snapshots.take();
      // A second instance starts on the same folder after the snapshot was taken, and adds a branch.
      two = await open();
      const owner = (await two.core.ctx.users.byName('owner'))!;
      await two.core.ctx.refUpdates.apply(repo, owner, { ref: 'refs/heads/extra', after: before[`refs/heads/${repo.default_branch}`]!, mustExist: false });
      const branches = Object.keys(before).filter((ref) => ref.startsWith('refs/heads/')).length;
      expect(await two.core.ctx.git.countBranches('owner', 'r')).toBe(branches + 1);
      await one.snapshots.restore(snapshot);
      // The other instance forgets the refs it knew, and the repository's files came back whole.
      await expect.poll(async () => await two!.core.ctx.git.countBranches('owner', 'r')).toBe(branches);
      expect(Object.fromEntries(await one.core.ctx.git.refsOf('owner', 'r'))).toEqual(before);
      expect(await one.core.ctx.git.countCommits('owner', 'r', repo.default_branch)).toBeGreaterThan(0);
    } finally {
      for (const instance of [two, one]) {
        await instance?.snapshots.close();
        await instance?.core.close();
      }
      await data.cleanup();
    }
  });

  it('opens at most databasePoolSize connections for requests, besides its lock and notification connections', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const host = await startHost({ databaseUrl: url, dataDir: data.path, databasePoolSize: 2 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await host.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      // Every request reads the users table (each another account's), which this transaction locks: each holds a
      // connection while it waits.
      await client.query('BEGIN');
      await client.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      const answers = Promise.all(Array.from({ length: 12 }, (_, i) => http(`${host.url}/api/v1/users/${i === 0 ? 'owner' : `nobody-${i}`}`)));
      // The server's activity as it is now: within a transaction PostgreSQL keeps the first view it read.
      const others = async () => {
        await client.query('SELECT pg_stat_clear_snapshot()');
        return Number((await client.query("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()")).rows[0].n);
      };
      await expect.poll(others, { timeout: 5000 }).toBe(4);
      // Still four a moment later: the waiting requests queue for the pool's two connections (and the lock's and the
      // notifications' own), they do not open more.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await others()).toBe(4);
      await client.query('ROLLBACK');
      expect((await answers).map((answer) => answer.status)).toEqual([200, ...Array(11).fill(404)]);
    } finally {
      await client.end();
      await host.close();
      await data.cleanup();
    }
    await expect(startHost({ databasePoolSize: 2, dbPath: ':memory:' })).rejects.toThrow('option databasePoolSize needs databaseUrl');
    await expect(startHost({ databaseUrl: url, dataDir: data.path, databasePoolSize: 0 })).rejects.toThrow('option databasePoolSize must be an integer >= 1');
  });

  it('prepares each statement once a connection: later runs only bind and run it, and only so many are kept', async () => {
    const store = await PostgresStore.open(await server.createDatabase(), { poolSize: 1 });
    try {
      const sql = "SELECT COUNT(*) AS n FROM users WHERE username_lower = ? AND created_at > ?";
      for (let i = 0; i < 3; i++) expect(await store.get(sql, [`nobody-${i}`, '2000-01-01'])).toEqual({ n: 0 });
      // The pool's one connection: the statements it has prepared, and how often each was planned for a run.
      const kept = () => store.all<{ statement: string; runs: number }>('SELECT statement, generic_plans + custom_plans AS runs FROM pg_prepared_statements');
      expect((await kept()).filter((row) => row.statement.includes('username_lower = $1 AND created_at > $2'))).toEqual([
        { statement: 'SELECT COUNT(*) AS n FROM users WHERE username_lower = $1 AND created_at > $2', runs: 3 },
      ]);
      // Statements past the bound run as before, unprepared: a connection never holds more than the bound.
      for (let i = 0; i < NAMED_STATEMENTS + 50; i++) expect(await store.get(`SELECT ${i} AS n`)).toEqual({ n: i });
      expect((await kept()).length).toBeLessThanOrEqual(NAMED_STATEMENTS);
    } finally {
      await store.close();
    }
  });

  it('counts failed sign-ins through every instance together', async () => {
    const url = await server.createDatabase();
    const data = await tempDir();
    const open = () => openHostCore({ databaseUrl: url, dataDir: data.path, bcryptCost: 4, maxFailedLoginsPerAddress: 4, maxFailedLoginsPerAccount: 100 });
    const [one, two] = [await open(), await open()];
    try {
      await one.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      // Half of the guesses through each instance: together they use up the address's failures on both.
      for (const core of [one, two, one, two]) expect(await core.ctx.users.authenticate('owner', 'wrong guess', '192.0.2.7')).toBeUndefined();
      for (const core of [one, two]) await expect.poll(async () => await core.ctx.users.authenticate('owner', 'password123', '192.0.2.7').then(() => 'signed in', (error: Error) => error.message)).toMatch(/^Too many failed sign-in attempts/);
      // Another address is not held back, and a clear (a harness restore) reaches the other instance too.
      expect(await two.ctx.users.authenticate('owner', 'password123', '192.0.2.8')).toMatchObject({ username: 'owner' });
      one.ctx.users.forgetFailedLogins();
      await expect.poll(async () => await two.ctx.users.authenticate('owner', 'password123', '192.0.2.7').then((user) => user?.username)).toBe('owner');
    } finally {
      await one.close();
      await two.close();
      await data.cleanup();
    }
  });

  it('compares a repository again later when another instance kept it from comparing', async () => {
    await withTwoInstances(async (one, two, repo) => {
      const tip = (await recordedRefs(one.ctx.store, repo.id)).get(`refs/heads/${repo.default_branch}`)!;
      // Instance two is moving refs; instance one moves a branch it then cannot record.
      const moving = await two.ctx.refUpdates.intend(repo);
      const lost = await one.ctx.refUpdates.intend(repo);
      await run('git', ['--git-dir', one.ctx.git.pathOf('owner', 'r'), 'update-ref', 'refs/heads/lost', tip]);
      await lost.close(false);
      expect((await recordedRefs(one.ctx.store, repo.id)).has('refs/heads/lost')).toBe(false);
      // Once two is done, one compares again by itself and records the branch.
      await two.ctx.refUpdates.recordChanges(repo, [], repo.default_branch, undefined, moving);
      await expect.poll(async () => (await recordedRefs(one.ctx.store, repo.id)).get('refs/heads/lost'), { timeout: 10_000 }).toBe(tip);
    });
  });
});
