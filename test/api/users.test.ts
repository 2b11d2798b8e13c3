import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { expectError, expectShape, newRepo, newUser, REPO_SUMMARY, USER_SUMMARY, type TestUser } from '../helpers/api.js';

/** Credentials that must never authenticate anybody (spec §5: wrong or malformed). */
const BAD_CREDENTIALS: Array<[string, Record<string, string>]> = [
  ['an unknown bearer token', bearer('0'.repeat(64))],
  ['an empty bearer token', { authorization: 'Bearer ' }],
  ['a bearer header with two words', { authorization: 'Bearer abc def' }],
  ['an unknown scheme', { authorization: 'Digest abc' }],
  ['a malformed basic header', { authorization: 'Basic !!!' }],
  ['a header without a scheme', { authorization: 'garbage' }],
  ['an unknown session cookie', cookie('f'.repeat(64))],
  ['an empty session cookie', { cookie: 'token=' }],
  ['a cookie with another name', { cookie: `session=${'a'.repeat(64)}` }],
];

describe('users API (spec §4.1 endpoints 1-3)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    await newRepo(host, alice, 'public-one');
    await newRepo(host, alice, 'public-two');
    await newRepo(host, alice, 'secret', 'private');
  });
  afterAll(() => host?.close());

  describe('GET /api/v1/me', () => {
    it('returns the user summary of the bearer token owner', async () => {
      const result = await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) });
      expect(result.status).toBe(200);
      expectShape(result.json, USER_SUMMARY);
      expect(result.json.username).toBe('alice');
    });

    it('returns the user summary of the session cookie owner', async () => {
      const result = await http(`${host.url}/api/v1/me`, { headers: cookie(bob.session) });
      expect(result.status).toBe(200);
      expectShape(result.json, USER_SUMMARY);
      expect(result.json.username).toBe('bob');
    });

    it('answers the same summary through both credentials and through the user lookup', async () => {
      const viaToken = await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) });
      const viaSession = await http(`${host.url}/api/v1/me`, { headers: cookie(alice.session) });
      const viaLookup = await http(`${host.url}/api/v1/users/alice`);
      expect(viaSession.json).toEqual(viaToken.json);
      expect(viaLookup.json).toEqual(viaToken.json);
    });

    it('answers 401 without credentials', async () => {
      expectError(await http(`${host.url}/api/v1/me`), 401);
    });

    it.each(BAD_CREDENTIALS)('answers 401 to %s', async (_label, headers) => {
      expectError(await http(`${host.url}/api/v1/me`, { headers }), 401);
    });

    it('does not accept a session token as a bearer token, nor an API token as the session cookie', async () => {
      expectError(await http(`${host.url}/api/v1/me`, { headers: bearer(alice.session) }), 401);
      expectError(await http(`${host.url}/api/v1/me`, { headers: cookie(alice.token) }), 401);
    });

    it('stops accepting an API token once it is revoked, and other tokens keep working', async () => {
      const doomed = await host.admin.createToken('bob', 'doomed');
      const kept = await host.admin.createToken('bob', 'kept');
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(doomed) })).json.username).toBe('bob');
      await host.admin.revokeToken('bob', 'doomed');
      expectError(await http(`${host.url}/api/v1/me`, { headers: bearer(doomed) }), 401);
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(kept) })).json.username).toBe('bob');
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(bob.token) })).json.username).toBe('bob');
    });

    it('refuses an admin operation given something else than a user name, as a JavaScript caller may', async () => {
      const untyped = host.admin as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      await expect(untyped.createToken!({ username: 'bob' })).rejects.toThrow('username must be a string, not object');
      await expect(untyped.listTokens!(42)).rejects.toThrow('username must be a string, not number');
      await expect(untyped.setPassword!(null, 'password123')).rejects.toThrow('username must be a string, not null');
    });

    it('accepts HTTP Basic with the username and an API token or the password (what git sends)', async () => {
      const basic = (user: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}` });
      expect((await http(`${host.url}/api/v1/me`, { headers: basic('alice', alice.token) })).json.username).toBe('alice');
      expect((await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'password123') })).json.username).toBe('alice');
      // A token stands for its owner whatever the user name field holds (issue 7 point 19, as Gitea).
      expect((await http(`${host.url}/api/v1/me`, { headers: basic('bob', alice.token) })).json.username).toBe('alice');
      expectError(await http(`${host.url}/api/v1/me`, { headers: basic('alice', 'wrong-password') }), 401);
    });

    it('accepts the lower-case bearer scheme', async () => {
      const result = await http(`${host.url}/api/v1/me`, { headers: { authorization: `bearer ${alice.token}` } });
      expect(result.status).toBe(200);
      expect(result.json.username).toBe('alice');
    });
  });

  describe('GET /api/v1/users/:username', () => {
    it('returns the user summary without credentials', async () => {
      const result = await http(`${host.url}/api/v1/users/bob`);
      expect(result.status).toBe(200);
      expectShape(result.json, USER_SUMMARY);
      expect(result.json).toMatchObject({ username: 'bob', full_name: '' });
      expect(result.json.avatar).toMatch(/^http:\/\//);
    });

    it('finds users case-insensitively and answers with the registered spelling', async () => {
      const result = await http(`${host.url}/api/v1/users/ALICE`);
      expect(result.status).toBe(200);
      expect(result.json.username).toBe('alice');
    });

    it('builds links from the host’s own URL, never from the request’s Host header', async () => {
      const honest = await http(`${host.url}/api/v1/users/bob`);
      const forged = await http(`${host.url}/api/v1/users/bob`, { headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
      expect(forged.json.avatar).toBe(honest.json.avatar);
      expect(forged.json.avatar.startsWith(host.url)).toBe(true);
    });

    it('gives every user a distinct id', async () => {
      const a = await http(`${host.url}/api/v1/users/alice`);
      const b = await http(`${host.url}/api/v1/users/bob`);
      expect(a.json.id).not.toBe(b.json.id);
    });

    it('answers 404 for an unknown username', async () => {
      expectError(await http(`${host.url}/api/v1/users/nobody`), 404);
    });

    it('answers 404 for names that can never be usernames', async () => {
      for (const name of ['..', '.hidden', '%2e%2e', 'a%2Fb', 'ü-ser', '-dash', 'x'.repeat(300)]) {
        expectError(await http(`${host.url}/api/v1/users/${name}`), 404);
      }
    });
  });

  describe('GET /api/v1/users/:username/repos', () => {
    it('lists the public repositories as repository summaries for anonymous callers', async () => {
      const result = await http(`${host.url}/api/v1/users/alice/repos`);
      expect(result.status).toBe(200);
      expect(Array.isArray(result.json)).toBe(true);
      for (const repo of result.json) {
        expectShape(repo, REPO_SUMMARY);
        expect(repo.user_name).toBe('alice');
      }
      expect(result.json.map((repo: { name: string }) => repo.name).sort()).toEqual(['public-one', 'public-two']);
    });

    it('leaves private repositories out for another user, by cookie and by token', async () => {
      for (const headers of [cookie(bob.session), bearer(bob.token)]) {
        const result = await http(`${host.url}/api/v1/users/alice/repos`, { headers });
        expect(result.status).toBe(200);
        expect(result.json.map((repo: { name: string }) => repo.name).sort()).toEqual(['public-one', 'public-two']);
      }
    });

    it('includes private repositories for their owner', async () => {
      for (const headers of [cookie(alice.session), bearer(alice.token)]) {
        const result = await http(`${host.url}/api/v1/users/alice/repos`, { headers });
        expect(result.status).toBe(200);
        expect(result.json.map((repo: { name: string }) => repo.name).sort()).toEqual(['public-one', 'public-two', 'secret']);
      }
    });

    it('answers an empty array for a user without repositories', async () => {
      const result = await http(`${host.url}/api/v1/users/bob/repos`);
      expect(result.status).toBe(200);
      expect(result.json).toEqual([]);
    });

    it('answers 404 for an unknown user', async () => {
      expectError(await http(`${host.url}/api/v1/users/nobody/repos`), 404);
    });

    it('gives each repository summary the id the id-based paths use', async () => {
      const list = await http(`${host.url}/api/v1/users/alice/repos`);
      for (const repo of list.json) {
        const lookup = await http(`${host.url}/api/v1/repos/alice/${repo.name}`);
        expect(lookup.json.id).toBe(repo.id);
      }
    });
  });
});
