import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRepoHost, type RepoHost } from '../../lib/index.js';
import { sourceOf } from '../../lib/ssh/slots.js';
import { newUser } from '../helpers/api.js';
import { bearer, http, tempDir } from '../helpers/host.js';
import { runCli, startCliServer, type ServerProcess } from '../cli/processes.js';

// Issue 22: `repohost serve --ssh-port`, `repohost user key add`, host keys kept across restarts, and the limits on
// connections (in number, per address, time to authenticate) and a clean close.

const run = promisify(execFile);

/** A raw TCP connection to the SSH port: what it was sent before it closed, and when it closed. */
/** A TCP connection to the SSH port that reads what comes; `hello` sends an SSH version line (and nothing more). */
function rawConnection(port: number, localAddress?: string, hello = false): { socket: Socket; received: () => string; closed: Promise<number> } {
  const started = performance.now();
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  if (hello) socket.write('SSH-2.0-test\r\n');
  let received = '';
  socket.setEncoding('latin1').on('data', (text: string) => (received += text));
  socket.on('error', () => undefined);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)));
  return { socket, received: () => received, closed };
}

async function sshPortOf(server: ServerProcess): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const port = /serving git over SSH on port (\d+)/.exec(server.output().stdout)?.[1];
    if (port) return Number(port);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no SSH port printed: ${server.output().stdout}`);
}

describe('repohost serve --ssh-port', () => {
  let work: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    work = await tempDir('repohost-ssh-serve-');
  });

  afterAll(async () => {
    await work?.cleanup();
  });

  it('adds keys from the shell, serves clones, and keeps its host keys across a restart', async () => {
    const db = join(work.path, 'forge.db');
    const key = join(work.path, 'id_ed25519');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'carol@laptop', '-f', key]);
    expect((await runCli(['user', 'add', 'carol', '--email', 'carol@example.com', '--password', 'password123', '--db', db])).code).toBe(0);
    const added = await runCli(['user', 'key', 'add', 'carol', `${key}.pub`, '--db', db]);
    expect(added.stderr).toBe('');
    const fingerprint = (await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${key}.pub`])).stdout.split(' ')[1]!;
    expect(added.stdout).toBe(`added key ${fingerprint} (carol@laptop) to carol\n`);
    expect((await runCli(['user', 'key', 'add', 'carol', '-', '--db', db], { input: await readFile(`${key}.pub`, 'utf8') })).stderr).toContain('key is already in use');
    expect((await runCli(['user', 'key', 'add', 'carol', join(work.path, 'nope.pub'), '--db', db])).stderr).toContain('no such file');
    expect((await runCli(['repo', 'seed', 'carol/notes', '--db', db])).code).toBe(0);

    const knownHosts = join(work.path, 'known_hosts');
    const sshCommand = `ssh -i ${key} -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o UserKnownHostsFile=${knownHosts}`;
    const lsRemote = async (port: number, checking: 'accept-new' | 'yes') =>
      await run('git', ['ls-remote', `ssh://git@127.0.0.1:${port}/carol/notes.git`], {
        env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_SSH_COMMAND: `${sshCommand} -o StrictHostKeyChecking=${checking}` },
      });
    let server = await startCliServer(['--ssh-port', '0', '--db', db]);
    let port: number;
    try {
      port = await sshPortOf(server);
      expect((await lsRemote(port, 'accept-new')).stdout).toMatch(/refs\/heads\/main/);
      const keyFile = join(work.path, 'forge-data', 'ssh', 'ssh_host_ed25519_key');
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }
    // The same host keys after a restart: the known_hosts entry still matches (StrictHostKeyChecking=yes).
    server = await startCliServer(['--ssh-port', String(port), '--db', db]);
    try {
      expect(await sshPortOf(server)).toBe(port);
      expect((await lsRemote(port, 'yes')).stdout).toMatch(/refs\/heads\/main/);
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }
  });
});

