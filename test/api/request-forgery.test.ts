import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';

/** Issue 7 point 12: cookie-authenticated writes from another site are refused; our own forms carry a token. */
describe('request forgery', () => {
  let host: RepoHost;
  let victim: TestUser;
  let repoId: number;

  beforeAll(async () => {
    host = await startHost();
    victim = await newUser(host, 'victim');
    repoId = (await newRepo(host, victim, 'project')).id;
  });

  afterAll(async () => {
    await host?.close();
  });

  const attacks = (): Array<{ name: string; path: string; form?: Record<string, string> }> => [
    { name: '/new', path: '/new', form: { name: 'planted', no_redirect: '1' } },
    { name: 'api tokens', path: '/victim/settings/api-tokens', form: { name: 'stolen' } },
    { name: 'issue creation (form)', path: '/api/v1/repos/victim/project/issues', form: { title: 'spam' } },
    { name: 'star', path: `/api/v1/repos/${repoId}/star` },
    { name: 'watch', path: `/api/v1/repos/${repoId}/watch` },
    { name: '/logout', path: '/logout', form: { no_redirect: '1' } },
  ];

  const state = async () => ({
    repos: (await http(`${host.url}/api/v1/users/victim/repos`, { headers: bearer(victim.token) })).json.map((r: { name: string }) => r.name),
    tokens: (await http(`${host.url}/api/v1/users/victim/tokens`, { headers: bearer(victim.token) })).json.length,
    issues: (await http(`${host.url}/api/v1/repos/victim/project/issues`)).json.length,
    session: (await http(`${host.url}/api/v1/me`, { headers: cookie(victim.session) })).status,
  });

  for (const [label, headers] of [
    ['an evil Origin', { origin: 'http://evil.example' }],
    ['a same-site Origin on another port', { origin: 'http://127.0.0.1:1' }],
    ['Origin: null', { origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
    ['an evil Referer', { referer: 'http://evil.example/page' }],
  ] as const) {
    it(`refuses every cookie-authenticated write with ${label} (403) and changes nothing`, async () => {
      const before = await state();
      for (const attack of attacks()) {
        const result = await http(`${host.url}${attack.path}`, { method: 'POST', headers: { ...cookie(victim.session), ...headers }, form: attack.form });
        expect({ attack: attack.name, status: result.status }).toEqual({ attack: attack.name, status: 403 });
        expectError(result, 403, 'Cross-site request refused');
      }
      expect(await state()).toEqual(before);
    });
  }

  it('asks browsers for the form token: same-origin without it is refused, with the token of the page it works', async () => {
    const origin = { origin: host.url };
    const noToken = await http(`${host.url}/new`, { headers: { ...cookie(victim.session), ...origin }, form: { name: 'no-token', no_redirect: '1' } });
    expectError(noToken, 403, 'request-forgery token');
    const page = await http(`${host.url}/new`, { headers: cookie(victim.session) });
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    expect(token).toBeTruthy();
    const wrong = await http(`${host.url}/new`, { headers: { ...cookie(victim.session), ...origin }, form: { name: 'wrong', _csrf: `${token}x`, no_redirect: '1' } });
    expect(wrong.status).toBe(403);
    const other = await newUser(host, 'other');
    const othersPage = await http(`${host.url}/new`, { headers: cookie(other.session) });
    const othersToken = /name="_csrf" value="([^"]+)"/.exec(othersPage.text)![1]!;
    const stolen = await http(`${host.url}/new`, { headers: { ...cookie(victim.session), ...origin }, form: { name: 'stolen', _csrf: othersToken, no_redirect: '1' } });
    expect(stolen.status).toBe(403);
    const ok = await http(`${host.url}/new`, { headers: { ...cookie(victim.session), ...origin, 'sec-fetch-site': 'same-origin' }, form: { name: 'with-token', _csrf: token!, no_redirect: '1' } });
    expect({ status: ok.status, text: ok.text }).toEqual({ status: 200, text: 'ok' });
  });

  it('lets a browser whose session cookie has ended sign in and sign up again (the forms carry that cookie token)', async () => {
    const user = await newUser(host, 'returning');
    const browser = { origin: host.url, 'sec-fetch-site': 'same-origin', accept: 'text/html' };
    // Signed out elsewhere: the browser still holds the cookie of a session that is gone.
    expect((await http(`${host.url}/logout`, { headers: cookie(user.session), form: { no_redirect: '1' } })).status).toBe(200);
    for (const [path, form] of [
      ['/login', { username: 'returning', password: 'password123' }],
      ['/register', { username: 'newcomer', email: 'newcomer@example.com', password: 'password123' }],
    ] as const) {
      const page = await http(`${host.url}${path}`, { headers: { ...cookie(user.session), accept: 'text/html' } });
      const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
      expect(token, path).toBeTruthy();
      const posted = await http(`${host.url}${path}`, { headers: { ...cookie(user.session), ...browser }, form: { ...form, _csrf: token! } });
      expect({ path, status: posted.status, location: posted.headers.location }).toEqual({ path, status: 303, location: '/' });
      expect(String(posted.headers['set-cookie'])).toMatch(/^token=/);
    }
  });

  it('answers a refused browser form with an error page, not JSON', async () => {
    const refused = await http(`${host.url}/new`, { headers: { ...cookie(victim.session), origin: host.url, accept: 'text/html,application/xhtml+xml' }, form: { name: 'no-token' } });
    expect(refused.status).toBe(403);
    expect(String(refused.headers['content-type'])).toMatch(/^text\/html/);
    expect(refused.text).toContain('request-forgery token');
    expect(refused.text).toContain('victim');
    expect(refused.json).toBeUndefined();
    // Scripts (no text/html in Accept) keep the JSON error.
    expectError(await http(`${host.url}/new`, { headers: { ...cookie(victim.session), origin: host.url }, form: { name: 'no-token' } }), 403, 'request-forgery token');
  });

  it('keeps the spec working for clients that are not browsers (no Origin) and for bearer and Basic requests', async () => {
    expect((await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: cookie(victim.session) })).json).toEqual({ success: true, result: true });
    expect((await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: cookie(victim.session) })).json).toEqual({ success: true, result: false });
    const created = await http(`${host.url}/new`, { headers: cookie(victim.session), form: { name: 'from-curl', no_redirect: '1' } });
    expect(created.text).toBe('ok');
    // Credentials in the Authorization header are never sent by a browser on its own: no origin check.
    const viaBearer = await http(`${host.url}/api/v1/repos/victim/project/issues`, { headers: { ...bearer(victim.token), origin: 'http://evil.example' }, form: { title: 'fine' } });
    expect(viaBearer.status).toBe(200);
  });
});
