// Start-up benchmark (issue 23): fresh node processes, kinds run alternately, medians with spread (min–max).
// Run with `npm run bench:start` (builds first). BENCH_ROUNDS sets the rounds (default 11); NODE names the node
// binary the measured processes run on (default: the one running this script), e.g. each LTS line from
// scripts/node-line.sh (issue 39).
//
// In-process (one child per round, timed inside it): import('repohost'), the first createRepoHost({ port: 0 }),
// its first answered request (GET /api/v1/users/nobody, a 404 of the spec API, asked with node:http), RSS after that, further hosts in the
// same process (the second, and the median of the next four), close() of the first host.
// Baselines in the same run: the chosen stack alone (STACK_FLOOR, timed as in-process), a bare `node` process (spawn
// to exit), a bare node:http server (spawn to first answered request), and `git http-backend` behind a bare node:http
// server (spawn to first answered info/refs), against `repohost serve` on an existing database (spawn to first
// answered info/refs).
// Once each, in their own processes: reset() between tests with 10 repositories of 100 commits in the fixtures, and
// memory (heap used, RSS) over 10,000 mixed reads.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const NODE = process.env.NODE ?? process.execPath;
const root = resolve(fileURLToPath(import.meta.url), '../../..');
const dist = join(root, 'dist/bundle/index.js');
const gitEnv = { PATH: process.env.PATH ?? '', HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C' };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const fmt = (values, unit = 'ms') => {
  const digits = unit === 'MB' ? 0 : 1;
  return `median ${median(values).toFixed(digits).padStart(7)} ${unit}   (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}, ${values.length} runs)`;
};

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

function get(port, path) {
  return new Promise((resolveGet, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolveGet(res.statusCode));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Spawns `args` and polls `path` on `port` until it is answered: ms from spawn to that answer. */
async function untilAnswered(args, port, path, env = process.env) {
  const started = performance.now();
  const child = spawn(NODE, args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  let exited = false;
  child.on('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${args.join(' ')} exited before answering`);
      try {
        const status = await get(port, path);
        if (status !== 200) throw new Error(`${args.join(' ')}: ${path} answered ${status}`);
        return performance.now() - started;
      } catch (error) {
        // Refused before it listens; reset by `repohost serve`'s own probe of its port (checkPortFree).
        if (error.code !== 'ECONNREFUSED' && error.code !== 'ECONNRESET') throw error;
        await new Promise((r) => setTimeout(r, 1));
      }
    }
  } finally {
    if (!exited) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  }
}

function runNode(args, cwd) {
  return new Promise((resolveRun, reject) => {
    const started = performance.now();
    const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'inherit'], cwd });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolveRun({ ms: performance.now() - started, out }) : reject(new Error(`${args.join(' ')}: exit ${code}`))));
  });
}

const IN_PROCESS = `
const t0 = performance.now();
const { createRepoHost } = await import(${JSON.stringify(dist)});
const t1 = performance.now();
const host = await createRepoHost({ port: 0 });
const t2 = performance.now();
// Asked with node:http, as the baselines are: fetch() would add the loading of undici, a cost of the client's side.
const status = await new Promise((resolve, reject) => {
  const { request } = process.getBuiltinModule('node:http');
  request(host.url + '/api/v1/users/nobody', { agent: false }, (res) => res.resume().on('end', () => resolve(res.statusCode))).on('error', reject).end();
});
if (status !== 404) throw new Error('first request: ' + status);
const t3 = performance.now();
const rss = process.memoryUsage().rss / 1048576;
// Further hosts, each closed before the next starts: the second one, and the median of the next four (warm).
const further = [];
for (let i = 0; i < 5; i++) {
  const t4 = performance.now();
  const next = await createRepoHost({ port: 0 });
  further.push(performance.now() - t4);
  await next.close();
}
const t6 = performance.now();
await host.close();
const t7 = performance.now();
const later = further.slice(1).sort((a, b) => a - b);
console.log(JSON.stringify({ import: t1 - t0, firstHost: t2 - t1, firstRequest: t3 - t2, total: t3 - t0, secondHost: further[0], laterHost: (later[1] + later[2]) / 2, close: t7 - t6, rss }));
process.exit(0);
`;

