import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { runCli, startCliServer, type ServerProcess } from '../cli/processes.js';
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
