import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, register, startHost, type HttpResult } from '../helpers/host.js';
import { expectError, expectShape, setCookies, tokenCookie, USER_SUMMARY } from '../helpers/api.js';

/** The attributes of one Set-Cookie line, names lower-cased. */
function cookieAttributes(line: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const part of line.split(';').slice(1)) {
    const [name, ...value] = part.trim().split('=');
    attributes.set(name!.toLowerCase(), value.join('='));
  }
  return attributes;
}

/** Spec §5 / issue 2: the session cookie is `token`, HttpOnly, SameSite=Lax, Path=/, set exactly once. */
function expectSessionCookie(result: HttpResult): string {
  const lines = setCookies(result).filter((line) => line.startsWith('token='));
  expect(lines, 'exactly one token cookie is set').toHaveLength(1);
  const line = lines[0]!;
  const value = /^token=([^;]*)/.exec(line)![1]!;
  expectCookieRules(line);
  return value;
}

function expectCookieRules(line: string): void {
  const attributes = cookieAttributes(line);
  expect(attributes.has('httponly'), line).toBe(true);
  expect(attributes.get('samesite')?.toLowerCase(), line).toBe('lax');
  expect(attributes.get('path'), line).toBe('/');
}


describe('supporting form endpoints (spec §4.2) and sessions (spec §5)', () => {
  let host: RepoHost;

  const me = (headers: Record<string, string>) => http(`${host.url}/api/v1/me`, { headers });

  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(() => host?.close());

  describe('GET /', () => {
    it('responds once the service accepts connections', async () => {
      const result = await http(`${host.url}/`);
      expect(result.status).toBe(200);
      expect(String(result.headers['content-type'])).toMatch(/^text\/html/);
    });
  });

  it('marks the session and sign-in cookies Secure when the host is served over HTTPS (its public URL), and only then', async () => {
    const served = await startHost({ publicUrl: 'https://git.example.com' });
    try {
      const form = await http(`${served.url}/login`, { headers: { accept: 'text/html' } });
      const preSession = setCookies(form).find((line) => line.startsWith('pre_session='))!;
      expect(cookieAttributes(preSession).has('secure'), preSession).toBe(true);
      const registered = await http(`${served.url}/register`, { form: { username: 'secure', password: 'password123', email: 'secure@example.com', no_redirect: '1' } });
      const session = setCookies(registered).find((line) => line.startsWith('token='))!;
      expectCookieRules(session);
      expect(cookieAttributes(session).has('secure'), session).toBe(true);
    } finally {
      await served.close();
    }
    const plain = await http(`${host.url}/register`, { form: { username: 'plain', password: 'password123', email: 'plain@example.com', no_redirect: '1' } });
    expect(cookieAttributes(setCookies(plain).find((line) => line.startsWith('token='))!).has('secure')).toBe(false);
  });

  describe('POST /register', () => {
    it('answers 200 with no_redirect=1 and sets the session cookie token (HttpOnly, SameSite=Lax, Path=/)', async () => {
      const result = await http(`${host.url}/register`, { form: { username: 'alice', password: 'password123', email: 'alice@example.com', no_redirect: '1' } });
      expect(result.status).toBe(200);
      const token = expectSessionCookie(result);
      expect(token.length).toBeGreaterThanOrEqual(32);
      const summary = await me(cookie(token));
      expect(summary.status).toBe(200);
      expectShape(summary.json, USER_SUMMARY);
      expect(summary.json.username).toBe('alice');
    });

    it('answers 303 without no_redirect, still setting the cookie', async () => {
      const result = await http(`${host.url}/register`, { form: { username: 'redirected', password: 'password123', email: 'r@example.com' } });
      expect(result.status).toBe(303);
      expect(result.headers.location).toBe('/');
      const token = expectSessionCookie(result);
      expect((await me(cookie(token))).json.username).toBe('redirected');
    });

    it('issues a different session token for every registration', async () => {
      const a = await register(host, 'tokens-a');
      const b = await register(host, 'tokens-b');
      expect(a).not.toBe(b);
    });

    it('answers 409 to a username already taken, whatever its case, and sets no cookie', async () => {
      await register(host, 'taken');
      for (const username of ['taken', 'TAKEN', 'Taken']) {
        const result = await http(`${host.url}/register`, { form: { username, password: 'password123', email: 'x@example.com', no_redirect: '1' } });
        expectError(result, 409);
        expect(tokenCookie(result)).toBeUndefined();
      }
    });

    it.each(['api', 'login', 'logout', 'register', 'new', 'settings', 'explore', 'avatars', 'assets', 'repos', 'users', 'user', 'ci', 'admin', 'API'])(
      'refuses the reserved username %s with 400',
      async (username) => {
        const result = await http(`${host.url}/register`, { form: { username, password: 'password123', email: 'x@example.com', no_redirect: '1' } });
        expectError(result, 400);
        expect(tokenCookie(result)).toBeUndefined();
      },
    );

    it.each(['', '..', '.hidden', '-dash', 'a/b', 'a b', 'ünï', 'x'.repeat(41), 'a..b', '<script>'])('refuses the invalid username %j with 400', async (username) => {
      expectError(await http(`${host.url}/register`, { form: { username, password: 'password123', email: 'x@example.com', no_redirect: '1' } }), 400);
    });

    it('stores an optional full_name, shown in the user summary', async () => {
      const result = await http(`${host.url}/register`, { form: { username: 'named', password: 'password123', email: 'n@example.com', full_name: 'Named Person ✓', no_redirect: '1' } });
      expect(result.status).toBe(200);
      expect((await http(`${host.url}/api/v1/users/named`)).json.full_name).toBe('Named Person ✓');
    });

    it('refuses a password longer than bcrypt can use (72 bytes)', async () => {
      expectError(await http(`${host.url}/register`, { form: { username: 'longpass', password: 'p'.repeat(73), email: 'l@example.com', no_redirect: '1' } }), 400, 'password');
    });

    it('accepts letters, digits, -, _ and . in usernames', async () => {
      const result = await http(`${host.url}/register`, { form: { username: 'a.b-c_d9', password: 'password123', email: 'x@example.com', no_redirect: '1' } });
      expect(result.status).toBe(200);
    });

    it('answers 400 to a missing or too short password and to a missing or invalid email', async () => {
      const form = { username: 'checked', password: 'password123', email: 'c@example.com', no_redirect: '1' };
      expectError(await http(`${host.url}/register`, { form: { ...form, password: '' } }), 400, 'password');
      expectError(await http(`${host.url}/register`, { form: { ...form, password: '123' } }), 400, 'password');
      expectError(await http(`${host.url}/register`, { form: { ...form, email: '' } }), 400, 'email');
      expectError(await http(`${host.url}/register`, { form: { ...form, email: 'not-an-email' } }), 400, 'email');
      expectError(await http(`${host.url}/register`, { form: { no_redirect: '1' } }), 400);
      expectError(await http(`${host.url}/api/v1/users/checked`), 404);
    });

    it('re-renders the form as HTML with the error status when no_redirect is absent', async () => {
      const result = await http(`${host.url}/register`, { form: { username: 'api', password: 'password123', email: 'x@example.com' } });
      expect(result.status).toBe(400);
      expect(String(result.headers['content-type'])).toMatch(/^text\/html/);
      expect(tokenCookie(result)).toBeUndefined();
    });
  });

  describe('POST /login and POST /logout', () => {
    beforeAll(async () => {
      await register(host, 'lena', 'correct-horse');
    });

    it('signs in with no_redirect=1: 200 and a fresh session cookie with the same rules', async () => {
      const result = await http(`${host.url}/login`, { form: { username: 'lena', password: 'correct-horse', no_redirect: '1' } });
      expect(result.status).toBe(200);
      const token = expectSessionCookie(result);
      expect((await me(cookie(token))).json.username).toBe('lena');
    });

    it('signs in case-insensitively by username', async () => {
      const result = await http(`${host.url}/login`, { form: { username: 'LENA', password: 'correct-horse', no_redirect: '1' } });
      expect(result.status).toBe(200);
    });

    it('answers 303 to / without no_redirect, setting the cookie', async () => {
      const result = await http(`${host.url}/login`, { form: { username: 'lena', password: 'correct-horse' } });
      expect(result.status).toBe(303);
      expect(result.headers.location).toBe('/');
      expectSessionCookie(result);
    });

    it('answers 401 to a wrong password or an unknown user and sets no cookie', async () => {
      for (const form of [
        { username: 'lena', password: 'wrong-horse' },
        { username: 'nobody', password: 'correct-horse' },
        { username: 'lena', password: '' },
        { username: '', password: '' },
      ]) {
        const result = await http(`${host.url}/login`, { form: { ...form, no_redirect: '1' } });
        expectError(result, 401);
        expect(tokenCookie(result)).toBeUndefined();
      }
    });

    it('logs out with no_redirect=1: the cookie is cleared and the session no longer works', async () => {
      const token = expectSessionCookie(await http(`${host.url}/login`, { form: { username: 'lena', password: 'correct-horse', no_redirect: '1' } }));
      const result = await http(`${host.url}/logout`, { headers: cookie(token), form: { no_redirect: '1' } });
      expect(result.status).toBe(200);
      const line = tokenCookie(result);
      expect(line).toBeDefined();
      expect(line).toMatch(/^token=;/);
      expectCookieRules(line!);
      const attributes = cookieAttributes(line!);
      expect(attributes.get('max-age') === '0' || new Date(attributes.get('expires') ?? '').getTime() < Date.now()).toBe(true);
      expectError(await me(cookie(token)), 401);
    });

    it('logs out with 303 without no_redirect, and ends only that session', async () => {
      const first = expectSessionCookie(await http(`${host.url}/login`, { form: { username: 'lena', password: 'correct-horse', no_redirect: '1' } }));
      const second = expectSessionCookie(await http(`${host.url}/login`, { form: { username: 'lena', password: 'correct-horse', no_redirect: '1' } }));
      const result = await http(`${host.url}/logout`, { method: 'POST', headers: cookie(first) });
      expect(result.status).toBe(303);
      expect(result.headers.location).toBe('/');
      const cleared = setCookies(result).filter((line) => line.startsWith('token='));
      expect(cleared).toHaveLength(1);
      expect(cleared[0]).toMatch(/^token=;/);
      expectCookieRules(cleared[0]!);
      expectError(await me(cookie(first)), 401);
      expect((await me(cookie(second))).status).toBe(200);
    });

    it('answers logout without a session as a no-op', async () => {
      const result = await http(`${host.url}/logout`, { form: { no_redirect: '1' } });
      expect(result.status).toBe(200);
    });
  });

  describe('POST /new', () => {
    let session: string;
    beforeAll(async () => {
      session = await register(host, 'maker');
    });

    it('answers 200 with the plain body ok; the repository then exists under the caller', async () => {
      const result = await http(`${host.url}/new`, {
        headers: cookie(session),
        form: { name: 'made', description: 'a repo', clone_url: '', repo_visibility: 'public', no_redirect: '1' },
      });
      expect(result.status).toBe(200);
      expect(result.text).toBe('ok');
      expect(String(result.headers['content-type'])).toMatch(/^text\/plain/);
      const lookup = await http(`${host.url}/api/v1/repos/maker/made`);
      expect(lookup.status).toBe(200);
      expect(lookup.json).toMatchObject({ name: 'made', user_name: 'maker' });
    });

    it('answers 303 to the repository page without no_redirect', async () => {
      const result = await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'made-redirect', description: '', clone_url: '', repo_visibility: 'public' } });
      expect(result.status).toBe(303);
      expect(result.headers.location).toBe('/maker/made-redirect');
      const page = await http(`${host.url}${result.headers.location}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('made-redirect');
    });

    it('creates a private repository with repo_visibility private, and public by default', async () => {
      await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'made-private', repo_visibility: 'private', no_redirect: '1' } });
      expect((await http(`${host.url}/api/v1/repos/maker/made-private`)).status).toBe(404);
      expect((await http(`${host.url}/api/v1/repos/maker/made-private`, { headers: cookie(session) })).status).toBe(200);
      await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'made-default', no_redirect: '1' } });
      expect((await http(`${host.url}/api/v1/repos/maker/made-default`)).status).toBe(200);
    });

    it('accepts the bearer token too', async () => {
      const token = /new_token=([^&]+)/.exec(String((await http(`${host.url}/maker/settings/api-tokens`, { headers: cookie(session), form: { name: 'new-repo' } })).headers.location))![1]!;
      const result = await http(`${host.url}/new`, { headers: bearer(token), form: { name: 'made-by-token', no_redirect: '1' } });
      expect(result.text).toBe('ok');
    });

    it('answers 401 without a session (no_redirect=1) and 303 to /login otherwise', async () => {
      expectError(await http(`${host.url}/new`, { form: { name: 'nope', no_redirect: '1' } }), 401);
      const redirected = await http(`${host.url}/new`, { form: { name: 'nope' } });
      expect(redirected.status).toBe(303);
      expect(redirected.headers.location).toBe('/login');
      expect((await http(`${host.url}/api/v1/repos/maker/nope`)).status).toBe(404);
    });

    it('answers 409 to a name the caller already uses (case-insensitively)', async () => {
      expectError(await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'made', no_redirect: '1' } }), 409);
      expectError(await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'MADE', no_redirect: '1' } }), 409);
    });

    it('lets two users use the same repository name', async () => {
      const other = await register(host, 'other-maker');
      const result = await http(`${host.url}/new`, { headers: cookie(other), form: { name: 'made', no_redirect: '1' } });
      expect(result.text).toBe('ok');
    });

    it.each(['', '..', '.', '.git', '.hidden', '-x', 'a/b', '../escape', 'x.git', 'ünï', 'a b', 'x'.repeat(101)])('answers 400 to the repository name %j', async (name) => {
      expectError(await http(`${host.url}/new`, { headers: cookie(session), form: { name, no_redirect: '1' } }), 400);
    });

    it('answers 400 to an unknown repo_visibility', async () => {
      expectError(await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'vis', repo_visibility: 'secret', no_redirect: '1' } }), 400);
    });

    it('answers 400 to a clone_url that is not an http(s) or git URL', async () => {
      for (const clone_url of ['file:///etc', '/etc', 'ext::sh -c touch% /tmp/pwned', '--upload-pack=touch /tmp/pwned']) {
        const result = await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'imported', clone_url, no_redirect: '1' } });
        expectError(result, 400);
      }
      expect((await http(`${host.url}/api/v1/repos/maker/imported`, { headers: cookie(session) })).status).toBe(404);
    });
  });

  describe('POST /:username/settings/api-tokens', () => {
    let session: string;
    beforeAll(async () => {
      session = await register(host, 'tokener');
    });

    it('redirects (302/303) with the plain token after new_token= in the Location query; the token works as bearer', async () => {
      const result = await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: 'ci' } });
      expect([302, 303]).toContain(result.status);
      const location = new URL(String(result.headers.location), host.url);
      const token = location.searchParams.get('new_token');
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(String(result.headers.location)).toContain(`new_token=${token}`);
      const summary = await me(bearer(token!));
      expect(summary.status).toBe(200);
      expect(summary.json.username).toBe('tokener');
    });

    it('shows the new token once on the page the redirect leads to', async () => {
      const result = await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: 'page' } });
      const page = await http(new URL(String(result.headers.location), host.url).toString(), { headers: cookie(session) });
      expect(page.status).toBe(200);
      const token = new URL(String(result.headers.location), host.url).searchParams.get('new_token')!;
      expect(page.text).toContain(token);
      const later = await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session) });
      expect(later.text).not.toContain(token);
    });

    it('mints a distinct token each time', async () => {
      const a = await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: 'one' } });
      const b = await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: 'two' } });
      expect(a.headers.location).not.toBe(b.headers.location);
    });

    it('answers 409 to a token name already in use, 400 to a missing name (no_redirect=1)', async () => {
      await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: 'dup' } });
      expectError(await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: 'dup', no_redirect: '1' } }), 409);
      expectError(await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(session), form: { name: '', no_redirect: '1' } }), 400);
    });

    it('answers 404 on another user’s settings and mints nothing there', async () => {
      const other = await register(host, 'intruder');
      const result = await http(`${host.url}/tokener/settings/api-tokens`, { headers: cookie(other), form: { name: 'stolen' } });
      expectError(result, 404);
      expect(result.headers.location).toBeUndefined();
    });

    it('redirects to /login without a session (and 401 with no_redirect=1)', async () => {
      const result = await http(`${host.url}/tokener/settings/api-tokens`, { form: { name: 'anon' } });
      expect(result.status).toBe(303);
      expect(result.headers.location).toBe('/login');
      expectError(await http(`${host.url}/tokener/settings/api-tokens`, { form: { name: 'anon', no_redirect: '1' } }), 401);
    });
  });

  describe('pages behind the redirects', () => {
    it('serves the register and login pages and sends /new to /login without a session', async () => {
      expect((await http(`${host.url}/register`)).status).toBe(200);
      expect((await http(`${host.url}/login`)).status).toBe(200);
      const result = await http(`${host.url}/new`);
      expect(result.status).toBe(303);
      expect(result.headers.location).toBe('/login');
    });
  });
});