describe('SSH connection limits', () => {
  let host: RepoHost;

  beforeAll(async () => {
    host = await createRepoHost({ port: 0, bcryptCost: 4, sshPort: 0, maxSshConnectionsPerAddress: 2, sshLoginGraceMs: 400 });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('closes a connection beyond the cap per address at once, and one that does not authenticate in time', async () => {
    const first = rawConnection(host.sshPort!);
    const second = rawConnection(host.sshPort!);
    await expect.poll(() => first.received() + second.received()).toMatch(/^SSH-2\.0-repohost\r\n.*SSH-2\.0-repohost\r\n/s);
    const third = rawConnection(host.sshPort!);
    expect(await third.closed).toBeLessThan(300);
    expect(third.received()).toBe('');
    // Neither of the two ever authenticates: both are closed once the grace time is over.
    const [a, b] = await Promise.all([first.closed, second.closed]);
    expect(Math.min(a, b)).toBeGreaterThanOrEqual(350);
    expect(Math.max(a, b)).toBeLessThan(3000);
    // Places are given back: a new connection is greeted again.
    const fourth = rawConnection(host.sshPort!);
    await expect.poll(() => fourth.received()).toMatch(/^SSH-2\.0-repohost/);
    fourth.socket.destroy();
  });

  it('counts IPv6 addresses by their /64, IPv4 ones (mapped too) by themselves (issue 38)', () => {
    expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(sourceOf('::1')).toBe('0:0:0:0::/64');
    expect(sourceOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(sourceOf('192.0.2.7')).toBe('192.0.2.7');
  });

  it('lets a newcomer in when unauthenticated sockets of other addresses hold every slot, pushing out the most crowded source (issue 38)', async () => {
    // Linux routes all of 127.0.0.0/8 to loopback: each address stands for another client.
    const small = await createRepoHost({ port: 0, bcryptCost: 4, sshPort: 0, maxSshConnections: 4, maxSshConnectionsPerAddress: 3 });
    try {
      const greeted = (connection: ReturnType<typeof rawConnection>) => expect.poll(() => connection.received()).toMatch(/^SSH-2\.0-repohost/);
      const open = (address: string) => rawConnection(small.sshPort!, address, true);
      const crowd = [open('127.0.0.2'), open('127.0.0.2'), open('127.0.0.2')];
      const other = open('127.0.0.3');
      for (const connection of [...crowd, other]) await greeted(connection);
      let closed = 0;
      for (const connection of [...crowd, other]) void connection.closed.then(() => closed++);
      // Every slot is taken: a newcomer from another address takes the place of the oldest of the crowded address.
      const newcomer = open('127.0.0.4');
      await greeted(newcomer);
      await crowd[0]!.closed;
      expect(closed).toBe(1);
      // The crowded address holds two now, 127.0.0.5 none: that one gets in too, and the crowded address's oldest goes.
      const next = open('127.0.0.5');
      await greeted(next);
      await crowd[1]!.closed;
      expect(closed).toBe(2);
      // No address holds more than one above a newcomer's none now: the newcomer is refused, nobody is pushed out.
      const refused = open('127.0.0.6');
      await refused.closed;
      expect(refused.received()).toBe('');
      expect(closed).toBe(2);
      for (const connection of [crowd[2]!, other, newcomer, next]) connection.socket.destroy();
    } finally {
      await small.close();
    }
  });

  it('keeps the last slots for keys that authenticated before: a key never seen is refused there, a known one signs in (issue 38)', async () => {
    const small = await createRepoHost({ port: 0, bcryptCost: 4, sshPort: 0, maxSshConnections: 8, maxSshConnectionsPerAddress: 8 });
    const work = await tempDir('repohost-ssh-slots-');
    try {
      const keyOf = async (user: Awaited<ReturnType<typeof newUser>>) => {
        const key = join(work.path, user.username);
        await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
        expect((await http(`${small.url}/api/v3/user/keys`, { headers: bearer(user.token), json: { key: await readFile(`${key}.pub`, 'utf8') } })).status).toBe(201);
        return key;
      };
      const [alice, bob] = [await keyOf(await newUser(small, 'alice')), await keyOf(await newUser(small, 'bob'))];
      const ssh = (key: string) =>
        run('ssh', ['-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-p', String(small.sshPort), 'git@127.0.0.1']).then(
          () => '',
          (error: { stderr: string }) => error.stderr,
        );
      // alice signs in once while slots are free: her key is known from then on.
      expect(await ssh(alice)).toContain('Hi alice!');
      // Seven of eight slots taken by connections that never sign in: the eighth is kept for known keys.
      const holders = Array.from({ length: 7 }, () => rawConnection(small.sshPort!, '127.0.0.2', true));
      for (const holder of holders) await expect.poll(() => holder.received()).toMatch(/^SSH-2\.0-repohost/);
      expect(await ssh(bob)).not.toContain('Hi bob!');
      expect(await ssh(alice)).toContain('Hi alice!');
      for (const holder of holders) holder.socket.destroy();
    } finally {
      await small.close();
      await work.cleanup();
    }
  });

  it('closes a connection that sends nothing within five seconds, one that sent its version line only at the login grace (issue 38)', async () => {
    const patient = await createRepoHost({ port: 0, bcryptCost: 4, sshPort: 0, sshLoginGraceMs: 8000 });
    try {
      const silent = rawConnection(patient.sshPort!);
      const greeting = rawConnection(patient.sshPort!, undefined, true);
      const [silentClosed, greetingClosed] = await Promise.all([silent.closed, greeting.closed]);
      expect(silentClosed).toBeGreaterThan(4500);
      expect(silentClosed).toBeLessThan(6500);
      // Time to answer OpenSSH's host key question, say: the whole login grace.
      expect(greetingClosed).toBeGreaterThan(7500);
    } finally {
      await patient.close();
    }
  });

  it('closes its connections promptly when the host stops', async () => {
    const other = await createRepoHost({ port: 0, bcryptCost: 4, sshPort: 0 });
    const open = rawConnection(other.sshPort!);
    await expect.poll(() => open.received()).toMatch(/^SSH-2\.0-repohost/);
    const started = performance.now();
    await other.close();
    await open.closed;
    expect(performance.now() - started).toBeLessThan(1500);
    // Nothing listens any more.
    const after = rawConnection(other.sshPort!);
    await after.closed;
    expect(after.received()).toBe('');
  });
});

describe('SSH sign-in failures per address', () => {
  let host: RepoHost;
  let work: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    host = await createRepoHost({ port: 0, bcryptCost: 4, sshPort: 0, maxFailedLoginsPerAddress: 3, failedLoginWindowMs: 2500 });
    work = await tempDir('repohost-ssh-failures-');
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('closes an address at once after its failed sign-ins, shares the count with passwords, and forgets it after the window', async () => {
    const alice = await newUser(host, 'alice');
    const keyOf = async (name: string) => {
      const key = join(work.path, name);
      await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
      return key;
    };
    const known = await keyOf('known');
    const unknown = await keyOf('unknown');
    const added = await http(`${host.url}/api/v3/user/keys`, { headers: bearer(alice.token), json: { title: 'known', key: await readFile(`${known}.pub`, 'utf8') } });
    expect(added.status).toBe(201);
    const ssh = async (key: string) => {
      const options = ['-i', key, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes'];
      try {
        await run('ssh', [...options, '-p', String(host.sshPort), 'git@127.0.0.1']);
        return { code: 0, stderr: '' };
      } catch (error) {
        const failed = error as { code: number; stderr: string };
        return { code: failed.code, stderr: failed.stderr };
      }
    };
    // The known key signs in (and a shell is refused with its greeting): not a failure.
    expect((await ssh(known)).stderr).toContain('Hi alice!');
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await ssh(unknown)).stderr).toContain('Permission denied (publickey)');
    // Now even the right key is not heard: the connection closes before the server says a word.
    const closed = await ssh(known);
    expect(closed.code).toBe(255);
    expect(closed.stderr).not.toContain('Hi alice!');
    expect(closed.stderr).toMatch(/kex_exchange_identification|Connection (closed|reset)/);
    // The same address's password checks are held too.
    const password = await http(`${host.url}/api/v3/user`, { headers: { authorization: `Basic ${Buffer.from('alice:wrong').toString('base64')}` } });
    expect(password.status).toBe(429);
    // Once the window (counted from the first failure, recorded as its connection closed) has passed, the address may
    // sign in again; refused tries meanwhile do not count.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 2500 - Date.now())));
    await expect.poll(async () => (await ssh(known)).stderr, { timeout: 5000, interval: 200 }).toContain('Hi alice!');
  });
});
