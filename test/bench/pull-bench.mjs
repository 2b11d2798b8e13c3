// Pull request benchmark: on the synthetic repository, a pull request of 50 commits touching 200 files.
// Ratios measured in the same run: GET /pulls/:id/files against `git diff --numstat` plus `git diff` of the same
// range, and a merge through the API against `git merge-tree` + `commit-tree` + `update-ref` run by hand.
// Run with `npm run bench:pull` (builds first). BENCH_COMMITS (default 20000), BENCH_RUNS (default 5).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startHostThread } from './host-thread.mjs';
import { buildSyntheticRepository, FILES, filePath, git, gitText, median, ms, startLauncher, timed } from './synthetic-repo.mjs';

const COMMITS = Number(process.env.BENCH_COMMITS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const out = (args, options = {}) => gitText(args, options);

/** A fast-import stream adding a topic branch of 50 commits off main, each changing 4 of its own 200 files. */
function* topic(name, from, offset) {
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let time = 1_700_000_000;
  for (let c = 0; c < 50; c++) {
    time += 60;
    let commit = `commit refs/heads/${name}\ncommitter Bench <bench@example.com> ${time} +0000\n${data(`topic change ${c}`)}`;
    if (c === 0) commit += `from ${from}\n`;
    for (let k = 0; k < 4; k++) {
      const file = filePath((offset + c * 4 + k) % FILES);
      commit += `M 100644 inline ${file}\n${data(`changed by ${name} commit ${c}\n${'line\n'.repeat(20)}`)}`;
    }
    yield commit;
  }
  yield 'done\n';
}

const temp = await mkdtemp(join(tmpdir(), 'repohost-pull-bench-'));
// The host runs in a thread of its own, as a server would (see host-thread.mjs).
const host = await startHostThread({ port: 0, bcryptCost: 4, gitIdleTimeoutMs: 0 });
const pools = [];
const releaseLauncher = await startLauncher();
try {
  const source = join(temp, 'source.git');
  console.log(`building a synthetic repository: ${COMMITS} commits ...`);
  await buildSyntheticRepository(source, COMMITS);
  const mainSha = await out(['--git-dir', source, 'rev-parse', 'main']);
  for (let r = 0; r < RUNS; r++) await git(['--git-dir', source, 'fast-import', '--quiet'], { input: topic(`topic-${r}`, mainSha, r * 200) });

  await host.admin.createUser({ username: 'bench', email: 'b@example.com', password: 'password123' });
  const token = await host.admin.createToken('bench', 'bench');
  await host.admin.createRepo({ owner: 'bench', name: 'pulls' });
  const remote = new URL(`${host.url}/bench/pulls.git`);
  remote.username = 'bench';
  remote.password = token;
  await out(['--git-dir', source, 'push', '-q', remote.toString(), '--all']);
  const repoDir = join(host.options.dataDir, 'repositories', 'bench', 'pulls.git');
  // One keep-alive connection, as a client that talks to the API would hold.
  const pool = new Pool(host.url, { connections: 1 });
  pools.push(pool);
  const api = async (path, init = {}) => {
    const response = await pool.request({
      path: `/api/v1/repos/bench/pulls${path}`,
      method: init.method ?? 'GET',
      body: init.body,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    const body = await response.body.json();
    if (response.statusCode >= 400) throw new Error(`${path}: ${response.statusCode} ${JSON.stringify(body)}`);
    return body;
  };

  // The list is paginated (100 at most a page): the 200 files are two pages, asked one after the other.
  const allFiles = async (pull) => [...(await api(`/pulls/${pull.id}/files?limit=100`)), ...(await api(`/pulls/${pull.id}/files?limit=100&page=2`))];

  // Files of a pull request against git's own two commands for the same range: the first request (cold) and a
  // repeated one (answered from the cache by the pair of commit ids).
  const filesCold = [];
  const filesWarm = [];
  const filesGit = [];
  const pulls = [];
  for (let r = 0; r < RUNS; r++) {
    const pull = await api('/pulls', { method: 'POST', body: JSON.stringify({ title: `Topic ${r}`, head: `topic-${r}`, base: 'main' }) });
    pulls.push(pull);
    const range = `${pull.base_sha}...${pull.head_sha}`;
    const steps = [
      async () => filesCold.push(await timed(async () => {
        const files = await allFiles(pull);
        if (files.length !== 200) throw new Error(`expected 200 files, got ${files.length}`);
      })),
      async () => filesGit.push(await timed(() => Promise.all([git(['--git-dir', repoDir, 'diff', '--numstat', '-M', range]), git(['--git-dir', repoDir, 'diff', '-M', range])]))),
    ];
    // Opening a pull request starts background work (its mergeability and commits): each step starts once it is done.
    for (const step of r % 2 ? steps.reverse() : steps) {
      await host.idle();
      await step();
    }
    filesWarm.push(await timed(() => allFiles(pull)));
  }

  // A merge through the API against the same plumbing by hand (on a copy of the branch, so both merge the same pair).
  const mergeApi = [];
  const mergeGit = [];
  for (let r = 0; r < RUNS; r++) {
    const pull = pulls[r];
    const base = await out(['--git-dir', repoDir, 'rev-parse', 'main']);
    await out(['--git-dir', repoDir, 'update-ref', `refs/heads/by-hand-${r}`, base]);
    const head = pull.head_sha;
    const byHand = async () => {
      const tree = await out(['--git-dir', repoDir, 'merge-tree', '--write-tree', base, head]);
      const commit = await out(['--git-dir', repoDir, 'commit-tree', tree.split('\n')[0], '-p', base, '-p', head, '-m', 'by hand'], {
        env: { GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' },
      });
      await out(['--git-dir', repoDir, 'update-ref', `refs/heads/by-hand-${r}`, commit, base]);
    };
    const steps = [
      async () => mergeGit.push(await timed(byHand)),
      async () => mergeApi.push(await timed(() => api(`/pulls/${pull.id}/merge`, { method: 'POST', body: JSON.stringify({ method: 'merge' }) }))),
    ];
    // The API merge moves main: the by-hand merge uses the main it read before either ran. Each step starts once the
    // host's upkeep after the previous merge (commit-graph, other pull requests) is done, so neither pays for it.
    for (const step of steps) {
      await host.idle();
      await step();
    }
  }

  // What any API write costs here (HTTP, credentials, one fsync'd store write), for reading the merge figure.
  const plainWrite = [];
  for (let r = 0; r < RUNS; r++) plainWrite.push(await timed(() => api(`/pulls/${pulls[r].id}`, { method: 'PATCH', body: JSON.stringify({ title: `Renamed ${r}` }) })));

  const row = (label, values, bases, target) => {
    const value = median(values);
    const ratio = bases ? ` = ${(value / median(bases)).toFixed(2)}x` : '';
    console.log(`  ${label.padEnd(58)} ${ms(value).padStart(10)}${ratio}${target ? `   (target ${target})` : ''}`);
  };
  console.log(`\nresults (median of ${RUNS} runs; a pull request of 50 commits touching 200 files on ${COMMITS} commits)`);
  row('git diff --numstat + git diff (by hand)', filesGit);
  row('GET /pulls/:id/files, 2 pages, first request (HTTP)', filesCold, filesGit, '<= 1.3x');
  row('GET /pulls/:id/files, 2 pages, repeated (cached)', filesWarm, filesGit);
  row('git merge-tree + commit-tree + update-ref (by hand)', mergeGit);
  row('POST /pulls/:id/merge (HTTP round trip)', mergeApi, mergeGit, '<= 1.3x');
  row('for reference: PATCH /pulls/:id (an API write, no git)', plainWrite);
} finally {
  await releaseLauncher();
  for (const pool of pools) await pool.close();
  await host.close();
  await rm(temp, { recursive: true, force: true });
}
