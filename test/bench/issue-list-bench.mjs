// Issue list benchmark (issue 18): a page of 30 issues through `/api/v1` and `/api/v3` against a bare node:http server
// running one sql.js query for the same 30 rows, on the same database file, each server in a thread of its own,
// alternating rounds on one keep-alive connection; the same again with another `Accept` each request, so that no answer
// kept in memory (AnswerCache) serves it. Besides the rate, how long each server's thread was busy a request (its event
// loop's utilization): the client reads every byte in the same process, so a larger answer costs the rate more than
// the server. Run with `npm run bench:issue-list` (builds first).
// Options: BENCH_ISSUES (default 1000), BENCH_REQUESTS (per round and server, default 1000), BENCH_ROUNDS (default 5),
// BENCH_WARMUP (requests to each server before measuring, default 5000). Last, the same client against a bare server
// answering repohost's own bytes and headers of both lists: how much longer a `/api/v3` request takes for its bytes alone.
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Pool, request } from 'undici';

const ISSUES = Number(process.env.BENCH_ISSUES ?? 1000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5000);
const PAGE_SQL = `SELECT i.id, i.number, i.title, i.body, i.status, u.username AS author, i.created_at, i.updated_at, i.closed_at
  FROM issues i JOIN users u ON u.id = i.author_id WHERE i.repo_id = ? AND i.status = 'open' ORDER BY i.number DESC LIMIT 30`;

