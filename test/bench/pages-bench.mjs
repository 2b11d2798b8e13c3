// Code pages on the synthetic repository: the repository home, a folder, a 2,000-line file, a commit changing
// 200 files and the history page, each served warm (median over BENCH_RUNS, full HTTP round trip; target <= 50 ms)
// and cold (a fresh host over the same data: no cache of ours for this repository, the OS page cache warm; the host
// first serves the same pages of a small repository, as a running server has, so its code is compiled) against the git commands
// the page needs run by hand (target <= 2x), plus the event loop's largest delay while serving (target <= 50 ms).
// The host runs in a thread of its own (host-thread.mjs), as a server in its own process: the delay is that of the
// host's loop, not of this client's, and the client's work never counts as the server's.
// Run with `npm run bench:pages` (builds first). Options: BENCH_COMMITS (default 20000), BENCH_RUNS (default 5).
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostThread } from './host-thread.mjs';
import { buildSyntheticRepository, FILES, filePath, git, gitText, median, ms, startLauncher, timed } from './synthetic-repo.mjs';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIG_FILE = 'big/source.ts';

/** Two more commits on main: a 2,000-line source file, then one commit changing 200 files. */
function* extraCommits() {
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const lines = Array.from({ length: 2000 }, (_, i) => `export function f${i}(x: number): number { return x * ${i} + ${i % 7}; } // line ${i + 1}`);
  yield `commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000000 +0000\n${data('Add a 2,000-line file')}from refs/heads/main^0\n`;
  yield `M 100644 inline ${BIG_FILE}\n${data(`${lines.join('\n')}\n`)}`;
  // No `from`: the commit follows the previous one of this stream (refs/heads/main on disk moves only at the end).
  yield `commit refs/heads/main\ncommitter Bench <bench@example.com> 1700000060 +0000\n${data('Change 200 files')}`;
  for (let i = 0; i < 200; i++) yield `M 100644 inline ${filePath(i * 10)}\n${data(`file ${i * 10} rewritten\n${'changed line\n'.repeat(3)}`)}`;
  yield 'done\n';
}

