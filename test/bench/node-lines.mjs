// The same benchmarks on several Node.js lines in one session (issue 39), so that a move to another line can be seen
// not to make anything slower: each named bench script runs once per line per round, the lines' order alternating
// round by round (this machine's speed drifts within minutes). Each run prints its own figures under a header; every
// bench reports ratios against a baseline of its own run, which are what compare across lines.
// Run after `npm run build`: NODE_LINES="$(bash scripts/node-line.sh 24.22.3)/node:/usr/bin/node" \
//   node test/bench/node-lines.mjs issue-list push git
// Options: BENCH_LINE_ROUNDS (default 1); the benches' own options pass through (BENCH_ROUNDS, BENCH_RUNS, ...).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const lines = (process.env.NODE_LINES ?? process.execPath).split(':').filter(Boolean);
const benches = process.argv.slice(2);
const rounds = Number(process.env.BENCH_LINE_ROUNDS ?? 1);
if (benches.length === 0) throw new Error('name the benches to run, e.g. issue-list push git');

function versionOf(node) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ['--version'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(out.trim()));
  });
}

function runBench(node, bench) {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL(`./${bench}-bench.mjs`, import.meta.url));
    const child = spawn(node, [script], { stdio: 'inherit', env: { ...process.env, NODE: node } });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${bench} on ${node}: exit ${code}`))));
  });
}

const versions = await Promise.all(lines.map(versionOf));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? lines.map((_, i) => i) : lines.map((_, i) => lines.length - 1 - i);
  for (const bench of benches) {
    for (const index of order) {
      console.log(`\n===== ${bench} on node ${versions[index]} (round ${round + 1} of ${rounds}) =====`);
      await runBench(lines[index], bench);
    }
  }
}