// The floor of the chosen stack, timed as IN_PROCESS is, with none of repohost's code: h3 v2 served by node:http, and
// sql.js (required, as repohost does) opening the fresh database image the build ships and answering one query, one
// request. What a target below this cannot be met by any code of ours.
const STACK_FLOOR = `
const t0 = performance.now();
const { H3 } = await import('h3');
const { toNodeHandler } = await import('h3/node');
const { createRequire } = process.getBuiltinModule('node:module');
const initSqlJs = createRequire(${JSON.stringify(join(root, 'package.json'))})('sql.js');
const SQL = await initSqlJs();
const { readFileSync, readdirSync } = process.getBuiltinModule('node:fs');
const image = readdirSync(${JSON.stringify(join(root, 'dist'))}).find((name) => /^fresh-image-v\\d+\\.sqlite$/.test(name));
const db = new SQL.Database(new Uint8Array(readFileSync(${JSON.stringify(join(root, 'dist'))} + '/' + image)));
const app = new H3().get('/users/:name', (event) => db.exec('SELECT id FROM users WHERE username = ?', [event.context.params.name])[0] ?? null);
const { createServer, request } = process.getBuiltinModule('node:http');
const server = createServer(toNodeHandler(app));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
await new Promise((resolve, reject) => {
  request('http://127.0.0.1:' + server.address().port + '/users/nobody', { agent: false }, (res) => res.resume().on('end', resolve)).on('error', reject).end();
});
const t1 = performance.now();
console.log(JSON.stringify({ total: t1 - t0, rss: process.memoryUsage().rss / 1048576 }));
process.exit(0);
`;

// Fixtures of a harness: `repos` repositories of `commits` commits each (a file changed in a nested folder), 20 issues
// in the first, one user with a token.
const FIXTURES = (repos, commits) => `({
  users: [{ username: 'owner', email: 'owner@example.com', password: 'password123', tokens: [{ name: 'bench', token: 'bench_token_0123456789abcdef' }] }],
  repositories: Array.from({ length: ${repos} }, (_, r) => ({
    owner: 'owner',
    name: 'repo-' + r,
    branches: { main: { commits: Array.from({ length: ${commits} }, (_, i) => ({ message: 'change ' + i, files: { ['src/m' + (i % 10) + '/f' + (i % 7) + '.txt']: 'version ' + i + '\\n' } })) } },
    issues: r === 0 ? Array.from({ length: 20 }, (_, i) => ({ title: 'issue ' + i, comments: [{ body: 'a comment' }] })) : [],
  })),
})`;

// reset() between tests on a host whose fixtures hold 10 repositories of 100 commits, after what a test does (a write
// and a new repository with a commit): the median of 15.
const RESET = `
const { createRepoHost } = await import(${JSON.stringify(dist)});
const host = await createRepoHost({ port: 0, bcryptCost: 4, fixtures: ${FIXTURES(10, 100)} });
const times = [];
for (let round = 0; round < 16; round++) {
  await host.admin.createToken('owner', 'round-' + round);
  await host.admin.seedRepo({ owner: 'owner', name: 'scratch-' + round });
  const started = performance.now();
  await host.reset();
  times.push(performance.now() - started);
}
await host.close();
console.log(JSON.stringify(times.slice(1)));
process.exit(0);
`;

