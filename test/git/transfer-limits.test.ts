import { randomBytes } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyGate } from '../../lib/concurrency-gate.js';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser } from '../helpers/api.js';
import { http, startHost, tempDir } from '../helpers/host.js';
import { sh, WorkTree } from './fixtures.js';

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
    host = await startHost({ gitIdleTimeoutMs: 1000, maxGitTransfers: 3, maxGitTransfersPerClient: 2, gitTransferWaitMs: 300 });
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

  it('caps transfers per client address: after the wait (gitTransferWaitMs) 503 with Retry-After, then places free up again', async () => {
    const sockets = [await stalledFetch(host, '/alice/big.git', sha), await stalledFetch(host, '/alice/big.git', sha)];
    // A flush-only negotiation: upload-pack answers at once, so only the gate can hold it.
    const transfer = () =>
      http(`${host.url}/alice/big.git/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-upload-pack-request' }, body: '0000' });
    try {
      await waitFor(async () => (await gitProcessesOf(host)).length >= 2, 5000);
      const started = Date.now();
      const third = await transfer();
      expect(third.status).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250); // it waited for a place first
      expect(third.text).toContain('from your address');
      expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
      // Ref advertisements are not transfers (issue 17 point 9): they are answered while the transfers are full.
      expect((await http(`${host.url}/alice/big.git/info/refs?service=git-upload-pack`)).status).toBe(200);
      // Once the stalled transfers time out, their places are free.
      expect(await waitFor(async () => (await transfer()).status === 200, 5000)).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});

/**
 * Issue 17 point 9: a CI machine runs many jobs against one host from one address. Transfers are counted (not the
 * ref advertisement before each), and a transfer beyond the per-address cap waits for a place instead of failing.
 */
describe('many parallel git jobs from one address, default options', () => {
  let host: RepoHost;
  let work: { path: string; cleanup: () => Promise<void> };
  let tree: WorkTree;
  let remote: string;
  let mainSha: string;

  beforeAll(async () => {
    host = await startHost();
    const alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'ci');
    work = await tempDir('repohost-parallel-');
    tree = await WorkTree.init(join(work.path, 'src'));
    mainSha = await tree.commit('base', { 'README.md': '# ci\n' });
    const url = new URL(`${host.url}/alice/ci.git`);
    url.username = 'alice';
    url.password = alice.token;
    remote = url.toString();
    await tree.git(['push', '-q', remote, 'main']);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('lets 20 parallel pushes (one branch each) all succeed', async () => {
    const branches = Array.from({ length: 20 }, (_, index) => `job-${index}`);
    const tips = new Map<string, string>();
    for (const branch of branches) {
      await tree.git(['checkout', '-q', '-b', branch, 'main']);
      tips.set(branch, await tree.commit(branch, { [`${branch}.txt`]: `${branch}\n` }));
    }
    const results = await Promise.allSettled(branches.map((branch) => sh(tree.dir, ['push', '-q', remote, `refs/heads/${branch}`])));
    expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
    const listed = new Map((await sh(tree.dir, ['ls-remote', remote, 'refs/heads/job-*'])).split('\n').map((line) => line.split('\t').reverse() as [string, string]));
    for (const branch of branches) expect(listed.get(`refs/heads/${branch}`)).toBe(tips.get(branch));
  });

  it('lets 8 parallel clones all succeed', async () => {
    const clones = Array.from({ length: 8 }, (_, index) => join(work.path, `clone-${index}`));
    const results = await Promise.allSettled(clones.map((dir) => sh(work.path, ['clone', '-q', remote, dir])));
    expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
    for (const dir of clones) expect(await sh(dir, ['rev-parse', 'HEAD'])).toBe(mainSha);
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

describe('waiting for a place at the gate', () => {
  it('gives freed places to waiters first come, first served, skipping those held by their own cap', async () => {
    const gate = new ConcurrencyGate(2, 1);
    const a = gate.enter('a') as () => void;
    const b = gate.enter('b') as () => void;
    const order: string[] = [];
    const waiters = [gate.wait('a', 5000), gate.wait('c', 5000), gate.wait('d', 5000)].map((promise, index) =>
      promise.then((place) => {
        order.push(['a', 'c', 'd'][index]!);
        return place;
      }),
    );
    expect(gate.load).toEqual({ running: 2, waiting: 3 });
    b(); // 'a' still holds its one place: 'c', the next in line that fits, takes it
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['c']);
    a();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['c', 'a']);
    const [placeA, placeC] = (await Promise.all(waiters.slice(0, 2))) as Array<() => void>;
    placeC!();
    expect(typeof (await waiters[2])).toBe('function');
    expect(order).toEqual(['c', 'a', 'd']);
    placeA!();
  });

  it('answers the refusal after the wait, and drops a waiter whose client left', async () => {
    const gate = new ConcurrencyGate(1, 1);
    const held = gate.enter('a') as () => void;
    const started = Date.now();
    expect(await gate.wait('a', 100)).toBe('client-busy');
    expect(await gate.wait('b', 100)).toBe('busy');
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await gate.wait('b', 0)).toBe('busy');
    const left = new AbortController();
    const abandoned = gate.wait('b', 5000, left.signal);
    const next = gate.wait('c', 5000);
    left.abort();
    expect(await abandoned).toBe('aborted');
    expect(gate.load.waiting).toBe(1);
    held();
    const place = await next;
    expect(typeof place).toBe('function');
    expect(gate.load).toEqual({ running: 1, waiting: 0 });
  });
});
