import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';


/** The Authorization header of Basic credentials (what a browser caches once it answered a prompt). */
const basic = (username: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` });

/** Headers by which a browser shows a request comes from another site. */
const CROSS_SITE = [
  ['an evil Origin', { origin: 'http://evil.example' }],
  ['a same-site Origin on another port', { origin: 'http://127.0.0.1:1' }],
  ['Origin: null', { origin: 'null' }],
  ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site', { 'sec-fetch-site': 'same-site' }],
  ['an evil Referer', { referer: 'http://evil.example/page' }],
] as const;

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

  for (const [label, headers] of CROSS_SITE) {
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

  /** Issue 17 point 6: the forms that start a session are guarded before there is one (login CSRF). */
  describe('sign-in and sign-up without a session', () => {
    const preSessionOf = (result: { headers: Record<string, string | string[] | undefined> }) =>
      [result.headers['set-cookie']].flat().map((value) => /^pre_session=([^;]+)/.exec(value ?? '')?.[1]).find(Boolean);
    const formToken = (text: string) => /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    const sessionStarted = (result: { headers: Record<string, string | string[] | undefined> }) =>
      [result.headers['set-cookie']].flat().some((value) => value?.startsWith('token='));

    for (const [label, headers] of CROSS_SITE) {
      it(`refuses a cross-site sign-in and sign-up with ${label} (403) and starts no session`, async () => {
        // Even with a pre-session cookie and its token in hand (an attacker can get their own), cross-site is refused.
        const page = await http(`${host.url}/login`);
        const preSession = { cookie: `pre_session=${preSessionOf(page)}` };
        const csrf = formToken(page.text)!;
        for (const extra of [{}, preSession]) {
          const login = await http(`${host.url}/login`, { headers: { ...extra, ...headers }, form: { username: 'victim', password: 'password123', _csrf: csrf } });
          expectError(login, 403, 'Cross-site request refused');
          expect(sessionStarted(login)).toBe(false);
          const signUp = await http(`${host.url}/register`, {
            headers: { ...extra, ...headers },
            form: { username: 'planted', email: 'planted@example.com', password: 'password123', _csrf: csrf, no_redirect: '1' },
          });
          expectError(signUp, 403, 'Cross-site request refused');
          expect(sessionStarted(signUp)).toBe(false);
        }
        expect((await http(`${host.url}/api/v1/users/planted`)).status).toBe(404);
      });
    }

    it('asks a same-origin browser for the token of the pre-session cookie the page set', async () => {
      const browser = { origin: host.url, 'sec-fetch-site': 'same-origin', accept: 'text/html' };
      for (const [path, form] of [
        ['/login', { username: 'victim', password: 'password123' }],
        ['/register', { username: 'fresh', email: 'fresh@example.com', password: 'password123' }],
      ] as const) {
        // No cookie, or no token: refused, nothing started.
        const bare = await http(`${host.url}${path}`, { headers: browser, form });
        expect({ path, status: bare.status, session: sessionStarted(bare) }).toEqual({ path, status: 403, session: false });
        expect(bare.text).toContain('request-forgery token');
        const page = await http(`${host.url}${path}`, { headers: { accept: 'text/html' } });
        const preSession = preSessionOf(page);
        const csrf = formToken(page.text);
        expect(preSession, path).toBeTruthy();
        expect(csrf, path).toBeTruthy();
        expect(String(page.headers['set-cookie'])).toMatch(/HttpOnly/i);
        const withCookie = { ...browser, cookie: `pre_session=${preSession}` };
        expect((await http(`${host.url}${path}`, { headers: withCookie, form })).status).toBe(403);
        expect((await http(`${host.url}${path}`, { headers: withCookie, form: { ...form, _csrf: `${csrf}x` } })).status).toBe(403);
        // The token of another browser's pre-session cookie does not fit this one.
        const otherPage = await http(`${host.url}${path}`);
        expect(formToken(otherPage.text)).not.toBe(csrf);
        expect((await http(`${host.url}${path}`, { headers: withCookie, form: { ...form, _csrf: formToken(otherPage.text)! } })).status).toBe(403);
        expect((await http(`${host.url}${path}`, { headers: { ...browser, cookie: `pre_session=${preSessionOf(otherPage)}` }, form: { ...form, _csrf: csrf! } })).status).toBe(403);
        // With both: signed in (up), and the pre-session cookie is cleared.
        const posted = await http(`${host.url}${path}`, { headers: withCookie, form: { ...form, _csrf: csrf! } });
        expect({ path, status: posted.status, location: posted.headers.location, session: sessionStarted(posted) }).toEqual({ path, status: 303, location: '/', session: true });
        expect([posted.headers['set-cookie']].flat().some((value) => /^pre_session=;/.test(value ?? ''))).toBe(true);
      }
      // A wrong password re-renders the form with a token that still fits the browser's cookie.
      const page = await http(`${host.url}/login`, { headers: { accept: 'text/html' } });
      const withCookie = { ...browser, cookie: `pre_session=${preSessionOf(page)}` };
      const wrong = await http(`${host.url}/login`, { headers: withCookie, form: { username: 'victim', password: 'wrong-password', _csrf: formToken(page.text)! } });
      expect(wrong.status).toBe(401);
      const again = await http(`${host.url}/login`, { headers: withCookie, form: { username: 'victim', password: 'password123', _csrf: formToken(wrong.text)! } });
      expect(again.status).toBe(303);
    });

    it('keeps sign-in and sign-up working for clients that are not browsers (no Origin), as the spec uses them', async () => {
      const signUp = await http(`${host.url}/register`, { form: { username: 'scripted', email: 'scripted@example.com', password: 'password123', no_redirect: '1' } });
      expect({ status: signUp.status, session: sessionStarted(signUp) }).toEqual({ status: 200, session: true });
      const login = await http(`${host.url}/login`, { form: { username: 'scripted', password: 'password123', no_redirect: '1' } });
      expect({ status: login.status, session: sessionStarted(login) }).toEqual({ status: 200, session: true });
    });
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
    const viaBasic = await http(`${host.url}/api/v1/repos/victim/project/issues`, { headers: basic('victim', 'password123'), form: { title: 'also fine' } });
    expect(viaBasic.status).toBe(200);
  });

  // Basic credentials are sent by a browser on its own once it answered this host's prompt (git's 401 asks for them):
  // another site's form with them is as forged as one with the session cookie (found by the security helper).
  for (const [label, headers] of CROSS_SITE) {
    it(`refuses every write authenticated by cached Basic credentials with ${label} (403) and changes nothing`, async () => {
      const before = await state();
      for (const attack of attacks().filter((attack) => attack.name !== '/logout')) {
        const result = await http(`${host.url}${attack.path}`, { method: 'POST', headers: { ...basic('victim', 'password123'), ...headers }, form: attack.form });
        expect({ attack: attack.name, status: result.status }).toEqual({ attack: attack.name, status: 403 });
        expectError(result, 403, 'Cross-site request refused');
      }
      expect(await state()).toEqual(before);
    });
  }

  it('refuses another site signing a visitor with cached Basic credentials in to an account', async () => {
    const result = await http(`${host.url}/login`, { headers: { ...basic('victim', 'password123'), origin: 'http://evil.example' }, form: { username: 'victim', password: 'password123', no_redirect: '1' } });
    expect(result.status).toBe(403);
  });
});
