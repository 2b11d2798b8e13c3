// Git-backed reads of /api/v3 (issue 23) and of the code pages (issue 39): a branch, a file's contents and a folder's,
// the repository's home page and a file's page, warm, against the same host's `/api/v1/repos/:owner/:repo` (SQL only,
// no git) as the baseline in the same run. The host runs in a thread of its own; each kind is measured for latency
// (one request at a time: median and 95th percentile) and throughput (10 concurrent keep-alive clients), in
// alternating rounds. Run with `npm run bench:api` (builds first).
// Options: BENCH_REQUESTS (per round and kind, default 400), BENCH_ROUNDS (default 3).
import { Pool } from 'undici';
import { startHostThread } from './host-thread.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 10;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

async function main() {
  const host = await startHostThread({ port: 0, dbPath: ':memory:', bcryptCost: 4 });
  try {
    await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
    const token = await host.admin.createToken('bench');
    await host.admin.seedRepo({ owner: 'bench', name: 'api' });
    await host.idle();
    const pool = new Pool(host.url, { connections: CONCURRENCY, pipelining: 1 });
    const api = { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json' };
    // The pages as a signed-out visitor's browser asks for them (the repository is public).
    const page = { accept: 'text/html' };
    const kinds = {
      'v1 repository (SQL only, baseline)': '/api/v1/repos/bench/api',
      'v3 branch': '/api/v3/repos/bench/api/branches/main',
      'v3 contents of a file': '/api/v3/repos/bench/api/contents/README.md',
      'v3 contents of the top folder': '/api/v3/repos/bench/api/contents/',
      'page: repository home': '/bench/api',
      'page: a file': '/bench/api/src/branch/main/README.md',
    };
    const get = async (path) => {
      const headers = path.startsWith('/api/') ? api : page;
      const response = await pool.request({ path, method: 'GET', headers });
      await response.body.text();
      if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode}`);
    };
    for (const path of Object.values(kinds)) for (let i = 0; i < 20; i++) await get(path);
    const latency = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
    const rate = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, []]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? Object.entries(kinds).reverse() : Object.entries(kinds);
      for (const [kind, path] of order) {
        for (let i = 0; i < REQUESTS / 4; i++) {
          const started = performance.now();
          await get(path);
          latency[kind].push(performance.now() - started);
        }
        let next = 0;
        const started = performance.now();
        await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < REQUESTS) await get(path);
        }));
        rate[kind].push(REQUESTS / ((performance.now() - started) / 1000));
      }
    }
    await pool.close();
    console.log(`warm reads, ${ROUNDS} rounds: latency one at a time (median / p95), throughput with ${CONCURRENCY} clients (median)`);
    console.log('targets: a warm branch or contents read <= 3 ms and >= 1000 req/s; a warm repository or file page <= 3 ms');
    const base = median(rate['v1 repository (SQL only, baseline)']);
    for (const kind of Object.keys(kinds)) {
      const ms = median(latency[kind]);
      const rps = median(rate[kind]);
      console.log(`  ${kind.padEnd(36)} ${ms.toFixed(2).padStart(6)} ms / ${percentile(latency[kind], 0.95).toFixed(2).padStart(6)} ms   ${rps.toFixed(0).padStart(5)} req/s  (${(rps / base).toFixed(2)}x baseline)`);
    }
  } finally {
    await host.close();
  }
}

await main();
