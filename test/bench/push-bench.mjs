// Push benchmark (issue 17): a push of one commit and a push of many new branches, through repohost and through stock
// `git http-backend` behind a bare node:http server, alternating, in the same run. Run with `npm run bench:push`
// (builds first). Options: BENCH_BRANCHES (default 5000), BENCH_RUNS (default 7 one-commit pushes), BENCH_MANY_RUNS
// (default 3 many-ref pushes), BENCH_DB=file for a database file (fsync'd) instead of a harness's ':memory:' one.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoHost } from '../../dist/index.js';
import { launchProcess } from '../../dist/git/launcher/index.js';
import { httpBackendServer } from './http-backend.mjs';
import { git, gitText, median, ms, startLauncher, timed } from './synthetic-repo.mjs';

const BRANCHES = Number(process.env.BENCH_BRANCHES ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const MANY_RUNS = Number(process.env.BENCH_MANY_RUNS ?? 3);

/** The baseline on a free port, git started through the host's launcher as repohost's is. */
function httpBackend(root) {
  const server = httpBackendServer(root, { launch: launchProcess, askCredentials: true });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })));
}

/** A history of `count` commits with a branch at each (fast-import: seconds, not minutes). */
function* branchesImport(count) {
  let out = '';
  for (let i = 0; i < count; i++) {
    out += `commit refs/heads/b${String(i).padStart(5, '0')}\nmark :${i + 1}\ncommitter Bench <bench@example.com> ${1_600_000_000 + i} +0000\ndata 9\ncommit ${String(i % 10)}\n`;
    if (i > 0) out += `from :${i}\n`;
    out += `M 100644 inline f${i % 50}.txt\ndata ${String(i).length + 1}\n${i}\n\n`;
    if (out.length > 1 << 20) {
      yield out;
      out = '';
    }
  }
  yield `${out}done\n`;
}

async function main() {
  const temp = await mkdtemp(join(tmpdir(), 'repohost-push-bench-'));
  const releaseLauncher = await startLauncher();
  const host = await createRepoHost({ port: 0, dbPath: process.env.BENCH_DB === 'file' ? join(temp, 'bench.db') : ':memory:', bcryptCost: 4 });
  const backend = await httpBackend(join(temp, 'backend'));
  try {
    await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
    const token = await host.admin.createToken('bench');
    const hostRemote = (name) => {
      const url = new URL(`${host.url}/bench/${name}.git`);
      url.username = 'bench';
      url.password = token;
      return url.toString();
    };
    const backendRemote = async (name) => {
      await git(['init', '-q', '--bare', join(temp, 'backend', `${name}.git`)]);
      const url = new URL(`${backend.url}/${name}.git`);
      url.username = 'bench';
      url.password = 'secret';
      return url.toString();
    };

    // One commit onto an existing branch, many times.
    const work = join(temp, 'work');
    await git(['init', '-q', '-b', 'main', work]);
    const commit = async (i) => git(['-C', work, '-c', 'user.name=Bench', '-c', 'user.email=b@example.com', 'commit', '-q', '--allow-empty', '-m', `change ${i}`]);
    await commit(0);
    await host.admin.createRepo({ owner: 'bench', name: 'one' });
    const remotes = { host: hostRemote('one'), backend: await backendRemote('one') };
    for (const remote of Object.values(remotes)) await git(['-C', work, 'push', '-q', remote, 'main']);
    const one = { host: [], backend: [] };
    for (let run = 0; run < RUNS; run++) {
      await commit(run + 1);
      const order = run % 2 ? ['backend', 'host'] : ['host', 'backend'];
      for (const side of order) one[side].push(await timed(() => git(['-C', work, 'push', '-q', remotes[side], 'main'])));
      await host.idle();
    }

    // Many new branches at once into an empty repository.
    console.log(`building ${BRANCHES} branches ...`);
    const source = join(temp, 'branches.git');
    await git(['init', '-q', '--bare', source]);
    await git(['--git-dir', source, 'fast-import', '--quiet'], { input: branchesImport(BRANCHES) });
    const count = (await gitText(['--git-dir', source, 'for-each-ref', '--format=x', 'refs/heads/'])).split('\n').length;
    const many = { host: [], backend: [] };
    for (let run = 0; run < MANY_RUNS; run++) {
      await host.admin.createRepo({ owner: 'bench', name: `many-${run}` });
      const targets = { host: hostRemote(`many-${run}`), backend: await backendRemote(`many-${run}`) };
      const order = run % 2 ? ['backend', 'host'] : ['host', 'backend'];
      for (const side of order) many[side].push(await timed(() => git(['--git-dir', source, 'push', '-q', targets[side], 'refs/heads/*:refs/heads/*'])));
      await host.idle();
      const branches = await (await fetch(`${host.url}/api/v1/bench/many-${run}/branches/count`, { headers: { authorization: `Bearer ${token}` } })).json();
      if (branches.result !== count) throw new Error(`repohost has ${branches.result} branches, not ${count}`);
    }

    const row = (label, values, bases, target) => {
      const ratio = bases ? ` = ${(median(values) / median(bases)).toFixed(2)}x` : '';
      const spread = `[${ms(Math.min(...values))} .. ${ms(Math.max(...values))}]`;
      console.log(`  ${label.padEnd(52)} ${ms(median(values)).padStart(11)}${ratio}${target ? `   (target ${target})` : ''}  ${spread}`);
    };
    console.log(`\nresults (medians; ${host.options.inMemory ? "':memory:'" : 'file'} database; ${await gitText(['--version'])}, node ${process.version})`);
    row(`one-commit push: git http-backend (${RUNS} runs)`, one.backend);
    row('one-commit push: repohost', one.host, one.backend, '<= 1.1x');
    row(`${count} new branches: git http-backend (${MANY_RUNS} runs)`, many.backend);
    row(`${count} new branches: repohost`, many.host, many.backend, '<= 1.2x');
  } finally {
    await host.close();
    backend.server.close();
    await releaseLauncher();
    await rm(temp, { recursive: true, force: true });
  }
}

await main();