/** The baseline: node:http and sql.js, one prepared query, rows read by position, JSON out. */
async function bareServer(dbPath) {
  const { default: initSqlJs } = await import('sql.js');
  const SQL = await initSqlJs();
  const db = new SQL.Database(await readFile(dbPath));
  const repoId = db.exec("SELECT id FROM repositories WHERE name = 'big'")[0].values[0][0];
  const statement = db.prepare(PAGE_SQL);
  const server = createServer((_request, response) => {
    statement.bind([repoId]);
    const columns = statement.getColumnNames();
    const rows = [];
    while (statement.step()) {
      const values = statement.get();
      const row = {};
      for (let i = 0; i < columns.length; i++) row[columns[i]] = values[i];
      rows.push(row);
    }
    statement.reset();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(rows));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

/**
 * What the answers' bytes alone cost: a bare node:http server answering repohost's own bytes and headers of both lists
 * (taken from it once), doing nothing else. GitHub's issue objects are 6–7 times the bytes of the spec's, and the
 * client reads each of them: the time a `/api/v3` request takes more than a `/api/v1` one here is the bytes' share,
 * which no server avoids while it answers GitHub's objects.
 */
async function fixedServer(answers) {
  const server = createServer((request, response) => {
    const answer = answers[request.url];
    response.writeHead(200, answer.headers);
    response.end(Buffer.from(answer.body, 'base64'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${server.address().port}`;
}

async function repohostServer(dbPath) {
  const { createRepoHost } = await import('../../dist/bundle/index.js');
  const host = await createRepoHost({ port: 0, dbPath, bcryptCost: 4 });
  return host.url;
}

if (!isMainThread) {
  const url =
    workerData.kind === 'bare' ? await bareServer(workerData.dbPath) : workerData.kind === 'fixed' ? await fixedServer(workerData.answers) : await repohostServer(workerData.dbPath);
  parentPort.on('message', () => parentPort.postMessage(performance.eventLoopUtilization().active));
  parentPort.postMessage(url);
} else {
  const dir = await mkdtemp(join(tmpdir(), 'repohost-issue-list-'));
  const workers = [];
  try {
    const dbPath = join(dir, 'lists.db');
    const { createRepoHost } = await import('../../dist/bundle/index.js');
    const { Store } = await import('../../dist/store/database.js');
    const host = await createRepoHost({ dbPath, bcryptCost: 4 });
    await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
    await host.admin.createRepo({ owner: 'bench', name: 'big' });
    await host.close();
    const store = await Store.open(dbPath, { snapshotThresholdBytes: 1 << 30 });
    const { repoId, userId } = await store.get("SELECT r.id AS repoId, u.id AS userId FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.name = 'big'");
    await store.write(async (tx) => {
      for (let number = 1; number <= ISSUES; number++) {
        const now = new Date(1_700_000_000_000 + number * 1000).toISOString();
        const status = number % 3 === 0 ? 'closed' : 'open';
        await tx.run('INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [repoId, number, userId, `Issue ${number}`, `Body of issue ${number}`, status, now, now]);
      }
      // Kept counts follow the rows as the write functions keep them.
      await tx.run("DELETE FROM list_counts WHERE repo_id = ? AND kind = 'issue'", [repoId]);
      await tx.run("INSERT INTO list_counts (repo_id, kind, status, n) SELECT repo_id, 'issue', status, COUNT(*) FROM issues WHERE repo_id = ? GROUP BY repo_id, status", [repoId]);
      await tx.run('UPDATE repositories SET next_number = ? WHERE id = ?', [ISSUES + 1, repoId]);
    });
    await store.close();

    const start = (kind, answers) =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: { kind, dbPath, answers } });
        workers.push(worker);
        worker.once('message', (url) => resolve({ url, worker }));
        worker.once('error', reject);
      });
    /** How long the server's thread has been busy so far, in ms (its event loop's utilization). */
    const busyOf = (worker) =>
      new Promise((resolve) => {
        worker.once('message', resolve);
        worker.postMessage('busy');
      });
    // The bare server reads the file as the host left it; the host then opens (and locks) it.
    const bare = await start('bare');
    const repohost = await start('repohost');
    // Cold: each request another `Accept` (which the answer's key names, and neither API reads but for body formats
    // this one does not ask for): never an answer kept from an earlier request, the work of a page after each change.
    const cold = (i) => ({ accept: `application/json; bench=${i}` });
    const V1_PATH = '/api/v1/repos/bench/big/issues?limit=30';
    const V3_PATH = '/api/v3/repos/bench/big/issues?per_page=30';
    // repohost's answers as they are, for the fixed server (the headers node:http sets itself left out).
    const answers = {};
    for (const path of [V1_PATH, V3_PATH]) {
      // Asked as the bench's client asks (no Accept-Encoding: the bytes as they are).
      const response = await request(`${repohost.url}${path}`);
      const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
      answers[path] = { headers, body: Buffer.from(await response.body.arrayBuffer()).toString('base64') };
    }
    const fixed = await start('fixed', answers);
    const targets = {
      bare: { server: bare, path: '/' },
      v1: { server: repohost, path: V1_PATH },
      v3: { server: repohost, path: V3_PATH },
      v1Cold: { server: repohost, path: V1_PATH, headers: cold },
      v3Cold: { server: repohost, path: V3_PATH, headers: cold },
      v1Fixed: { server: fixed, path: V1_PATH },
      v3Fixed: { server: fixed, path: V3_PATH },
    };
    for (const target of Object.values(targets)) target.pool = new Pool(target.server.url, { connections: 1 });
    const rate = {};
    const busy = {};
    for (const name of Object.keys(targets)) (rate[name] = []), (busy[name] = []);
    let requestNumber = 0;
    const run = async (name, count) => {
      const { pool, path, headers, server } = targets[name];
      const busyBefore = await busyOf(server.worker);
      const began = performance.now();
      for (let i = 0; i < count; i++) {
        const response = await pool.request({ path, method: 'GET', headers: headers?.(requestNumber++) });
        const text = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode} ${text.slice(0, 200)}`);
        if (i === 0 && JSON.parse(text).length !== 30) throw new Error(`${name}: not 30 rows`);
      }
      const elapsed = performance.now() - began;
      return { rate: (count * 1000) / elapsed, busy: ((await busyOf(server.worker)) - busyBefore) / count };
    };
    // Measured warm: repohost's request path is far more code than the baseline's, and V8 takes a few thousand
    // requests to optimize it (the first 3,000 ran at about half the speed of the next).
    for (const name of Object.keys(targets)) await run(name, WARMUP);
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? ['v3Fixed', 'v1Fixed', 'v3Cold', 'v1Cold', 'v3', 'v1', 'bare'] : ['bare', 'v1', 'v3', 'v1Cold', 'v3Cold', 'v1Fixed', 'v3Fixed'];
      for (const name of order) {
        const measured = await run(name, REQUESTS);
        rate[name].push(measured.rate);
        busy[name].push(measured.busy);
      }
    }
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const line = (label, name, base, target) =>
      console.log(
        `  ${label.padEnd(34)} ${median(rate[name]).toFixed(0).padStart(6)} req/s${base ? `  = ${(median(rate[name]) / median(rate[base])).toFixed(2)}x ${base}` : ''}${target ? `  (target ${target})` : ''}  [${Math.min(...rate[name]).toFixed(0)} .. ${Math.max(...rate[name]).toFixed(0)}]` +
          `; server busy ${median(busy[name]).toFixed(3)} ms a request${base ? ` = ${(median(busy[name]) / median(busy[base])).toFixed(2)}x` : ''}`,
      );
    console.log(`\nissue list, 30 of ${ISSUES} issues, ${REQUESTS} requests x ${ROUNDS} rounds each, one keep-alive connection (medians)`);
    line('bare node:http + sql.js, one query', 'bare');
    line('repohost /api/v1 issues', 'v1', 'bare', '>= 0.8x');
    line('repohost /api/v3 issues', 'v3', 'v1', '>= 0.83x, i.e. within 1.2x');
    console.log('  each request another Accept (no answer kept from an earlier request):');
    line('repohost /api/v1 issues, cold', 'v1Cold', 'bare');
    line('repohost /api/v3 issues, cold', 'v3Cold', 'v1Cold');
    console.log("  the bytes alone: a bare node:http server answering repohost's bytes and headers of each, doing nothing else:");
    line('fixed /api/v1 answer', 'v1Fixed');
    line('fixed /api/v3 answer', 'v3Fixed', 'v1Fixed');
    // The time a /api/v3 request takes more than a /api/v1 one (client and server), in repohost and for the bytes alone.
    const extra = (v3, v1) => (1000 / median(rate[v3]) - 1000 / median(rate[v1])).toFixed(3);
    console.log(`  a /api/v3 request takes ${extra('v3', 'v1')} ms more than a /api/v1 one through repohost, ${extra('v3Fixed', 'v1Fixed')} ms more for its bytes alone`);
    for (const { pool } of Object.values(targets)) await pool.close();
  } finally {
    for (const worker of workers) await worker.terminate();
    await rm(dir, { recursive: true, force: true });
  }
}
