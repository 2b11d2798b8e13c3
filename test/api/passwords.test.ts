import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { clientOf } from '../../lib/services/login-throttle.js';
import { bearer, http, startHost, type HttpResult } from '../helpers/host.js';

const basic = (user: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` });

/**
 * A client connecting from its own loopback address (all of 127/8 is this machine), so the host sees a different
 * peer address than the default 127.0.0.1. Form bodies only, as `http` of the helpers sends them.
 */
function clientAt(localAddress: string) {
  const dispatcher = new Agent({ localAddress });
  const send = (url: string, init: { headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<HttpResult> => http(url, { ...init, dispatcher });
  return { send, close: () => dispatcher.close() };
}

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
      // The wait ends: the right password works again from this address too.
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect((await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') })).json.username).toBe('alice');
    });

    it('limits one client address guessing across many accounts', async () => {
      for (let i = 0; i < 8; i++) expectError(await http(`${host.url}/api/v1/me`, { headers: basic(`nobody${i}`, 'guess') }), 401);
      expectError(await http(`${host.url}/api/v1/me`, { headers: basic('someone-else', 'guess') }), 429);
      await new Promise((resolve) => setTimeout(resolve, 1600));
    });
  });

  /** Issue 17 point 8: wrong guesses slow the guesser, never the owner; bad tokens are not password guesses. */
  describe('a stranger cannot lock the owner out', () => {
    let host: RepoHost;
    let alice: TestUser;
    let stranger: ReturnType<typeof clientAt>;
    let accomplice: ReturnType<typeof clientAt>;
    let owner: ReturnType<typeof clientAt>;
    const login = (client: ReturnType<typeof clientAt>, password: string) =>
      client.send(`${host.url}/login`, { form: { username: 'alice', password, no_redirect: '1' } });

    beforeAll(async () => {
      // The defaults: 10 failures per account, 50 per address, a 15-minute window.
      host = await startHost();
      alice = await newUser(host, 'alice');
      await newRepo(host, alice, 'secret', 'private');
      stranger = clientAt('127.0.0.2');
      accomplice = clientAt('127.0.0.3');
      owner = clientAt('127.0.0.4');
    });
    afterAll(async () => {
      await Promise.all([stranger, accomplice, owner].map((client) => client?.close()));
      await host?.close();
    });

    it('ten wrong passwords from one address hold that address back, with a growing wait, and not the owner elsewhere', async () => {
      for (let i = 0; i < 10; i++) expectError(await login(stranger, `wrong-${i}`), 401, 'Wrong username or password');
      // The guesser's address waits, for the right password as for any other, on the form, the API and git.
      const held = await login(stranger, 'password123');
      expectError(held, 429, 'Too many failed sign-in attempts');
      expect(held.headers['retry-after']).toBe('1');
      expect((await stranger.send(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') })).status).toBe(429);
      // The sign-in page re-rendered for a browser says when to try again too.
      const page = await stranger.send(`${host.url}/login`, { headers: { accept: 'text/html' }, form: { username: 'alice', password: 'password123' } });
      expect({ status: page.status, retryAfter: page.headers['retry-after'] }).toEqual({ status: 429, retryAfter: '1' });
      expect(page.text).toContain('Too many failed sign-in attempts');
      expect((await stranger.send(`${host.url}/alice/secret.git/info/refs?service=git-upload-pack`, { headers: basic('alice', 'password123') })).status).toBe(429);
      // The owner, from an address that has not failed, signs in at once: form, API, git.
      const signedIn = await login(owner, 'password123');
      expect(signedIn.status).toBe(200);
      expect(String(signedIn.headers['set-cookie'])).toMatch(/^token=/);
      expect((await owner.send(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') })).json?.username).toBe('alice');
      expect((await owner.send(`${host.url}/alice/secret.git/info/refs?service=git-upload-pack`, { headers: basic('alice', 'password123') })).status).toBe(200);
      // And from the default address (127.0.0.1) too.
      expect((await http(`${host.url}/login`, { form: { username: 'alice', password: 'password123', no_redirect: '1' } })).status).toBe(200);
      // The wait doubles with each further failure: after 1 s the guesser gets one more try, then waits 2 s.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expectError(await login(stranger, 'wrong-again'), 401);
      const longer = await login(stranger, 'wrong-once-more');
      expectError(longer, 429);
      expect(longer.headers['retry-after']).toBe('2');
    });

    it('slows guesses spread over addresses: each one that failed waits, one that did not still gets in', async () => {
      // The account is past its failures (previous test): an address's first wrong guess is answered, then it waits.
      expectError(await login(accomplice, 'first-guess'), 401);
      const waits = await login(accomplice, 'second-guess');
      expectError(waits, 429);
      expect(Number(waits.headers['retry-after'])).toBeGreaterThanOrEqual(4);
      expect((await login(owner, 'password123')).status).toBe(200);
    });

    it('limits one address across accounts, without touching other addresses', async () => {
      const busy = clientAt('127.0.0.5');
      try {
        for (let i = 0; i < 50; i++) expectError(await busy.send(`${host.url}/login`, { form: { username: `nobody${i}`, password: 'guess', no_redirect: '1' } }), 401);
        expectError(await busy.send(`${host.url}/login`, { form: { username: 'someone-new', password: 'guess', no_redirect: '1' } }), 429);
        expect((await busy.send(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') })).status).toBe(429);
        expect((await login(owner, 'password123')).status).toBe(200);
      } finally {
        await busy.close();
      }
    });

    it('counts an IPv6 client by its /64 (one network could take a fresh address for every guess), IPv4 by itself', () => {
      expect(clientOf('2001:db8:1:2:aaaa::1')).toBe(clientOf('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'));
      expect(clientOf('2001:db8:1:2::1')).not.toBe(clientOf('2001:db8:1:3::1'));
      expect(clientOf('::ffff:192.0.2.7')).toBe('192.0.2.7');
      expect(clientOf('192.0.2.7')).not.toBe(clientOf('192.0.2.8'));
    });

    it('never counts a revoked token sent with the username over Basic (API or git) as a password failure', async () => {
      const bob = await newUser(host, 'bob');
      await newRepo(host, bob, 'builds', 'private');
      const ci = clientAt('127.0.0.6');
      try {
        const revoked = await host.admin.createToken('bob', 'old-ci');
        await host.admin.revokeToken('bob', 'old-ci');
        // A CI job keeps retrying with it, from the same address the owner later signs in from.
        for (let i = 0; i < 15; i++) {
          expectError(await ci.send(`${host.url}/api/v1/me`, { headers: basic('bob', revoked) }), 401);
          expect((await ci.send(`${host.url}/bob/builds.git/info/refs?service=git-upload-pack`, { headers: basic('bob', revoked) })).status).toBe(401);
          expectError(await ci.send(`${host.url}/api/v1/me`, { headers: basic(revoked, 'x-oauth-basic') }), 401);
        }
        const signedIn = await ci.send(`${host.url}/login`, { form: { username: 'bob', password: 'password123', no_redirect: '1' } });
        expect(signedIn.status).toBe(200);
        expect((await ci.send(`${host.url}/api/v1/me`, { headers: basic('bob', 'password123') })).json?.username).toBe('bob');
        expect((await ci.send(`${host.url}/api/v1/me`, { headers: bearer(bob.token) })).json?.username).toBe('bob');
      } finally {
        await ci.close();
      }
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
