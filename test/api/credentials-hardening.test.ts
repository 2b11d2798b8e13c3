import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, cookie, http, startHost, tempDir } from '../helpers/host.js';

const run = promisify(execFile);
const basic = (user: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` });

describe('credentials (issue 7 points 14, 16, 19)', () => {
  let host: RepoHost;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'secret', 'private');
    await pushTwoBranches(host, 'alice', alice.token, 'secret');
  });

  afterAll(async () => {
    await host?.close();
  });

  it('14: a password change ends every existing session of the user; API tokens keep working', async () => {
    const second = await http(`${host.url}/login`, { form: { username: 'alice', password: 'password123', no_redirect: '1' } });
    const otherSession = /token=([^;]+)/.exec(String(second.headers['set-cookie']))![1]!;
    for (const session of [alice.session, otherSession]) expect((await http(`${host.url}/api/v1/me`, { headers: cookie(session) })).status).toBe(200);
    await host.admin.setPassword('alice', 'a-new-password');
    for (const session of [alice.session, otherSession]) expectError(await http(`${host.url}/api/v1/me`, { headers: cookie(session) }), 401);
    expect((await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) })).status).toBe(200);
    expect((await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'a-new-password') })).status).toBe(200);
    expectError(await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') }), 401);
  });

  it('16: refuses a username ending in .git or .wiki at registration, with the rule repository names use', async () => {
    for (const username of ['tools.git', 'Tools.GIT', 'docs.wiki']) {
      const result = await http(`${host.url}/register`, { form: { username, password: 'password123', email: 'x@example.com', no_redirect: '1' } });
      expectError(result, 400, 'must not end in .git or .wiki');
    }
    await expect(host.admin.createUser({ username: 'cli.git', email: 'c@example.com', password: 'password123' })).rejects.toThrow(/\.git/);
  });

  it('19: an API token in either Basic field, whatever the other holds, over the API', async () => {
    for (const headers of [basic('x-access-token', alice.token), basic('oauth2', alice.token), basic(alice.token, ''), basic(alice.token, 'x-oauth-basic')]) {
      const result = await http(`${host.url}/api/v1/me`, { headers });
      expect(result.json?.username).toBe('alice');
    }
    // A password still needs its own user name.
    expectError(await http(`${host.url}/api/v1/me`, { headers: basic('x-access-token', 'a-new-password') }), 401);
  });

  it('19: git clones a private repository with the token in the URL the way GitHub and GitLab tools put it', async () => {
    const work = await tempDir('repohost-token-url-');
    try {
      const env = { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0' };
      const url = new URL(`${host.url}/alice/secret.git`);
      for (const [user, password] of [['x-access-token', alice.token], ['oauth2', alice.token], [alice.token, '']] as const) {
        url.username = user;
        url.password = password;
        const dir = join(work.path, user.slice(0, 12));
        await run('git', ['clone', '-q', url.toString(), dir], { env });
        const { stdout } = await run('git', ['log', '--format=%s', 'origin/feature'], { cwd: dir, env });
        expect(stdout.trim().split('\n')).toContain('Add a feature');
      }
    } finally {
      await work.cleanup();
    }
  });
});
