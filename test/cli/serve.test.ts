import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/host.js';
import { call, runCli, startCliServer, type ServerProcess } from './processes.js';

let dir: { path: string; cleanup: () => Promise<void> };
let servers: ServerProcess[] = [];
let dbFile: string;
beforeEach(async () => {
  dir = await tempDir('repohost-serve-');
  dbFile = join(dir.path, 'forge.db');
  servers = [];
});
afterEach(async () => {
  for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.kill('SIGKILL');
  await dir.cleanup();
});

async function serve(args: string[] = ['--db', dbFile], env?: Record<string, string>): Promise<ServerProcess> {
  const server = await startCliServer(args, env);
  servers.push(server);
  return server;
}

describe('repohost serve', () => {
  it('serves on the port and database from the environment, holds the lock, and stops cleanly on SIGTERM', async () => {
    const server = await serve([], { REPOHOST_DB: dbFile, REPOHOST_PORT: '0' });
    expect(server.output().stdout).toMatch(/^repohost listening on http:\/\/127\.0\.0\.1:\d+ /);
    expect((await call(`${server.url}/`)).status).toBe(200);
    const lock = JSON.parse(await readFile(`${dbFile}.lock`, 'utf8'));
    expect(lock.pid).toBe(server.child.pid);
    // The admin channel's secret is readable by its owner only.
    expect(statSync(`${dbFile}.admin`).mode & 0o777).toBe(0o600);
    expect(await server.kill('SIGTERM')).toBe(0);
    expect(server.output().stderr).toContain('SIGTERM received');
    expect(existsSync(`${dbFile}.lock`)).toBe(false);
    expect(existsSync(`${dbFile}.admin`)).toBe(false);
  });

  it('on SIGTERM lets an in-flight request finish, keeps its write, and only then exits 0', async () => {
    const server = await serve();
    const db = ['--db', dbFile];
    expect((await runCli(['user', 'add', 'fay', '--email', 'fay@example.com', '--password', 'password123', ...db])).code).toBe(0);
    const token = (await runCli(['token', 'create', 'fay', ...db])).stdout.trim();
    expect((await runCli(['repo', 'create', 'fay/slow', ...db])).code).toBe(0);
    const { request } = await import('node:http');
    const body = new URLSearchParams({ title: 'sent slowly', body: 'y'.repeat(2000) }).toString();
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(`${server.url}/api/v1/repos/fay/slow/issues`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.write(body.slice(0, 100));
      // The rest arrives well after the server was told to stop.
      setTimeout(() => req.end(body.slice(100)), 700);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = server.kill('SIGTERM');
    const response = await answered;
    expect(response.status).toBe(200);
    expect(await exited).toBe(0);
    const again = await serve();
    expect((await call(`${again.url}/api/v1/repos/fay/slow/issues`)).json).toMatchObject([{ title: 'sent slowly' }]);
  });

  it("holds /api/v3 callers to GitHub's rate limits, unless --no-rate-limit", async () => {
    const enforced = await serve();
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await call(`${enforced.url}/api/v3/meta`)).status);
    expect(statuses.slice(0, 60).every((status) => status === 200)).toBe(true);
    const refused = await call(`${enforced.url}/api/v3/meta`);
    expect(refused.status).toBe(403);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.json.message).toMatch(/^API rate limit exceeded for 127\.0\.0\.1\./);
    expect(await enforced.kill('SIGTERM')).toBe(0);
    const counting = await serve(['--db', dbFile, '--no-rate-limit']);
    for (let i = 0; i < 61; i++) await call(`${counting.url}/api/v3/meta`);
    const counted = await call(`${counting.url}/api/v3/meta`);
    expect([counted.status, counted.headers['x-ratelimit-remaining'], counted.headers['x-ratelimit-used']]).toEqual([200, '0', '62']);
  });

  it('exits 0 on SIGINT and binds all interfaces with a bare --host', async () => {
    const server = await serve(['--db', dbFile, '--host']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(await server.kill('SIGINT')).toBe(0);
  });

  it('refuses a second server on the same database with a clear message', async () => {
    const first = await serve();
    const second = await runCli(['serve', '--port', '0', '--db', dbFile]);
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(`error: database ${dbFile} is in use by another repohost process (pid ${first.child.pid}); stop it first (if pid ${first.child.pid} is not repohost, remove ${dbFile}.lock)\n`);
    // The first one is unaffected.
    expect((await call(`${first.url}/`)).status).toBe(200);
  });

  it('fails on an explicitly requested port that is busy instead of taking another one', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const result = await runCli(['serve', '--port', String(port), '--db', dbFile]);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`error: port ${port} is already in use\n`);
      expect(existsSync(`${dbFile}.lock`)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it('runs user add and token create through the running server: effective at once, and kept after a restart', async () => {
    const server = await serve();
    const db = ['--db', dbFile];
    expect((await runCli(['user', 'add', 'dana', '--email', 'dana@example.com', '--password-stdin', ...db], { input: 'password123' })).code).toBe(0);
    const created = await runCli(['token', 'create', 'dana', '--name', 'laptop', ...db]);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    // Live at once: the server answers with the new user for the new token.
    expect((await call(`${server.url}/api/v1/me`, { token })).json).toMatchObject({ username: 'dana' });
    expect((await runCli(['repo', 'seed', 'dana/notes', ...db])).code).toBe(0);
    expect((await call(`${server.url}/api/v1/repos/dana/notes`)).json).toMatchObject({ name: 'notes', default_branch: 'main' });
    // Errors travel back from the server as one line with exit code 1.
    const duplicate = await runCli(['user', 'add', 'dana', '--email', 'd@example.com', '--password', 'password123', ...db]);
    expect(duplicate).toMatchObject({ code: 1, stderr: 'error: username is already taken\n' });
    expect((await runCli(['user', 'list', ...db])).stdout).toBe('dana\tdana@example.com\t\t\n');

    expect(await server.kill('SIGTERM')).toBe(0);
    const again = await serve();
    expect((await call(`${again.url}/api/v1/me`, { token })).json).toMatchObject({ username: 'dana' });

    // Acknowledged admin writes survive a SIGKILL as well.
    expect((await runCli(['user', 'add', 'erin', '--email', 'erin@example.com', '--password', 'password123', ...db])).code).toBe(0);
    const erinToken = (await runCli(['token', 'create', 'erin', ...db])).stdout.trim();
    expect(await again.kill('SIGKILL')).toBe('SIGKILL');
    // With the server gone (its lock now stale), the command opens the database itself.
    expect((await runCli(['user', 'list', ...db])).stdout).toContain('erin\terin@example.com');
    expect(existsSync(`${dbFile}.lock`)).toBe(false);
    const third = await serve();
    expect((await call(`${third.url}/api/v1/me`, { token: erinToken })).json).toMatchObject({ username: 'erin' });
  });

  it('waits for a lock held for a moment by another process, then opens the database itself', async () => {
    const { spawn } = await import('node:child_process');
    const { hostname } = await import('node:os');
    const { writeFile, rm } = await import('node:fs/promises');
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      await writeFile(`${dbFile}.lock`, JSON.stringify({ pid: holder.pid, host: hostname() }));
      const started = Date.now();
      const pending = runCli(['user', 'list', '--db', dbFile]);
      setTimeout(() => void rm(`${dbFile}.lock`), 800);
      expect(await pending).toMatchObject({ code: 0, stdout: '' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('refuses admin calls without the secret', async () => {
    await serve();
    const channel = JSON.parse(await readFile(`${dbFile}.admin`, 'utf8')) as { url: string; secret: string };
    expect(channel.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const body = JSON.stringify({ op: 'listUsers', args: [] });
    expect((await fetch(channel.url, { method: 'POST', body })).status).toBe(401);
    expect((await fetch(channel.url, { method: 'POST', body, headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const ok = await fetch(channel.url, { method: 'POST', body, headers: { authorization: `Bearer ${channel.secret}` } });
    expect(await ok.json()).toEqual({ ok: true, result: [] });
    const unknown = await fetch(channel.url, { method: 'POST', body: JSON.stringify({ op: 'close', args: [] }), headers: { authorization: `Bearer ${channel.secret}` } });
    expect(unknown.status).toBe(400);
  });
});
