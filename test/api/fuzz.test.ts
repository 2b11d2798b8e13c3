import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';

/** A small deterministic generator (mulberry32), so a failure replays exactly. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEGMENTS = [
  'api', 'v1', 'repos', 'users', 'alice', 'bob', 'project', 'secret', 'issues', 'pulls', 'comments', 'star', 'watch', 'tree', 'files',
  'branches', 'count', 'commits', 'main', 'me', 'avatar', 'ci', 'status', 'register', 'login', 'logout', 'new', 'settings', 'api-tokens',
  'avatars', 'project.git', 'info', 'refs', 'git-upload-pack', 'git-receive-pack', '1', '2', '0', '-1', '999999999999', '..', '.', '%2e%2e',
  '%2F', '%00', '%ff', '%E2%9C%93', '🚀', 'ü', ' ', '%20', '\'', '"', '<x>', '*', '~', ';', 'a'.repeat(200), '%', '%zz', '.git', 'HEAD',
];
/** Real routes; each `*` is replaced by a valid value or a hostile segment. */
const TEMPLATES = [
  '/api/v1/me', '/api/v1/users/*', '/api/v1/users/*/repos', '/api/v1/repos/*/*', '/api/v1/repos/*/*/issues', '/api/v1/repos/*/*/issues/*',
  '/api/v1/repos/*/*/pulls', '/api/v1/repos/*/*/pulls/*', '/api/v1/repos/*/*/pulls/*/comments', '/api/v1/repos/*/star', '/api/v1/repos/*/watch',
  '/api/v1/repos/*/tree/files', '/api/v1/*/*/branches/count', '/api/v1/*/*/*/commits/count', '/api/v1/*/*/issues/count', '/api/v1/users/avatar',
  '/api/v1/ci/status', '/register', '/login', '/logout', '/new', '/*/settings/api-tokens', '/*', '/*/*', '/avatars/*', '/*/*/info/refs',
  '/*/*/git-upload-pack', '/*/*/git-receive-pack', '/api/v1/repos/*/*/branches', '/api/v1/repos/*/*/ci/runs',
];
const VALID = ['alice', 'project', 'secret', 'project.git', 'secret.git', '1', '2', 'main'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];
const BODIES: Array<{ type?: string; body?: string }> = [
  {},
  { type: 'application/x-www-form-urlencoded', body: 'title=x&text=y&name=z&head=main&base=main&no_redirect=1' },
  { type: 'application/x-www-form-urlencoded', body: '%%%&&==' },
  { type: 'application/json', body: '{"title":"x","run_id":"1","repo_id":"1","commit_hash":"abcd","branch":"main","status":"running"}' },
  { type: 'application/json', body: '{"title":' },
  { type: 'application/json', body: '[1,2,3]' },
  { type: 'text/plain', body: 'hello' },
  { type: 'multipart/form-data; boundary=zz', body: '--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nxx\r\n--zz--\r\n' },
  { type: 'application/x-git-upload-pack-request', body: '0000' },
  { type: 'application/x-git-receive-pack-request', body: '0000' },
];

describe('no client input yields 500 (deterministic fuzz over routes, methods, bodies, credentials)', () => {
  let host: RepoHost;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newUser(host, 'bob');
    await newRepo(host, alice, 'project');
    await newRepo(host, alice, 'secret', 'private');
  });
  afterAll(() => host?.close());

  it.each([1, 2, 3, 4])('seed %i: 300 random requests, none answered with 5xx', async (seed) => {
    const next = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const failures: string[] = [];
    const statuses = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const depth = 1 + Math.floor(next() * 7);
      const route =
        next() < 0.7
          ? pick(TEMPLATES).replace(/\*/g, () => (next() < 0.5 ? pick(VALID) : pick(SEGMENTS)))
          : `/${Array.from({ length: depth }, () => pick(SEGMENTS)).join('/')}`;
      const path = `${route}${next() < 0.3 ? `?branch=${pick(SEGMENTS)}&service=${pick(['git-upload-pack', 'git-receive-pack', 'x'])}` : ''}`;
      const method = pick(METHODS);
      const { type, body } = method === 'GET' || method === 'HEAD' ? {} : pick(BODIES);
      const credentials = pick([{}, cookie(alice.session), bearer(alice.token), bearer('bad'), { authorization: 'Basic YWxpY2U6d3Jvbmc=' }]);
      const headers: Record<string, string> = { ...credentials };
      if (type) headers['content-type'] = type;
      let status: number;
      try {
        status = (await http(`${host.url}${encodeURI(path).replace(/%25/g, '%')}`, { method, headers, body })).status;
      } catch (error) {
        failures.push(`${method} ${path}: ${(error as Error).message}`);
        continue;
      }
      statuses.add(status);
      if (status >= 500) failures.push(`${method} ${path} [${type ?? ''}]: ${status}`);
    }
    expect(failures).toEqual([]);
    // The fuzzing reaches handlers, not only the router's 404.
    expect(statuses.has(200)).toBe(true);
    expect([...statuses].some((status) => status !== 200 && status !== 404)).toBe(true);
  });

  it('still serves after the fuzzing', async () => {
    expect((await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) })).status).toBe(200);
  });
});
