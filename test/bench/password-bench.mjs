// Password benchmark: does a storm of wrong passwords slow unrelated requests?
// 40 concurrent requests with wrong Basic passwords (bcrypt cost 10, the default) while an unrelated GET runs
// every 5 ms: its latency, and the server's event-loop delay, against the same GET with no storm.
// Run with `npm run bench:password` (builds first). BENCH_WRONG (default 40).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { createRepoHost } from '../../dist/index.js';

const WRONG = Number(process.env.BENCH_WRONG ?? 40);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

const host = await createRepoHost({ port: 0, maxFailedLoginsPerAccount: 1000, maxFailedLoginsPerAddress: 1000 });
await host.admin.createUser({ username: 'alice', email: 'a@example.com', password: 'correct-horse' });
const probe = new Pool(host.url, { connections: 1 });
const storm = new Pool(host.url, { connections: WRONG });

async function probeWhile(until) {
  const times = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  while (!until()) {
    const start = process.hrtime.bigint();
    const response = await probe.request({ path: '/api/v1/users/alice', method: 'GET' });
    await response.body.text();
    times.push(ms(start));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  delay.disable();
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1), loopMax: delay.max / 1e6, loopP99: delay.percentile(99) / 1e6 };
}

try {
  // Warm the worker pool and the decoy hash.
  await (await storm.request({ path: '/api/v1/me', method: 'GET', headers: { authorization: `Basic ${Buffer.from('alice:warm').toString('base64')}` } })).body.text();
  const quietEnd = Date.now() + 1000;
  const quiet = await probeWhile(() => Date.now() > quietEnd);
  let done = false;
  const started = process.hrtime.bigint();
  const wrong = Promise.all(
    Array.from({ length: WRONG }, async (_, i) => {
      const response = await storm.request({ path: '/api/v1/me', method: 'GET', headers: { authorization: `Basic ${Buffer.from(`alice:wrong-${i}`).toString('base64')}` } });
      await response.body.text();
      return response.statusCode;
    }),
  ).then((codes) => {
    done = true;
    return codes;
  });
  const loaded = await probeWhile(() => done);
  const codes = await wrong;
  const stormMs = ms(started);
  const fmt = (v) => `${v.toFixed(1).padStart(7)} ms`;
  console.log(`password benchmark: ${WRONG} concurrent wrong Basic passwords (bcrypt cost 10), all ${codes.every((c) => c === 401) ? '401' : codes.join(',')}, done in ${stormMs.toFixed(0)} ms`);
  console.log('unrelated GET             median        p99        max   loop delay max   loop delay p99');
  console.log(`quiet                  ${fmt(quiet.median)} ${fmt(quiet.p99)} ${fmt(quiet.max)}       ${fmt(quiet.loopMax)}       ${fmt(quiet.loopP99)}`);
  console.log(`during the storm       ${fmt(loaded.median)} ${fmt(loaded.p99)} ${fmt(loaded.max)}       ${fmt(loaded.loopMax)}       ${fmt(loaded.loopP99)}`);
} finally {
  await probe.close();
  await storm.close();
  await host.close();
}
