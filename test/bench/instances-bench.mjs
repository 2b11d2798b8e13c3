// Several instances benchmark (issue 19): the issue list and issue creation through `repohost serve` on sql.js, on
// PostgreSQL with one instance, and on PostgreSQL with three instances sharing the database and data folder (with the
// default pool each, and with one instance's budget of connections split between them; the client spreads its
// requests over them round robin, as a load balancer would), alternating rounds, medians with
// spread, each instance warmed up on both kinds first. On a 2-core machine the point is that nothing gets slower, not a
// speed-up.
// Run with `npm run bench:instances` (builds first). Options: BENCH_CLIENTS (concurrent clients, default 8),
// BENCH_REQUESTS (per round and kind, default 400), BENCH_ROUNDS (default 3).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { Agent, request } from 'undici';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin', 'repohost');

/** The suite's PostgreSQL starter (test/helpers/postgres.ts), transpiled for this script: one way to start it. */
async function loadPostgresHelper(dir) {
  const source = await readFile(join(ROOT, 'test', 'helpers', 'postgres.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const file = join(dir, 'postgres-helper.mjs');
  // `pg` resolves from the project, not from the temporary folder.
  await writeFile(file, outputText.replace("from 'pg'", `from '${join(ROOT, 'node_modules', 'pg', 'esm', 'index.mjs')}'`));
  return await import(file);
}

/** `repohost serve --port 0 …` in a child process; resolves with its URL once it listens. */
function serve(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))) });
    });
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => reject(new Error(`serve exited (${code}): ${out}`)));
  });
}

function cli(args, input = '') {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`repohost ${args[0]}: ${out}`))));
    child.stdin.end(input);
  });
}

const agent = new Agent({ connections: CLIENTS * 2, pipelining: 1 });

/** Requests per second of `count` requests from CLIENTS concurrent clients, spread over the URLs round robin. */
async function load(urls, count, make) {
  let next = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let index = next++; index < count; index = next++) {
        const { path, init } = make(index);
        const response = await request(`${urls[index % urls.length]}${path}`, { ...init, dispatcher: agent });
        await response.body.text();
        if (response.statusCode >= 300) throw new Error(`${path}: ${response.statusCode}`);
      }
    }),
  );
  return (count * 1000) / (performance.now() - began);
}

const SPLIT = 'PostgreSQL, three instances, pool 3';

const dir = await mkdtemp(join(tmpdir(), 'repohost-instances-bench-'));
const { startPostgres } = await loadPostgresHelper(dir);
const postgres = await startPostgres();
const setups = {};
try {
  // Each setup: its own database and data folder, a user, a token and a repository.
  const prepare = async (name, args, instances) => {
    const first = await serve(args);
    const rest = await Promise.all(Array.from({ length: instances - 1 }, () => serve(args)));
    const admin = args.filter((arg, index) => arg !== '--allow-local-network' && arg !== '--database-pool-size' && args[index - 1] !== '--database-pool-size');
    await cli(['user', 'add', 'bench', '--email', 'bench@example.com', '--password-stdin', ...admin], 'password123\n');
    const token = await cli(['token', 'create', 'bench', '--name', 'bench', ...admin]);
    const created = await request(`${first.url}/api/v3/user/repos`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'app' }) });
    await created.body.text();
    setups[name] = { servers: [first, ...rest], urls: [first.url, ...rest.map((server) => server.url)], token, rates: { create: [], list: [] } };
  };
  await prepare('sql.js, one instance', ['--db', join(dir, 'sqljs', 'forge.db')], 1);
  await prepare('PostgreSQL, one instance', ['--database-url', await postgres.createDatabase(), '--data', join(dir, 'pg1')], 1);
  await prepare('PostgreSQL, three instances', ['--database-url', await postgres.createDatabase(), '--data', join(dir, 'pg3')], 3);
  // The same three with one instance's budget of connections between them (3 each for requests instead of 10).
  await prepare(SPLIT, ['--database-url', await postgres.createDatabase(), '--data', join(dir, 'pg3s'), '--database-pool-size', '3'], 3);

  const round = async (setup) => {
    const headers = { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' };
    setup.rates.create.push(await load(setup.urls, REQUESTS, (index) => ({ path: '/api/v3/repos/bench/app/issues', init: { method: 'POST', headers, body: JSON.stringify({ title: `Issue ${index}` }) } })));
    setup.rates.list.push(await load(setup.urls, REQUESTS, () => ({ path: '/api/v3/repos/bench/app/issues?per_page=30', init: { headers } })));
  };
  const names = Object.keys(setups);
  // Every instance warms up on both kinds (its code compiled, its connections open) before anything is measured: the
  // same number of requests per instance, so three instances are not measured colder than one.
  for (const setup of Object.values(setups)) {
    const headers = { authorization: `Bearer ${setup.token}`, 'content-type': 'application/json' };
    const warm = 150 * setup.urls.length;
    await load(setup.urls, warm, (index) => ({ path: '/api/v3/repos/bench/app/issues', init: { method: 'POST', headers, body: JSON.stringify({ title: `Warm-up ${index}` }) } }));
    await load(setup.urls, warm, () => ({ path: '/api/v3/repos/bench/app/issues?per_page=30', init: { headers } }));
  }
  for (let index = 0; index < ROUNDS; index++) for (const name of index % 2 ? [...names].reverse() : names) await round(setups[name]);

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const base = setups['sql.js, one instance'];
  // This machine's speed drifts by 2x within minutes: the ratio of each round's two figures (measured one after the
  // other) cancels that drift, where the ratio of two medians taken over the whole run does not.
  const paired = (rates, baseline) => {
    const ratios = rates.map((rate, index) => rate / baseline[index]);
    return ` (round by round ${median(ratios).toFixed(2)}x [${Math.min(...ratios).toFixed(2)} .. ${Math.max(...ratios).toFixed(2)}])`;
  };
  console.log(`\n${CLIENTS} concurrent clients, ${REQUESTS} requests a round and kind, ${ROUNDS} rounds (medians, req/s)`);
  for (const kind of ['create', 'list']) {
    console.log(`  ${kind === 'create' ? 'POST issues' : 'GET issues (30 a page)'}`);
    for (const name of names) {
      const rates = setups[name].rates[kind];
      const ratio = name === 'sql.js, one instance' ? '' : `  = ${(median(rates) / median(base.rates[kind])).toFixed(2)}x sql.js`;
      const vsOne = name.startsWith('PostgreSQL, three instances') ? `, ${(median(rates) / median(setups['PostgreSQL, one instance'].rates[kind])).toFixed(2)}x one instance${paired(rates, setups['PostgreSQL, one instance'].rates[kind])}` : '';
      console.log(`    ${name.padEnd(36)} ${median(rates).toFixed(0).padStart(6)}${ratio}${vsOne}  [${Math.min(...rates).toFixed(0)} .. ${Math.max(...rates).toFixed(0)}]`);
    }
  }
} finally {
  for (const setup of Object.values(setups)) for (const server of setup.servers) await server.stop();
  await agent.close();
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
