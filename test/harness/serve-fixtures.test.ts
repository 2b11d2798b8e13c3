import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { BIN, runCli, startCliServer, type ServerProcess } from '../cli/processes.js';
import { sh } from '../git/fixtures.js';
import { BOT_TOKEN, sampleFixtures } from './sample-fixtures.js';

/** `repohost serve --fixtures file.json` (the built command) for harnesses in other languages. */
describe('repohost serve --fixtures', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) await server.kill('SIGKILL');
    await dir?.cleanup();
  });

  it('serves the fixtures, with the commit ids an in-process host gets', async () => {
    const file = join(dir.path, 'fixtures.json');
    await writeFile(file, JSON.stringify(sampleFixtures(), null, 2));
    server = await startCliServer(['--db', join(dir.path, 'served.db'), '--fixtures', file]);
    const me = await http(`${server.url}/api/v1/me`, { headers: bearer(BOT_TOKEN) });
    expect(me.json).toMatchObject({ username: 'alice' });
    expect((await http(`${server.url}/api/v1/repos/alice/project/issues?status=all`)).json).toHaveLength(2);
    const served = await sh(dir.path, ['ls-remote', `${server.url}/alice/project.git`]);
    const local = await startHost({ fixtures: sampleFixtures() });
    try {
      expect(await sh(dir.path, ['ls-remote', `${local.url}/alice/project.git`])).toBe(served);
    } finally {
      await local.close();
    }
    expect(await server.kill('SIGTERM')).toBe(0);
  });

  it('answers nothing on its port before the fixtures are loaded: the first answer already shows them (issue 17 point 10b)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    // More accounts (bcrypt at the default cost) make loading last long enough to be caught in the act.
    const fixtures = sampleFixtures();
    for (let index = 0; index < 6; index++) fixtures.users!.push({ username: `extra${index}`, email: `extra${index}@example.com`, password: 'password123' });
    const file = join(dir.path, 'polled.json');
    await writeFile(file, JSON.stringify(fixtures));
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--db', join(dir.path, 'polled.db'), '--fixtures', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    try {
      // From the moment the process starts: the last thing the fixtures load is bob/secret's issue, which alice reads.
      let refused = 0;
      let first: Awaited<ReturnType<typeof http>> | undefined;
      for (const deadline = Date.now() + 30_000; !first && Date.now() < deadline && child.exitCode === null; ) {
        try {
          first = await http(`http://127.0.0.1:${port}/api/v1/repos/bob/secret/issues?status=all`, { headers: bearer(BOT_TOKEN) });
        } catch {
          refused += 1;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
      expect(first, output).toBeDefined();
      expect(refused).toBeGreaterThan(0);
      expect({ status: first!.status, titles: (first!.json as Array<{ title: string }>).map((issue) => issue.title) }).toEqual({ status: 200, titles: ['Private issue'] });
      expect(output).toContain(`listening on http://127.0.0.1:${port}`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('refuses bad fixtures before serving: every problem on its own line, exit code 1; a missing or non-JSON file is a usage error', async () => {
    const file = join(dir.path, 'bad.json');
    await writeFile(file, JSON.stringify({ users: [{ username: 'x', email: 'nope', password: 'password123' }], repositories: [{ owner: 'ghost', name: 'r' }] }));
    const bad = await runCli(['serve', '--port', '0', '--db', join(dir.path, 'bad.db'), '--fixtures', file]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).not.toContain('listening');
    expect(bad.stderr).toContain(`repohost: invalid fixtures in ${file}:\n  fixtures.users[0].email: email must be a valid address\n  fixtures.repositories[0].owner: must be a user`);

    const notJson = join(dir.path, 'not.json');
    await writeFile(notJson, '{ users: ');
    const parsed = await runCli(['serve', '--port', '0', '--db', join(dir.path, 'bad.db'), '--fixtures', notJson]);
    expect(parsed.code).toBe(2);
    expect(parsed.stderr).toContain(`--fixtures ${notJson}: not JSON`);
    const missing = await runCli(['serve', '--port', '0', '--db', join(dir.path, 'bad.db'), '--fixtures', join(dir.path, 'missing.json')]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('missing.json: no such file')]);
  });
});
