import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost } from '../helpers/host.js';

const basic = (user: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` });

/** Issue 7 point 8: bcrypt off the event loop, and failed password attempts limited. */
describe('password checks', () => {
  describe('limits on failed attempts', () => {
    let host: RepoHost;
    let alice: TestUser;
    beforeAll(async () => {
      host = await startHost({ maxFailedLoginsPerAccount: 3, maxFailedLoginsPerAddress: 8, failedLoginWindowMs: 1500 });
      alice = await newUser(host, 'alice');
      await newRepo(host, alice, 'secret', 'private');
    });
    afterAll(async () => {
      await host?.close();
    });

    it('answers 429 with Retry-After once an account used up its failures, on the API, the login form and git', async () => {
      for (let i = 0; i < 3; i++) expectError(await http(`${host.url}/api/v1/me`, { headers: basic('alice', `wrong-${i}`) }), 401);
      const limited = await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') });
      expectError(limited, 429, 'Too many failed sign-in attempts');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expectError(await http(`${host.url}/login`, { form: { username: 'alice', password: 'password123', no_redirect: '1' } }), 429);
      const git = await http(`${host.url}/alice/secret.git/info/refs?service=git-upload-pack`, { headers: basic('alice', 'password123') });
      expect(git.status).toBe(429);
      expect(git.text).toContain('Too many failed sign-in attempts');
      expect(git.headers['retry-after']).toBeDefined();
      // Tokens are not passwords: they keep working, in Basic too.
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) })).status).toBe(200);
      expect((await http(`${host.url}/api/v1/me`, { headers: basic('alice', alice.token) })).status).toBe(200);
      // The window ends: the right password works again.
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect((await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') })).json.username).toBe('alice');
    });

    it('limits one client address guessing across many accounts', async () => {
      for (let i = 0; i < 8; i++) expectError(await http(`${host.url}/api/v1/me`, { headers: basic(`nobody${i}`, 'guess') }), 401);
      expectError(await http(`${host.url}/api/v1/me`, { headers: basic('someone-else', 'guess') }), 429);
      await new Promise((resolve) => setTimeout(resolve, 1600));
    });
  });

  it('checks passwords off the event loop: concurrent bcrypt work leaves the loop free', async () => {
    const host = await startHost({ bcryptCost: 13, maxFailedLoginsPerAccount: 100 });
    try {
      await host.admin.createUser({ username: 'bob', email: 'b@example.com', password: 'password123' });
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      // Each check costs about half a second of CPU at cost 13: on the main thread every one would stall the loop that
      // long. Off it, only scheduling noise is left (other test files share the two cores), far below.
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => http(`${host.url}/api/v1/me`, { headers: basic('bob', `wrong-${i}`) })));
      delay.disable();
      expect(results.map((result) => result.status)).toEqual([401, 401, 401, 401]);
      expect(delay.max / 1e6).toBeLessThan(300);
    } finally {
      await host.close();
    }
  });
});
