// Webhook benchmark: the time from `git push` returning to the webhook request arriving at a local receiver (median
// and p99 over BENCH_PUSHES pushes, default 200), and requests per second of POST /statuses/:sha (with no hook, and
// with a hook subscribed to every event). Run with `npm run bench:hooks` (builds first).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'undici';
import { createRepoHost } from '../../dist/index.js';
import { env, median } from './synthetic-repo.mjs';

const PUSHES = Number(process.env.BENCH_PUSHES ?? 200);
const STATUS_REQUESTS = Number(process.env.BENCH_STATUSES ?? 2000);
const CONCURRENCY = 8;
const run = promisify(execFile);
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

const temp = await mkdtemp(join(tmpdir(), 'repohost-hook-bench-'));
const host = await createRepoHost({ port: 0, bcryptCost: 4, allowLocalNetwork: true });
// The receiver notes when each push request arrives, by the commit it reports.
const arrivals = new Map();
const waiting = new Map();
let statusEvents = 0;
const receiver = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const at = performance.now();
    response.end('ok');
    if (request.headers['x-github-event'] === 'status') statusEvents += 1;
    if (request.headers['x-github-event'] !== 'push') return;
    const after = JSON.parse(Buffer.concat(chunks).toString('utf8')).after;
    arrivals.set(after, at);
    waiting.get(after)?.();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const pool = new Pool(host.url, { connections: CONCURRENCY });
try {
  await host.admin.createUser({ username: 'bench', email: 'b@example.com', password: 'password123' });
  const token = await host.admin.createToken('bench', 'bench');
  await host.admin.createRepo({ owner: 'bench', name: 'hooks' });
  const api = async (path, body) => {
    const response = await pool.request({
      path: `/api/v1/repos/bench/hooks${path}`,
      method: body ? 'POST' : 'GET',
      body: body && JSON.stringify(body),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    const text = await response.body.text();
    if (response.statusCode >= 400) throw new Error(`${path}: ${response.statusCode} ${text}`);
    return text;
  };

  const work = join(temp, 'work');
  const remote = new URL(`${host.url}/bench/hooks.git`);
  remote.username = 'bench';
  remote.password = token;
  const git = (...args) => run('git', ['-c', 'user.name=Bench', '-c', 'user.email=b@example.com', ...args], { cwd: work, env });
  await run('git', ['init', '-q', '-b', 'main', work], { env });
  await writeFile(join(work, 'file.txt'), 'start\n');
  await git('add', '.');
  await git('commit', '-qm', 'start');
  await git('push', '-q', remote.toString(), 'main');

  // Statuses first, without a hook: what the write path costs alone.
  const sha = (await git('rev-parse', 'HEAD')).stdout.trim();
  const statusesPerSecond = async () => {
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < STATUS_REQUESTS) {
        const index = next++;
        await api(`/statuses/${sha}`, { state: 'success', context: `ctx-${index % 500}`, description: `run ${index}` });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return STATUS_REQUESTS / ((performance.now() - started) / 1000);
  };
  const bareRate = await statusesPerSecond();

  await api('/hooks', { url: `http://127.0.0.1:${receiver.address().port}/hook`, events: ['*'] });
  const hookedRate = await statusesPerSecond();
  // The pushes measured below queue behind the status deliveries of the same hook: let those go out first. A hook
  // holds at most 1,000 waiting deliveries; beyond that events are recorded as not sent, so not all of them arrive.
  const drainStarted = performance.now();
  await host.idle();
  const drainSeconds = (performance.now() - drainStarted) / 1000;

  const latencies = [];
  for (let index = 0; index < PUSHES; index++) {
    await writeFile(join(work, 'file.txt'), `change ${index}\n`);
    await git('commit', '-qam', `change ${index}`);
    const after = (await git('rev-parse', 'HEAD')).stdout.trim();
    const arrived = new Promise((resolve) => (arrivals.has(after) ? resolve() : waiting.set(after, resolve)));
    await git('push', '-q', remote.toString(), 'main');
    const returned = performance.now();
    await arrived;
    // Negative when the request arrived before git had finished reading the push's answer.
    latencies.push(arrivals.get(after) - returned);
  }

  const fmt = (value) => `${value.toFixed(1)} ms`;
  console.log(`\nresults (${PUSHES} pushes; ${STATUS_REQUESTS} status posts with ${CONCURRENCY} connections)`);
  console.log(`  push returned -> webhook arrived: median ${fmt(median(latencies))}, p99 ${fmt(percentile(latencies, 99))}, max ${fmt(Math.max(...latencies))}   (targets: median <= 20 ms, p99 <= 100 ms)`);
  console.log(`  POST /statuses/:sha without hooks: ${bareRate.toFixed(0)} requests/s`);
  console.log(`  POST /statuses/:sha with a hook on every event: ${hookedRate.toFixed(0)} requests/s (${statusEvents} of its ${STATUS_REQUESTS} status events delivered, the last ${drainSeconds.toFixed(1)} s after the last answer; the rest found the hook's 1,000 places full)`);
} finally {
  await pool.close();
  await host.close();
  receiver.close();
  await rm(temp, { recursive: true, force: true });
}
