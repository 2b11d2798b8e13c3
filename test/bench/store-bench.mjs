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
const WARMUP = 40;
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
  const { repoId, userId } = store.get("SELECT r.id AS repoId, u.id AS userId FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.name = 'big'");
  let number = 0;
  while (store.sizeBytes() < bytes) {
    await store.write((tx) => {
      for (let i = 0; i < 20_000; i++) {
        number += 1;
        const now = new Date(1_700_000_000_000 + number * 1000).toISOString();
        tx.run(
          "INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'open', ?, ?)",
          [repoId, number, userId, `filler issue ${number}`, FILLER_BODY, now, now],
        );
      }
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

async function measure(label, dbPath, token) {
  const openStarted = process.hrtime.bigint();
  const host = await createRepoHost({ dbPath, bcryptCost: 4 });
  const openMs = ms(openStarted);
  const pool = new Pool(host.url, { connections: 8 });
  try {
    for (let i = 0; i < WARMUP; i++) await createIssue(pool, token, `warmup ${i}`);
    const latencies = [];
    for (let i = 0; i < SEQUENTIAL; i++) {
      const started = process.hrtime.bigint();
      await createIssue(pool, token, `sequential ${i}`);
      latencies.push(ms(started));
    }
    latencies.sort((a, b) => a - b);

    let created = 0;
    const deadline = Date.now() + CONCURRENT_MS;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 8 }, async (_, client) => {
        for (let i = 0; Date.now() < deadline; i++) {
          await createIssue(pool, token, `client ${client} issue ${i}`);
          created += 1;
        }
      }),
    );
    const perSecond = created / (ms(started) / 1000);
    return { label, openMs, median: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond };
  } finally {
    await pool.close();
    await host.close();
  }
}

const root = await mkdtemp(join(tmpdir(), 'repohost-store-bench-'));
try {
  console.log(`store bench: ${SEQUENTIAL} sequential issue creations after ${WARMUP} warm-up, then 8 concurrent clients for ${CONCURRENT_MS} ms`);
  const small = await prepare(await mkdtemp(join(root, 'small-')), 1024 * 1024);
  const big = await prepare(await mkdtemp(join(root, 'big-')), BIG_BYTES);
  console.log(`databases: small ${(small.size / 1e6).toFixed(1)} MB (${small.fillerIssues} filler issues, built in ${small.buildMs.toFixed(0)} ms); big ${(big.size / 1e6).toFixed(1)} MB (${big.fillerIssues} filler issues, built in ${big.buildMs.toFixed(0)} ms)`);
  const results = [await measure('small', small.dbPath, small.token), await measure('big', big.dbPath, big.token)];
  console.log('');
  console.log('database   open ms   median ms   p99 ms   issues/s (8 clients)');
  for (const r of results) console.log(`${r.label.padEnd(8)} ${fmt(r.openMs)}   ${fmt(r.median)}   ${fmt(r.p99)}   ${r.perSecond.toFixed(0).padStart(8)}`);
  const [s, b] = results;
  const medianRatio = b.median / s.median;
  const p99Ratio = b.p99 / s.p99;
  console.log('');
  console.log(`ratio big/small: median ${medianRatio.toFixed(2)}, p99 ${p99Ratio.toFixed(2)} (target <= 1.5): ${medianRatio <= 1.5 ? 'met' : 'NOT met'}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
