// Harness benchmark: how long snapshot(), restore() and reset() take on a host with 10 repositories of 100 commits
// (target: <= 50 ms for a restore, so one can run between every test), and how long fixtures of 100 commits take to
// load. Run with `npm run bench:harness` (builds first). BENCH_REPOS, BENCH_COMMITS, BENCH_ROUNDS change the sizes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoHost } from '../../dist/index.js';
import { fastImport, git, median, ms, timed } from './synthetic-repo.mjs';

const REPOS = Number(process.env.BENCH_REPOS ?? 10);
const COMMITS = Number(process.env.BENCH_COMMITS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const p90 = (values) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(values.length * 0.9) - 1)];
const report = (name, values) => console.log(`${name.padEnd(44)} median ${ms(median(values)).padStart(10)}   p90 ${ms(p90(values)).padStart(10)}   (${values.length} runs)`);

/** Fixtures of one repository with `commits` commits, each changing a file in a nested folder. */
function historyFixtures(commits) {
  return {
    users: [{ username: 'owner', email: 'owner@example.com', password: 'password123', tokens: [{ name: 'bench', token: 'bench_token_0123456789abcdef' }] }],
    repositories: [
      {
        owner: 'owner',
        name: 'history',
        branches: { main: { commits: Array.from({ length: commits }, (_, i) => ({ message: `change ${i}`, files: { [`src/m${i % 10}/f${i % 7}.txt`]: `version ${i}\n` } })) } },
        labels: [{ name: 'bug', color: 'd73a4a' }],
        issues: Array.from({ length: 20 }, (_, i) => ({ title: `issue ${i}`, labels: ['bug'], comments: [{ body: 'a comment' }] })),
      },
    ],
  };
}

const dir = await mkdtemp(join(tmpdir(), 'repohost-harness-bench-'));
try {
  const source = join(dir, 'source.git');
  // The benchmarks' synthetic history (buildSyntheticRepository expects a merged side branch, which 100 commits lack).
  await git(['init', '-q', '--bare', '-b', 'main', source]);
  await git(['--git-dir', source, 'fast-import', '--quiet'], { input: fastImport(COMMITS) });

  let host;
  const load = await timed(async () => {
    host = await createRepoHost({ port: 0, bcryptCost: 4, fixtures: historyFixtures(COMMITS) });
  });
  console.log(`start with fixtures of ${COMMITS} commits and 20 issues: ${ms(load)}`);
  // The other repositories: each the synthetic history (2,000 files, ${COMMITS} commits) imported from a bare repository.
  for (let i = 1; i < REPOS; i++) await host.admin.seedRepo({ owner: 'owner', name: `repo-${i}`, from: source });
  await host.idle();
  console.log(`host: ${REPOS} repositories of ${COMMITS} commits (1 from fixtures, ${REPOS - 1} imported), 20 issues\n`);

  const snapshots = [];
  const restores = [];
  const resets = [];
  let snapshot;
  for (let round = 0; round < ROUNDS; round++) {
    snapshots.push(await timed(async () => (snapshot = await host.snapshot())));
  }
  for (let round = 0; round < ROUNDS; round++) {
    // What a test would do: a database write and a new repository with a commit.
    await host.admin.createToken('owner', `round-${round}`);
    await host.admin.seedRepo({ owner: 'owner', name: `scratch-${round}` });
    restores.push(await timed(() => host.restore(snapshot)));
  }
  for (let round = 0; round < ROUNDS; round++) {
    await host.admin.seedRepo({ owner: 'owner', name: `scratch-${round}` });
    resets.push(await timed(() => host.reset()));
  }
  report('snapshot()', snapshots);
  report('restore() after a write and a new repository', restores);
  report('reset() to the fixtures (1 repository)', resets);
  await host.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
