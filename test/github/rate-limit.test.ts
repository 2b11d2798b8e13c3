import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { GitHubRateLimits, networkOf } from '../../lib/github/rate-limit.js';
import { http, startHost } from '../helpers/host.js';

const TOKEN = 'ghp_ratelimit0123456789abcdef012345';

/** Issue 20: a harness makes the host answer as a rate-limited GitHub, so back-off code can be tested. */
describe('a simulated rate limit', () => {
  let host: RepoHost;
  let clock = Date.parse('2026-11-24T12:00:00Z');
  const get = (path: string) => http(`${host.url}/api/v3${path}`, { headers: { authorization: `token ${TOKEN}` } });

  beforeAll(async () => {
    host = await startHost({
      now: () => new Date(clock),
      fixtures: { users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 't', token: TOKEN }] }] },
    });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('counts down, refuses with 403 and x-ratelimit-remaining 0 until the reset, and says so at /rate_limit', async () => {
    host.admin.simulateRateLimit({ limit: 60, remaining: 2, resetAt: new Date(clock + 60_000) });
    const first = await get('/users/alice');
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect(first.headers['x-ratelimit-limit']).toBe('60');
    expect((await get('/users/alice')).headers['x-ratelimit-remaining']).toBe('0');
    const refused = await get('/users/alice');
    expect(refused.status).toBe(403);
    expect(refused.json.message).toMatch(/^API rate limit exceeded/);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe(String((clock + 60_000) / 1000));
    const rate = await get('/rate_limit');
    expect(rate.status).toBe(200);
    expect(rate.json.rate).toMatchObject({ limit: 60, remaining: 0, used: 60 });
    // Octokit sees GitHub's refusal.
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: TOKEN });
    await expect(octokit.users.getByUsername({ username: 'alice' })).rejects.toMatchObject({ status: 403 });
    clock += 61_000;
    expect((await get('/users/alice')).headers['x-ratelimit-remaining']).toBe('59');
  });

  it('does not count a conditional request answered 304, as GitHub does not', async () => {
    host.admin.simulateRateLimit({ limit: 60, remaining: 10 });
    const first = await get('/users/alice');
    expect(first.headers['x-ratelimit-remaining']).toBe('9');
    const etag = String(first.headers.etag);
    for (let i = 0; i < 3; i++) {
      const unchanged = await http(`${host.url}/api/v3/users/alice`, { headers: { authorization: `token ${TOKEN}`, 'if-none-match': etag } });
      expect(unchanged.status).toBe(304);
      expect(unchanged.headers['x-ratelimit-remaining']).toBe('9');
    }
    expect((await get('/users/alice')).headers['x-ratelimit-remaining']).toBe('8');
    host.admin.simulateRateLimit();
  });

  it('answers a secondary limit with retry-after, and goes back to unlimited', async () => {
    host.admin.simulateRateLimit({ remaining: 10, secondary: { retryAfterSeconds: 7 } });
    const refused = await get('/users/alice');
    expect(refused.status).toBe(403);
    expect(refused.headers['retry-after']).toBe('7');
    expect(refused.json.message).toMatch(/secondary rate limit/);
    host.admin.simulateRateLimit();
    const free = await get('/users/alice');
    expect(free.status).toBe(200);
    expect(Number(free.headers['x-ratelimit-remaining'])).toBeGreaterThan(1000);
  });
});

