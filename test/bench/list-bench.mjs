// List benchmark: does a page of a list cost O(limit) rather than O(total)?
// One page of 30 issues out of 30 and out of 100,000 (open list, closed list, updated order, deep page), full HTTP
// round trip median and p99, plus the main-thread time of the request and the query plans used.
// Run with `npm run bench:list` (builds first). BENCH_ISSUES (default 100000), BENCH_RUNS (default 300).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { createRepoHost } from '../../dist/index.js';
import { Store } from '../../dist/store/database.js';

const ISSUES = Number(process.env.BENCH_ISSUES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 300);

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** A database with one repository of `count` issues (one in three closed), filled through the Store. */
async function prepare(dir, name, count) {
  const dbPath = join(dir, `${name}.db`);
  const host = await createRepoHost({ dbPath, bcryptCost: 4 });
  await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
  await host.admin.createRepo({ owner: 'bench', name: 'big' });
  await host.close();
  const store = await Store.open(dbPath, { snapshotThresholdBytes: 1 << 30 });
  const { repoId, userId } = await store.get("SELECT r.id AS repoId, u.id AS userId FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.name = 'big'");
  for (let done = 0; done < count; ) {
    const rows = Math.min(20_000, count - done);
    await store.write(async (tx) => {
      for (let i = 0; i < rows; i++) {
        const number = done + i + 1;
        const now = new Date(1_700_000_000_000 + number * 1000).toISOString();
        await tx.run(
          `INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          [repoId, number, userId, `Issue ${number}`, 'body', number % 3 === 0 ? 'closed' : 'open', now, now],
        );
      }
      await tx.run('UPDATE repositories SET next_number = ? WHERE id = ?', [done + rows + 1, repoId]);
      // Kept counts follow the rows as the write functions keep them.
      await tx.run("DELETE FROM list_counts WHERE repo_id = ? AND kind = 'issue'", [repoId]);
      await tx.run("INSERT INTO list_counts (repo_id, kind, status, n) SELECT repo_id, 'issue', status, COUNT(*) FROM issues WHERE repo_id = ? GROUP BY repo_id, status", [repoId]);
    });
    done += rows;
  }
  const plans = {};
  for (const [label, sql, params] of [
    ['open page', `SELECT i.id FROM issues i WHERE i.repo_id = ? AND i.status = ? ORDER BY i.number DESC LIMIT 30`, [repoId, 'open']],
    ['all, updated', `SELECT i.id FROM issues i WHERE i.repo_id = ? ORDER BY i.updated_at DESC, i.id DESC LIMIT 30`, [repoId]],
    ['total', `SELECT COALESCE(SUM(n), 0) FROM list_counts WHERE repo_id = ? AND kind = 'issue' AND status IN (?)`, [repoId, 'open']],
  ]) {
    plans[label] = (await store.all(`EXPLAIN QUERY PLAN ${sql}`, params)).map((row) => row.detail).join('; ');
  }
  await store.close();
  return { dbPath, plans };
}

async function measure(dbPath, paths) {
  const host = await createRepoHost({ dbPath, bcryptCost: 4 });
  const pool = new Pool(host.url, { connections: 1 });
  const results = {};
  try {
    for (const path of paths) {
      const times = [];
      const delay = monitorEventLoopDelay({ resolution: 1 });
      for (let i = 0; i < RUNS + 20; i++) {
        if (i === 20) delay.enable();
        const start = process.hrtime.bigint();
        const response = await pool.request({ path, method: 'GET' });
        const body = await response.body.text();
        if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${body}`);
        if (i >= 20) times.push(ms(start));
      }
      delay.disable();
      times.sort((a, b) => a - b);
      results[path] = { median: percentile(times, 50), p99: percentile(times, 99), maxLoopDelay: delay.max / 1e6 };
    }
  } finally {
    await pool.close();
    await host.close();
  }
  return results;
}

const dir = await mkdtemp(join(tmpdir(), 'repohost-list-bench-'));
try {
  const small = await prepare(dir, 'small', 30);
  const large = await prepare(dir, 'large', ISSUES);
  const paths = [
    '/api/v1/repos/bench/big/issues?limit=30',
    '/api/v1/repos/bench/big/issues?status=closed&limit=30',
    '/api/v1/repos/bench/big/issues?status=all&sort=updated&limit=30',
    '/api/v1/repos/bench/big/issues?status=all&limit=30&page=100',
  ];
  const smallTimes = await measure(small.dbPath, paths.slice(0, 3));
  const largeTimes = await measure(large.dbPath, paths);
  console.log(`list benchmark: one page of 30 issues, ${RUNS} requests each, full HTTP round trip on one keep-alive connection`);
  console.log('request'.padEnd(62), 'of 30: median    p99', ` of ${ISSUES}: median    p99  max loop delay  ratio`);
  for (const path of paths) {
    const s = smallTimes[path];
    const l = largeTimes[path];
    const fmt = (v) => `${v.toFixed(2).padStart(7)} ms`;
    console.log(
      path.replace('/api/v1/repos/bench/big', '').padEnd(62),
      s ? `${fmt(s.median)} ${fmt(s.p99)}` : ' '.repeat(21),
      ` ${fmt(l.median)} ${fmt(l.p99)}    ${fmt(l.maxLoopDelay)}`,
      s ? `  ${(l.median / s.median).toFixed(2)}x` : '',
    );
  }
  console.log('query plans (large database):');
  for (const [label, plan] of Object.entries(large.plans)) console.log(`  ${label}: ${plan}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