// Memory over 10,000 mixed reads (spec API, /api/v3 branch and contents, pages, git refs), in rounds of 1,000: heap
// used and RSS after a full collection at the end of each round.
const MEMORY = `
const { createRepoHost } = await import(${JSON.stringify(dist)});
const host = await createRepoHost({ port: 0, bcryptCost: 4, fixtures: ${FIXTURES(1, 50)} });
const auth = { authorization: 'token bench_token_0123456789abcdef' };
const paths = [
  '/api/v1/repos/owner/repo-0',
  '/api/v1/repos/owner/repo-0/branches',
  '/api/v3/repos/owner/repo-0/branches/main',
  '/api/v3/repos/owner/repo-0/contents/src/m1/f1.txt',
  '/api/v3/repos/owner/repo-0/issues?per_page=10',
  '/api/v3/repos/owner/repo-0/issues/3',
  '/owner/repo-0',
  '/owner/repo-0/issues',
  '/owner/repo-0/commits/branch/main',
  '/owner/repo-0.git/info/refs?service=git-upload-pack',
];
const rounds = [];
let sent = 0;
for (let round = 0; round < 10; round++) {
  for (let i = 0; i < 1000; i++) {
    const res = await fetch(host.url + paths[sent++ % paths.length], { headers: auth });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(paths[(sent - 1) % paths.length] + ': ' + res.status);
  }
  globalThis.gc();
  const usage = process.memoryUsage();
  rounds.push({ heap: usage.heapUsed / 1048576, rss: usage.rss / 1048576 });
}
await host.close();
console.log(JSON.stringify(rounds));
process.exit(0);
`;

const BARE_HTTP = `
require('node:http').createServer((req, res) => res.end('ok')).listen(Number(process.argv[1]), '127.0.0.1');
`;

// git http-backend behind a bare node:http server (test/bench/http-backend.mjs, run as a script).
const GIT_BACKEND = fileURLToPath(new URL('./http-backend.mjs', import.meta.url));

function git(args, cwd) {
  return new Promise((resolveGit, reject) => {
    const child = spawn('git', args, { cwd, env: gitEnv, stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolveGit() : reject(new Error(`git ${args.join(' ')}: ${code}`))));
  });
}