/** Issue 41: GitHub's limits counted for real, per caller, reported always and enforced when asked. */
describe('rate limits counted per caller', () => {
  const TOKENS = { alice: 'ghp_alicecounted0123456789abcdef0123', bob: 'ghp_bobcounted0123456789abcdef01234' };
  const fixtures = { users: (['alice', 'bob'] as const).map((username) => ({ username, email: `${username}@example.com`, password: 'password123', tokens: [{ name: 't', token: TOKENS[username] }] })) };
  const as = (who?: keyof typeof TOKENS): Record<string, string> => (who ? { authorization: `token ${TOKENS[who]}` } : {});

  it('counts each caller apart and reports it, refusing nothing from a host started from code', async () => {
    const host = await startHost({ fixtures, rateLimit: { core: { anonymous: 3, user: 5 } } });
    try {
      const get = async (who?: keyof typeof TOKENS, path = '/users/alice') => await http(`${host.url}/api/v3${path}`, { headers: as(who) });
      const anonymous = [];
      for (let i = 0; i < 4; i++) anonymous.push(await get());
      expect(anonymous.map((answer) => [answer.status, answer.headers['x-ratelimit-limit'], answer.headers['x-ratelimit-remaining']])).toEqual([
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0'],
        [200, '3', '0'],
      ]);
      expect((await get('alice')).headers['x-ratelimit-remaining']).toBe('4');
      expect((await get('alice')).headers['x-ratelimit-remaining']).toBe('3');
      expect((await get('bob')).headers['x-ratelimit-remaining']).toBe('4');
      // GET /rate_limit does not count, and tells the caller's own allowance; searches count apart, by the minute.
      const rate = (await get('alice', '/rate_limit')).json;
      expect(rate.rate).toMatchObject({ limit: 5, remaining: 3, used: 2 });
      expect(rate.resources.search).toMatchObject({ limit: 30, remaining: 30, used: 0 });
      const search = await get('alice', '/search/issues?q=repo:alice/none');
      expect([search.headers['x-ratelimit-resource'], search.headers['x-ratelimit-limit'], search.headers['x-ratelimit-remaining']]).toEqual(['search', '30', '29']);
      expect((await get('alice', '/rate_limit')).json.resources).toMatchObject({ core: { used: 2 }, search: { used: 1 } });
    } finally {
      await host.close();
    }
  });

  it('refuses a caller past its allowance in GitHub\'s words when the harness asks, others going on', async () => {
    const host = await startHost({ fixtures, rateLimit: { enforce: true, core: { anonymous: 2, user: 2 } } });
    try {
      for (let i = 0; i < 2; i++) expect((await http(`${host.url}/api/v3/users/alice`)).status).toBe(200);
      const refused = await http(`${host.url}/api/v3/users/alice`);
      expect(refused.status).toBe(403);
      expect(refused.json.message).toBe("API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)");
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
      for (let i = 0; i < 2; i++) expect((await http(`${host.url}/api/v3/users/alice`, { headers: as('alice') })).status).toBe(200);
      const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: TOKENS.alice });
      await expect(octokit.users.getByUsername({ username: 'alice' })).rejects.toMatchObject({ status: 403, response: { data: { message: `API rate limit exceeded for user ID ${(await host.admin.listUsers()).find((user) => user.username === 'alice')!.id}.` } } });
      expect((await http(`${host.url}/api/v3/users/alice`, { headers: as('bob') })).status).toBe(200);
    } finally {
      await host.close();
    }
  });
});

describe('the windows rate limits keep', () => {
  it('counts an IPv6 caller by its /64, an IPv4 one by its address', () => {
    expect(networkOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(networkOf('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(networkOf('::1')).toBe('0:0:0:0::/64');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(networkOf('::ffff:192.0.2.7')).toBe('::ffff:192.0.2.7');
    expect(networkOf('192.0.2.7')).toBe('192.0.2.7');
    const limits = new GitHubRateLimits(() => new Date(), { core: { anonymous: 2 } });
    for (const address of ['2001:db8::1', '2001:db8::2']) limits.take({ kind: 'anonymous', id: address });
    expect(limits.current({ kind: 'anonymous', id: '2001:db8::3' })).toMatchObject({ used: 2, remaining: 0 });
  });

  it('never lets a flood of anonymous addresses push out an account\'s window', () => {
    const limits = new GitHubRateLimits(() => new Date());
    const alice = { kind: 'user', id: '1' } as const;
    for (let i = 0; i < 3; i++) limits.take(alice);
    for (let i = 0; i < 60_000; i++) limits.take({ kind: 'anonymous', id: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
    expect(limits.current(alice)).toMatchObject({ used: 3, remaining: 4997 });
    // The newest addresses are still counted; the oldest made room for them.
    expect(limits.current({ kind: 'anonymous', id: '10.0.234.95' }).used).toBe(1);
  });
});
