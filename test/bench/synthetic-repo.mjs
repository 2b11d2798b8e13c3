// The synthetic repository of the benchmarks: a deterministic history of many commits over 2,000 files in nested
// folders (src/mNN/sN/fN.txt), with a merged side branch every 200 commits, made by git fast-import.
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { acquireGitLauncher, gitLauncherStarted, launchProcess } from '../../dist/git/launcher/index.js';

export const MODULES = 20; // src/mNN/sNN/fNN.txt: 20 x 10 x 10 = 2,000 files
export const FILES = MODULES * 10 * 10;
/** The path of file number `i`. */
export const filePath = (i) => `src/m${String(Math.floor(i / 100)).padStart(2, '0')}/s${Math.floor(i / 10) % 10}/f${i % 10}.txt`;

export const env = { PATH: process.env.PATH ?? '', HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LANG: 'C' };

/**
 * Git by hand starts the way the host starts git, through the launcher (a small process that forks), once
 * `startLauncher()` was called: forking this benchmark's own large process instead would cost every by-hand run
 * milliseconds that the host does not pay, and flatter every ratio. Resolves with a function that releases it.
 */
export async function startLauncher() {
  const release = acquireGitLauncher();
  // The first git command starts it (run directly meanwhile).
  await run(['--version'], {});
  if (!(await gitLauncherStarted())) throw new Error('the git launcher did not start');
  return release;
}

function run(args, { cwd, input, extraEnv, keepOutput }) {
  return new Promise((resolve, reject) => {
    const child = launchProcess('git', args, { cwd, env: { ...env, ...extraEnv } });
    let bytes = 0;
    const kept = [];
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      bytes += chunk.length;
      if (keepOutput) kept.push(chunk);
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ bytes, text: Buffer.concat(kept).toString('utf8') }) : reject(new Error(`git ${args.join(' ')}: ${code}\n${stderr}`))));
    if (input) {
      (async () => {
        for await (const piece of typeof input === 'string' ? [input] : input) if (!child.stdin.write(piece)) await new Promise((r) => child.stdin.once('drain', r));
        child.stdin.end();
      })().catch(reject);
    } else child.stdin.end();
  });
}

/** Runs git; resolves with stdout byte count (output is discarded, as a client would write it to disk). */
export async function git(args, { cwd, input, env: extraEnv } = {}) {
  return (await run(args, { cwd, input, extraEnv, keepOutput: false })).bytes;
}

/** Runs git; resolves with its output, trimmed. */
export async function gitText(args, { cwd, input, env: extraEnv } = {}) {
  return (await run(args, { cwd, input, extraEnv, keepOutput: true })).text.trim();
}

export async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
export const ms = (value) => `${value.toFixed(1)} ms`;

/** A deterministic fast-import stream: one commit adding 2,000 files, then small edits, a merge every 200 commits. */
export function* fastImport(COMMITS) {
  let seed = 42;
  const random = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const body = (i, version) => `file ${i} version ${version}\n${'lorem ipsum dolor sit amet '.repeat(4 + (i % 7))}\n`;
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let time = 1_600_000_000;
  let mark = 0;
  const commit = (ref, message, changes, from, merge) => {
    mark += 1;
    time += 60;
    let out = `commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.com> ${time} +0000\n${data(message)}`;
    if (from) out += `from :${from}\n`;
    if (merge) out += `merge :${merge}\n`;
    for (const [file, text] of changes) out += `M 100644 inline ${file}\n${data(text)}`;
    return out;
  };
  const initial = [['README.md', '# bench\n'], ['LICENSE', 'MIT\n']];
  for (let i = 0; i < FILES; i++) initial.push([filePath(i), body(i, 0)]);
  yield commit('refs/heads/main', 'Initial import', initial);
  let main = mark;
  let made = 1;
  while (made < COMMITS) {
    if (made % 200 === 199 && made + 4 <= COMMITS) {
      // A side branch of three commits merged back (no-ff): exercises -m blocks in the walk.
      let side = main;
      for (let k = 0; k < 3; k++) {
        const i = random(FILES);
        yield commit('refs/heads/side', `side change ${made} ${k}`, [[filePath(i), body(i, made)]], side);
        side = mark;
        made += 1;
      }
      const i = random(FILES);
      yield commit('refs/heads/main', `main change ${made}`, [[filePath(i), body(i, made)]], main);
      main = mark;
      yield commit('refs/heads/main', `Merge side ${made}`, [], main, side);
      main = mark;
      made += 2;
      continue;
    }
    const changes = [];
    for (let n = 1 + random(3); n > 0; n--) {
      const i = random(FILES);
      changes.push([filePath(i), body(i, made)]);
    }
    if (made % 1000 === 0) changes.push(['README.md', `# bench\nrevision ${made}\n`]);
    yield commit('refs/heads/main', `change ${made}`, changes, main);
    main = mark;
    made += 1;
  }
  yield 'done\n';
}

/** Builds the synthetic history of `commits` commits into a new bare repository at `gitDir` (branch main). */
export async function buildSyntheticRepository(gitDir, commits) {
  await git(['init', '-q', '--bare', '-b', 'main', gitDir]);
  await git(['--git-dir', gitDir, 'fast-import', '--quiet'], { input: fastImport(commits) });
  await git(['--git-dir', gitDir, 'repack', '-adq']);
  await git(['--git-dir', gitDir, 'branch', '-D', 'side']);
}