const dir = await mkdtemp(join(tmpdir(), 'repohost-start-bench-'));
try {
  // An existing database with one user and one repository of a few commits, for `repohost serve`.
  const dbPath = join(dir, 'data.db');
  const source = join(dir, 'source');
  await git(['init', '-q', '-b', 'main', source]);
  for (let i = 0; i < 3; i++) {
    await writeFile(join(source, `file${i}.txt`), `content ${i}\n`);
    await git(['add', '.'], source);
    await git(['-c', 'user.name=b', '-c', 'user.email=b@example.com', 'commit', '-q', '-m', `commit ${i}`], source);
  }
  const { createRepoHost } = await import(dist);
  const setup = await createRepoHost({ port: 0, dbPath, bcryptCost: 4 });
  await setup.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
  await setup.admin.seedRepo({ owner: 'owner', name: 'project', from: source });
  await setup.idle();
  await setup.close();
  // The same repository for git http-backend.
  const projectRoot = join(dir, 'plain');
  await git(['clone', '-q', '--bare', source, join(projectRoot, 'owner', 'project.git')]);
  const infoRefs = '/owner/project.git/info/refs?service=git-upload-pack';

  const results = { bareNode: [], bareHttp: [], gitBackend: [], serve: [], inProcess: [], stackFloor: [] };
  const kinds = [
    async () => results.bareNode.push((await runNode(['-e', ''])).ms),
    async () => {
      const port = await freePort();
      results.bareHttp.push(await untilAnswered(['-e', BARE_HTTP, String(port)], port, '/'));
    },
    async () => {
      const port = await freePort();
      results.gitBackend.push(await untilAnswered([GIT_BACKEND, String(port), projectRoot], port, infoRefs));
    },
    async () => {
      const port = await freePort();
      results.serve.push(await untilAnswered([join(root, 'bin/repohost'), 'serve', '--port', String(port), '--db', dbPath], port, infoRefs));
    },
    async () => results.inProcess.push(JSON.parse((await runNode(['--input-type=module', '-e', IN_PROCESS])).out)),
    async () => results.stackFloor.push(JSON.parse((await runNode(['--input-type=module', '-e', STACK_FLOOR], root)).out)),
  ];
  // One warm-up round (file caches), then alternating rounds, each starting with a different kind.
  for (const kind of kinds) await kind();
  for (const list of Object.values(results)) list.length = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < kinds.length; i++) await kinds[(round + i) % kinds.length]();
  }

  const of = (key) => results.inProcess.map((r) => r[key]);
  const version = JSON.parse((await runNode(['-p', 'JSON.stringify(process.version)'])).out);
  console.log(`start-up, ${ROUNDS} rounds of fresh processes, alternating (node ${version})\n`);
  console.log('baselines');
  console.log(`  bare node process (spawn to exit)                    ${fmt(results.bareNode)}`);
  console.log(`  bare node:http (spawn to first answer)               ${fmt(results.bareHttp)}`);
  console.log(`  git http-backend behind node:http (spawn to answer)  ${fmt(results.gitBackend)}`);
  console.log('in-process (inside one fresh process)');
  console.log(`  import('repohost')                                   ${fmt(of('import'))}`);
  console.log(`  first createRepoHost({ port: 0 })                    ${fmt(of('firstHost'))}`);
  console.log(`  first answered request                               ${fmt(of('firstRequest'))}`);
  console.log(`  import + first host + first request (target 150 ms)  ${fmt(of('total'))}`);
  console.log(`  second host (target 20 ms)                           ${fmt(of('secondHost'))}`);
  console.log(`  hosts 3-6, median of each run (target 20 ms)         ${fmt(of('laterHost'))}`);
  console.log(`  close() (target 10 ms)                               ${fmt(of('close'))}`);
  console.log(`  RSS after start (target 70 MB)                       ${fmt(of('rss'), 'MB')}`);
  console.log('the chosen stack alone (h3 on node:http, sql.js opening the image, one request; none of our code)');
  console.log(`  first line to first answer                           ${fmt(results.stackFloor.map((r) => r.total))}`);
  console.log(`  RSS then                                             ${fmt(results.stackFloor.map((r) => r.rss), 'MB')}`);
  const floorTotal = median(results.stackFloor.map((r) => r.total));
  console.log(`  our code's part: (in-process total - floor) / floor  ${(((median(of('total')) - floorTotal) / floorTotal) * 100).toFixed(0)} % (target <= 25 %)`);
  console.log(`  reset(), fixtures of 10 repositories of 100 commits (target 20 ms)  ${fmt(JSON.parse((await runNode(['--input-type=module', '-e', RESET])).out))}`);
  // With the V8 flags the command gives its own process (bin/repohost's first line): what `repohost serve` holds.
  const commandFlags = (await readFile(join(root, 'bin/repohost'), 'utf8')).split('\n')[0].split(' ').slice(3);
  const memory = JSON.parse((await runNode([...commandFlags, '--expose-gc', '--input-type=module', '-e', MEMORY])).out);
  const at = (n) => memory[n - 1];
  console.log(`memory over 10,000 mixed reads (after a full collection; node ${commandFlags.join(' ')} as the command runs; target: flat)`);
  for (const n of [1, 2, 5, 10]) console.log(`  after ${String(n * 1000).padStart(6)} requests   heap used ${at(n).heap.toFixed(1).padStart(6)} MB   RSS ${at(n).rss.toFixed(0).padStart(4)} MB`);
  console.log(`  growth from 2,000 to 10,000: heap ${(at(10).heap - at(2).heap).toFixed(1)} MB, RSS ${(at(10).rss - at(2).rss).toFixed(0)} MB`);
  console.log('repohost serve on an existing database');
  console.log(`  spawn to first answered info/refs                    ${fmt(results.serve)}`);
  const ratio = median(results.serve) / median(results.gitBackend);
  console.log(`  against git http-backend behind node:http: ${ratio.toFixed(2)}x (target <= 1.5x)`);
  const floor = median(results.bareNode) + median(results.stackFloor.map((r) => r.total));
  console.log(`  a bare node process and the stack alone, no git yet: ${(floor / median(results.gitBackend)).toFixed(2)}x git http-backend`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
