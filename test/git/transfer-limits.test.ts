import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser } from '../helpers/api.js';
import { http, startHost, tempDir } from '../helpers/host.js';
import { WorkTree } from './fixtures.js';

/** Processes (any depth) working in the host's repositories: their environment names them in GIT_DIR. */
async function gitProcessesOf(host: RepoHost): Promise<string[]> {
  const root = join(host.options.dataDir, 'repositories');
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').some((entry) => entry.startsWith(`GIT_DIR=${root}`))) found.push(pid);
  }
  return found;
}

const pkt = (text: string) => (text.length + 4).toString(16).padStart(4, '0') + text;

/** Asks for the whole pack of `sha` over a raw socket and never reads the answer. */
function stalledFetch(host: RepoHost, path: string, sha: string): Promise<Socket> {
  const { port } = new URL(host.url);
  const body = `${pkt(`want ${sha} side-band-64k ofs-delta\n`)}0000${pkt('done\n')}`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`POST ${path}/git-upload-pack HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-git-upload-pack-request\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

const waitFor = async (condition: () => Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
};

/** Issue 7 point 6: stalled transfers end, and transfers are capped in all and per client. */
describe('git transfer limits', () => {
  let host: RepoHost;
  let work: { path: string; cleanup: () => Promise<void> };
  let sha: string;

  beforeAll(async () => {
    host = await startHost({ gitIdleTimeoutMs: 1000, maxGitTransfers: 3, maxGitTransfersPerClient: 2 });
    const alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'big');
    work = await tempDir('repohost-transfer-');
    const tree = await WorkTree.init(join(work.path, 'src'));
    // Incompressible content larger than the socket buffers, so a client that does not read stalls git.
    await writeFile(join(tree.dir, 'blob.bin'), randomBytes(24 * 1024 * 1024));
    sha = await tree.commit('big blob');
    const remote = new URL(`${host.url}/alice/big.git`);
    remote.username = 'alice';
    remote.password = alice.token;
    await tree.git(['push', '-q', remote.toString(), 'main']);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('ends a transfer whose client stopped reading, killing and reaping its git processes', async () => {
    const socket = await stalledFetch(host, '/alice/big.git', sha);
    try {
      expect(await waitFor(async () => (await gitProcessesOf(host)).length > 0, 5000)).toBe(true);
      // The idle timeout is 1 s: the processes are gone well before the client would have read anything.
      expect(await waitFor(async () => (await gitProcessesOf(host)).length === 0, 5000)).toBe(true);
    } finally {
      socket.destroy();
    }
  });

  it('caps transfers per client address and in all: 503 with Retry-After, then places free up again', async () => {
    const sockets = [await stalledFetch(host, '/alice/big.git', sha), await stalledFetch(host, '/alice/big.git', sha)];
    try {
      await waitFor(async () => (await gitProcessesOf(host)).length >= 2, 5000);
      const third = await http(`${host.url}/alice/big.git/info/refs?service=git-upload-pack`);
      expect(third.status).toBe(503);
      expect(third.text).toContain('from your address');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Once the stalled transfers time out, their places are free.
      expect(await waitFor(async () => (await http(`${host.url}/alice/big.git/info/refs?service=git-upload-pack`)).status === 200, 5000)).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('the transfer gate', () => {
  it('holds at most the cap in all, and at most the per-client cap for one address', async () => {
    const { ConcurrencyGate } = await import('../../lib/concurrency-gate.js');
    const gate = new ConcurrencyGate(3, 2);
    const a1 = gate.enter('a');
    const a2 = gate.enter('a');
    expect(gate.enter('a')).toBe('client-busy');
    const b1 = gate.enter('b');
    expect(gate.enter('c')).toBe('busy');
    expect(typeof a1).toBe('function');
    (a1 as () => void)();
    (a1 as () => void)(); // a second release changes nothing
    expect(typeof gate.enter('c')).toBe('function');
    expect(gate.enter('d')).toBe('busy');
    expect([typeof a2, typeof b1]).toEqual(['function', 'function']);
  });
});