async function waitFor(path, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${path}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const gitOut = (gitDir, args) => gitText(['--git-dir', gitDir, ...args]);

async function main() {
  const temp = await mkdtemp(join(tmpdir(), 'repohost-pages-bench-'));
  const source = join(temp, 'source.git');
  const data = join(temp, 'host');
  const hostOptions = { port: 0, dbPath: join(data, 'repohost.db'), dataDir: join(data, 'data'), bcryptCost: 4 };
  const open = [];
  const releaseLauncher = await startLauncher();
  try {
    console.log(`building a synthetic repository: ${COMMITS} commits, ${FILES} files, plus a 2,000-line file and a 200-file commit ...`);
    const small = join(temp, 'small.git');
    const built = await timed(async () => {
      await buildSyntheticRepository(source, COMMITS);
      await git(['--git-dir', source, 'fast-import', '--quiet'], { input: extraCommits() });
      await buildSyntheticRepository(small, 400);
      await git(['--git-dir', small, 'fast-import', '--quiet'], { input: extraCommits() });
    });
    console.log(`  built in ${ms(built)}`);

    let host = await startHostThread(hostOptions);
    open.push(host);
    await host.admin.createUser({ username: 'bench', email: 'bench@example.com', password: 'password123' });
    const token = await host.admin.createToken('bench');
    await host.admin.createRepo({ owner: 'bench', name: 'big' });
    const remote = new URL(`${host.url}/bench/big.git`);
    remote.username = 'bench';
    remote.password = token;
    console.log(`  pushed in ${ms(await timed(() => git(['--git-dir', source, 'push', '-q', remote.toString(), 'main'])))}`);
    await host.admin.createRepo({ owner: 'bench', name: 'small' });
    await git(['--git-dir', small, 'push', '-q', remote.toString().replace('/big.git', '/small.git'), 'main']);
    const smallDir = join(hostOptions.dataDir, 'repositories', 'bench', 'small.git');
    const smallTip = await gitOut(smallDir, ['rev-parse', 'main']);
    const repoDir = join(hostOptions.dataDir, 'repositories', 'bench', 'big.git');
    // The commit-graph the host writes after a push (what the git commands below use too).
    await waitFor(join(repoDir, 'objects', 'info', 'commit-graph'), 120_000);
    const tip = await gitOut(repoDir, ['rev-parse', 'main']);
    const parent = await gitOut(repoDir, ['rev-parse', 'main^']);
    const folder = 'src/m07/s3';
    const pages = {
      home: '/bench/big',
      folder: `/bench/big/src/branch/main/${folder}`,
      file: `/bench/big/src/branch/main/${BIG_FILE}`,
      commit: `/bench/big/commit/${tip}`,
      history: '/bench/big/commits/branch/main',
    };
    const entriesOf = async (tree) => (await gitOut(repoDir, ['ls-tree', '--name-only', tree])).split('\n');
    const lastCommits = async (prefix, names) => {
      for (const name of names) await gitOut(repoDir, ['log', '-1', '--format=%H %ct %s', 'main', '--', `${prefix}${name}`]);
    };
    // What each page needs from git, run by hand one command after the other.
    const baselines = {
      home: async () => {
        await gitOut(repoDir, ['for-each-ref']);
        await lastCommits('', await entriesOf('main'));
        await gitOut(repoDir, ['cat-file', 'blob', 'main:README.md']);
      },
      folder: async () => {
        await gitOut(repoDir, ['for-each-ref']);
        await lastCommits('', [folder]);
        await lastCommits(`${folder}/`, await entriesOf(`main:${folder}`));
      },
      file: async () => {
        await gitOut(repoDir, ['for-each-ref']);
        await lastCommits('', [BIG_FILE]);
        await gitOut(repoDir, ['cat-file', 'blob', `main:${BIG_FILE}`]);
      },
      commit: async () => {
        await gitOut(repoDir, ['show', '-s', '--format=%H%P%an%B', tip]);
        await gitOut(repoDir, ['diff', '-M', '--raw', '--numstat', parent, tip]);
        await gitOut(repoDir, ['diff', '-M', '--patch', parent, tip]);
      },
      history: async () => {
        await gitOut(repoDir, ['for-each-ref']);
        await gitOut(repoDir, ['log', '--format=%H%P%an%ae%aI%B', '-n31', 'main']);
      },
    };
    const fetchPage = async (path) => {
      const response = await fetch(`${host.url}${path}`, { headers: { accept: 'text/html' } });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 200)}`);
      return body;
    };
    const get = async (path) => (await fetchPage(path)).length;
    // A file page is served plain until its highlighting (in a worker) is done.
    const untilHighlighted = async (path) => {
      while (!(await fetchPage(path)).includes('hljs-keyword')) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    // The same kinds of page on the small repository: what a host that has been serving has compiled and started.
    const smallPages = Object.values(pages).map((path) => path.replace('/bench/big', '/bench/small').replace(tip, smallTip));
    const warmUp = async () => {
      for (const path of smallPages) await get(path);
      await untilHighlighted(smallPages[2]);
      await host.idle();
    };

    // The host loop's largest delay per phase, watched only while pages are served (not while git runs by hand for
    // the baselines, nor while hosts start and stop).
    // Answers the span's own largest delay (the cold pages are reported one by one too).
    const phases = { warm: 0, cold: 0, concurrent: 0 };
    const watched = async (phase, fn) => {
      await host.watchLoop();
      await fn();
      const max = await host.loopDelayMax();
      phases[phase] = Math.max(phases[phase], max);
      return max;
    };
    const results = {};
    for (const [name, path] of Object.entries(pages)) {
      let bytes = await get(path);
      // A file page is served plain until its highlighting (in a worker) is done: warm means highlighted.
      if (name === 'file') {
        const started = Date.now();
        await untilHighlighted(path);
        console.log(`  the 2,000-line file was highlighted ${ms(Date.now() - started)} after its first view`);
        bytes = await get(path);
      }
      const warm = [];
      await watched('warm', async () => {
        for (let run = 0; run < Math.max(RUNS, 10); run++) warm.push(await timed(() => get(path)));
      });
      const gitRuns = [];
      for (let run = 0; run < RUNS; run++) gitRuns.push(await timed(baselines[name]));
      results[name] = { bytes, warm: median(warm), git: median(gitRuns), cold: [] };
    }
    // Cold: a fresh host over the same data for every run, so nothing of ours is cached for the big repository.
    for (let run = 0; run < RUNS; run++) {
      await host.close();
      open.pop();
      host = await startHostThread(hostOptions);
      open.push(host);
      await warmUp();
      for (const [name, path] of Object.entries(pages)) {
        const max = await watched('cold', async () => results[name].cold.push(await timed(() => get(path))));
        results[name].coldLoop = Math.max(results[name].coldLoop ?? 0, max);
      }
    }
    // Concurrent load: every page at once, a few times, while the loop delay is watched.
    await watched('concurrent', () => Promise.all(Array.from({ length: 4 }, () => Promise.all(Object.values(pages).map(get)))));

    console.log(`\nresults (warm: median of ${Math.max(RUNS, 10)}; cold and git: median of ${RUNS}; node ${process.version})`);
    console.log('page      bytes     warm (<=50 ms)   cold        git by hand   cold/git (<=2x)   host loop max, cold   (cold file page: served plain while highlighting runs)');
    for (const [name, result] of Object.entries(results)) {
      const cold = median(result.cold);
      console.log(
        `${name.padEnd(9)} ${String(result.bytes).padEnd(9)} ${ms(result.warm).padEnd(16)} ${ms(cold).padEnd(11)} ${ms(result.git).padEnd(13)} ${`${(cold / result.git).toFixed(2)}x`.padEnd(17)} ${ms(result.coldLoop)}`,
      );
    }
    console.log(`host's event loop, max delay (<= 50 ms): ${Object.entries(phases).map(([phase, max]) => `${phase} ${ms(max)}`).join(', ')}`);
    console.log(`load average of the machine meanwhile: ${loadavg().map((value) => value.toFixed(1)).join(' ')}`);
  } finally {
    await releaseLauncher();
    for (const host of open) await host.close();
    await rm(temp, { recursive: true, force: true });
  }
}

await main();
