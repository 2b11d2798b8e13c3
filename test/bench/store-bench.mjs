// Store benchmark: does the cost of a write grow with the size of the database?
// Median and p99 latency of issue creation over HTTP with a ~1 MB and a ~200 MB database (target: ratio
// <= 1.5), and issues per second with 8 concurrent clients. Run with `npm run bench:store` (builds first).
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { createRepoHost } from '../../dist/index.js';
import { Store } from '../../dist/store/database.js';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 400);
const WARMUP = 150;
const CONCURRENT_MS = Number(process.env.BENCH_CONCURRENT_MS ?? 3000);
const BIG_BYTES = Number(process.env.BENCH_BIG_MB ?? 200) * 1024 * 1024;
const FILLER_BODY = 'x'.repeat(900);

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (value) => value.toFixed(2).padStart(8);

/** A database with a user, a token and a repository, grown with filler issues to about `bytes`. */
async function prepare(dir, bytes) {
  const dbPath = join(dir, 'bench.db');
  const host = await createRepoHost({ dbPath, bcryptCost: 4 });
  await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
  const token = await host.admin.createToken('bench', 'bench');
  await host.admin.createRepo({ owner: 'bench', name: 'big' });
  await host.close();

  const started = process.hrtime.bigint();
  // Filler goes in through the Store (logged like any write) in big transactions, then one snapshot.
  const store = await Store.open(dbPath, { snapshotThresholdBytes: 1 << 30 });
  const { repoId, userId } = await store.get("SELECT r.id AS repoId, u.id AS userId FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.name = 'big'");
  let number = 0;
  while ((await databaseBytes(store)) < bytes) {
    const rows = Math.max(100, Math.min(20_000, Math.floor((bytes - (await databaseBytes(store))) / 1100)));
    await store.write(async (tx) => {
      for (let i = 0; i < rows; i++) {
        number += 1;
        const now = new Date(1_700_000_000_000 + number * 1000).toISOString();
        await tx.run(
          "INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'open', ?, ?)",
          [repoId, number, userId, `filler issue ${number}`, FILLER_BODY, now, now],
        );
      }
      await tx.run('UPDATE repositories SET next_number = ? WHERE id = ?', [number + 1, repoId]);
    });
  }
  await store.close(); // snapshot, fresh log
  const size = (await stat(dbPath)).size;
  return { dbPath, token, size, fillerIssues: number, buildMs: ms(started) };
}

async function createIssue(pool, token, title) {
  const response = await pool.request({
    path: '/api/v1/repos/bench/big/issues',
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ title, body: 'measured' }).toString(),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`issue creation answered ${response.statusCode}: ${text}`);
}

async function open(label, dbPath, token) {
  const started = process.hrtime.bigint();
  const host = await createRepoHost({ dbPath, bcryptCost: 4 });
  return { label, host, token, openMs: ms(started), pool: new Pool(host.url, { connections: 8 }), latencies: [] };
}

/** Sequential creations alternating between the two hosts, so JIT warm-up and disk noise hit both alike. */
async function sequential(targets) {
  for (let i = 0; i < WARMUP; i++) for (const t of targets) await createIssue(t.pool, t.token, `warmup ${i}`);
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const t of targets) {
      const started = process.hrtime.bigint();
      await createIssue(t.pool, t.token, `sequential ${i}`);
      t.latencies.push(ms(started));
    }
  }
  for (const t of targets) {
    t.latencies.sort((a, b) => a - b);
    t.median = percentile(t.latencies, 50);
    t.p99 = percentile(t.latencies, 99);
  }
}

/** The database's size in bytes (page count × page size). */
async function databaseBytes(store) {
  return (await store.get('SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()')).size;
}

async function concurrent(t) {
  let created = 0;
  const deadline = Date.now() + CONCURRENT_MS;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 8 }, async (_, client) => {
      for (let i = 0; Date.now() < deadline; i++) {
        await createIssue(t.pool, t.token, `client ${client} issue ${i}`);
        created += 1;
      }
    }),
  );
  t.perSecond = created / (ms(started) / 1000);
}

const root = await mkdtemp(join(tmpdir(), 'repohost-store-bench-'));
try {
  console.log(`store bench: ${SEQUENTIAL} sequential issue creations after ${WARMUP} warm-up, then 8 concurrent clients for ${CONCURRENT_MS} ms`);
  const small = await prepare(await mkdtemp(join(root, 'small-')), 1024 * 1024);
  const big = await prepare(await mkdtemp(join(root, 'big-')), BIG_BYTES);
  console.log(`databases: small ${(small.size / 1e6).toFixed(1)} MB (${small.fillerIssues} filler issues, built in ${small.buildMs.toFixed(0)} ms); big ${(big.size / 1e6).toFixed(1)} MB (${big.fillerIssues} filler issues, built in ${big.buildMs.toFixed(0)} ms)`);
  const results = [await open('small', small.dbPath, small.token), await open('big', big.dbPath, big.token)];
  try {
    await sequential(results);
    for (const t of results) await concurrent(t);
  } finally {
    for (const t of results) {
      await t.pool.close();
      await t.host.close();
    }
  }
  console.log('');
  console.log('database   open ms   median ms   p99 ms   issues/s (8 clients)');
  for (const r of results) console.log(`${r.label.padEnd(8)} ${fmt(r.openMs)}   ${fmt(r.median)}   ${fmt(r.p99)}   ${r.perSecond.toFixed(0).padStart(8)}`);
  // What a snapshot of the big database costs (it runs when the log passes its threshold, 64 MB by default, and
  // on close): export() blocks the event loop, the write and fsync do not.
  const store = await Store.open(big.dbPath, { snapshotThresholdBytes: 1 << 30 });
  await store.write(async (tx) => await tx.run("UPDATE repohost_meta SET value = value WHERE key = 'log_seq'"));
  const snapStarted = process.hrtime.bigint();
  let blockedMs = 0;
  let last = process.hrtime.bigint();
  const probe = setInterval(() => {
    const now = process.hrtime.bigint();
    blockedMs = Math.max(blockedMs, Number(now - last) / 1e6);
    last = now;
  }, 1);
  await store.snapshot();
  clearInterval(probe);
  console.log(`snapshot of the big database: ${ms(snapStarted).toFixed(0)} ms in total, event loop blocked at most ${blockedMs.toFixed(0)} ms`);
  await store.close();
  const [s, b] = results;
  const medianRatio = b.median / s.median;
  const p99Ratio = b.p99 / s.p99;
  console.log('');
  console.log(`ratio big/small: median ${medianRatio.toFixed(2)}, p99 ${p99Ratio.toFixed(2)} (target <= 1.5): ${medianRatio <= 1.5 ? 'met' : 'NOT met'}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
