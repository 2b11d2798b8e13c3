// Stalled-client benchmark: what do 20 clients that ask for a pack and never read it hold?
// Counts the git processes working in the host's repositories and their resident memory, while the clients stall
// and after the idle timeout. Run with `npm run bench:stall` (builds first). BENCH_CLIENTS (default 20),
// BENCH_IDLE_MS (default 5000, the host's gitIdleTimeoutMs for this run; the default option is 60000).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRepoHost } from '../../dist/index.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 20);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 5000);
// The server runs in this process: git must run asynchronously, or it would wait for a server that cannot answer.
const git = async (args, options) => (await promisify(execFile)('git', args, options)).stdout.trim();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pkt = (text) => (text.length + 4).toString(16).padStart(4, '0') + text;

async function gitProcesses(root) {
  let count = 0;
  let rssKb = 0;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (!environ.split('\0').some((entry) => entry.startsWith(`GIT_DIR=${root}`))) continue;
    count += 1;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    rssKb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return { count, rssMb: rssKb / 1024 };
}

const dir = await mkdtemp(join(tmpdir(), 'repohost-stall-bench-'));
const host = await createRepoHost({ port: 0, bcryptCost: 4, gitIdleTimeoutMs: IDLE_MS });
const sockets = [];
try {
  await host.admin.createUser({ username: 'bench', email: 'b@example.com', password: 'password123' });
  const token = await host.admin.createToken('bench', 't');
  await host.admin.createRepo({ owner: 'bench', name: 'big' });
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@e' };
  const work = join(dir, 'work');
  await git(['init', '-q', '-b', 'main', work], { env });
  await writeFile(join(work, 'blob.bin'), randomBytes(32 * 1024 * 1024));
  await git(['add', '.'], { cwd: work, env });
  await git(['commit', '-q', '-m', 'big'], { cwd: work, env });
  const sha = await git(['rev-parse', 'HEAD'], { cwd: work, env });
  const remote = new URL(`${host.url}/bench/big.git`);
  remote.username = 'bench';
  remote.password = token;
  await git(['push', '-q', remote.toString(), 'main'], { cwd: work, env: { ...env, GIT_TERMINAL_PROMPT: '0' } });

  const root = join(host.options.dataDir, 'repositories');
  const body = `${pkt(`want ${sha} side-band-64k ofs-delta\n`)}0000${pkt('done\n')}`;
  const answers = [];
  for (let i = 0; i < CLIENTS; i++) {
    const socket = connect(host.port, '127.0.0.1');
    socket.write(`POST /bench/big.git/git-upload-pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-git-upload-pack-request\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    socket.pause();
    socket.once('readable', () => answers.push(String(socket.read(12) ?? '')));
    sockets.push(socket);
  }
  await sleep(1500);
  const stalled = await gitProcesses(root);
  const refused = answers.filter((line) => line.includes('503')).length;
  await sleep(IDLE_MS + 1000);
  const after = await gitProcesses(root);
  console.log(`stall benchmark: ${CLIENTS} clients ask for a ${32} MiB pack and never read it (one address; defaults: 16 transfers, 4 per client)`);
  console.log(`  refused at once with 503:            ${refused}`);
  console.log(`  git processes held while stalled:     ${stalled.count} (${stalled.rssMb.toFixed(0)} MiB resident)`);
  console.log(`  git processes after the ${IDLE_MS} ms idle timeout: ${after.count} (${after.rssMb.toFixed(0)} MiB resident)`);
} finally {
  for (const socket of sockets) socket.destroy();
  await host.close();
  await rm(dir, { recursive: true, force: true });
}
