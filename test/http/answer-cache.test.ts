import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHostCore, type HostCore } from '../../lib/host.js';
import { createApp } from '../../lib/http/app.js';
import { AnswerCache, PreparedJson } from '../../lib/answer-cache.js';
import type { RepoHost } from '../../lib/index.js';
import { request } from 'undici';
import { http, startHost } from '../helpers/host.js';

const TOKEN = 'ghp_answercache0123456789abcdef0';
const OTHER_TOKEN = 'ghp_answercacheother0123456789ab';

const prepared = (text: string) => new PreparedJson(Buffer.from(text), []);

describe('AnswerCache', () => {
  it('keeps an answer asked for twice at one version, and forgets every answer when the version changes', async () => {
    let version = 1;
    let made = 0;
    const cache = new AnswerCache(() => version);
    const ask = () => cache.answer('key', async () => prepared(`answer ${++made}`));
    expect((await ask()).bytes.toString()).toBe('answer 1');
    // Asked once, not kept: the second ask makes it again, and keeps that.
    expect((await ask()).bytes.toString()).toBe('answer 2');
    expect((await ask()).bytes.toString()).toBe('answer 2');
    expect((await ask()).bytes.toString()).toBe('answer 2');
    version = 2;
    expect((await ask()).bytes.toString()).toBe('answer 3');
    expect((await ask()).bytes.toString()).toBe('answer 4');
    expect((await ask()).bytes.toString()).toBe('answer 4');
  });

  it('keeps nothing made while the version changed (a write landed between its reads)', async () => {
    let version = 1;
    let made = 0;
    const cache = new AnswerCache(() => version);
    const ask = () => cache.answer('key', async () => ((version += 1), prepared(`answer ${++made}`)));
    for (let i = 1; i <= 4; i++) expect((await ask()).bytes.toString()).toBe(`answer ${i}`);
  });

  it('keeps nothing where the engine has no version (PostgreSQL), nor an answer over 1 MB', async () => {
    let made = 0;
    const unversioned = new AnswerCache(() => undefined);
    for (let i = 1; i <= 3; i++) expect((await unversioned.answer('key', async () => prepared(`answer ${++made}`))).bytes.toString()).toBe(`answer ${i}`);
    const cache = new AnswerCache(() => 1);
    const large = 'x'.repeat((1 << 20) + 1);
    const makes: string[] = [];
    for (let i = 0; i < 3; i++) await cache.answer('large', async () => (makes.push('made'), prepared(large)));
    expect(makes).toHaveLength(3);
  });

  it('keeps at most 16 MB of answers, forgetting the least recently used first', async () => {
    const cache = new AnswerCache(() => 1);
    const made: string[] = [];
    const ask = (key: string) => cache.answer(key, async () => (made.push(key), prepared(key.padEnd(900 * 1024, '.'))));
    // 19 answers of 900 KB, each asked twice (kept from the second ask): the first ones no longer fit.
    for (let i = 0; i < 19; i++) for (let twice = 0; twice < 2; twice++) await ask(`key ${i}`);
    made.length = 0;
    await ask('key 18');
    expect(made).toEqual([]);
    await ask('key 0');
    expect(made).toEqual(['key 0']);
  });
});

describe('the store version answers are kept by', () => {
  let core: HostCore;
  beforeAll(async () => {
    core = await openHostCore({ bcryptCost: 4 });
  });
  afterAll(async () => {
    await core?.close();
  });

  it('changes with every commit that ran a statement and every replace, not with a read', async () => {
    const store = core.ctx.store;
    const start = store.dataVersion()!;
    await store.read(async (tx) => await tx.all('SELECT 1'));
    await store.write(async (tx) => await tx.all('SELECT 1'));
    expect(store.dataVersion()).toBe(start);
    await store.write(async (tx) => await tx.run("INSERT INTO users (username, username_lower, email, password_hash, created_at) VALUES ('v', 'v', 'v@example.com', 'x', '2024-01-01T00:00:00.000Z')"));
    expect(store.dataVersion()).toBe(start + 1);
    await store.replaceWith(await store.exportBytes());
    expect(store.dataVersion()).toBe(start + 2);
  });
});

/** What a GET costs in statements, with its answer, through the app (as list-statements.test.ts counts). */
describe('lists answered from memory', () => {
  let core: HostCore;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    core = await openHostCore({ bcryptCost: 4 });
    core.setBaseUrl('http://repohost.test');
    await core.admin.load({
      users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 'bot', token: TOKEN }] }],
      repositories: [
        {
          owner: 'alice',
          name: 'app',
          branches: { main: { commits: [{ message: 'root', files: { 'a.txt': 'a\n' } }] }, topic: { from: 'main', commits: [{ message: 'topic', files: { 'b.txt': 'b\n' } }] } },
          issues: Array.from({ length: 40 }, (_, i) => ({ title: `Issue ${i}`, body: `*body* ${i}`, comments: i === 0 ? [{ author: 'alice', body: 'one' }, { author: 'alice', body: 'two' }] : [] })),
          pulls: [{ title: 'Pull', head: 'topic', base: 'main', author: 'alice' }],
        },
      ],
    });
    app = createApp(core.ctx, () => undefined);
  });
  afterAll(async () => {
    await core?.close();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const before = core.ctx.store.statementsRun();
    const response = await app.fetch(new Request(`http://repohost.test${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } }));
    expect(response.status).toBe(200);
    const text = await response.text();
    // The time, the rate limit's reset (an hour from now, in seconds) and the request's id are of the request, not of
    // the answer kept.
    const answered = Object.fromEntries([...response.headers].filter(([name]) => !['date', 'x-ratelimit-reset', 'x-ratelimit-remaining', 'x-ratelimit-used', 'x-github-request-id'].includes(name)));
    return { statements: core.ctx.store.statementsRun() - before, text, headers: answered };
  };

  for (const [label, path] of [
    ['/api/v3 issues', '/api/v3/repos/alice/app/issues?per_page=10&page=2'],
    ['/api/v1 issues', '/api/v1/repos/alice/app/issues?limit=10&page=2'],
    ['/api/v3 pull requests', '/api/v3/repos/alice/app/pulls?state=all'],
    ['/api/v3 comments of an issue', '/api/v3/repos/alice/app/issues/1/comments?per_page=1'],
  ] as const) {
    it(`${label}: the same list asked again is the same answer, headers and all, with only the access check's statements`, async () => {
      const first = await get(path);
      const second = await get(path);
      const third = await get(path);
      expect(second).toEqual({ ...first, statements: second.statements });
      expect(third).toEqual({ ...first, statements: third.statements });
      expect(JSON.parse(first.text).length).toBeGreaterThan(0);
      if (!path.includes('/pulls')) expect(first.headers.link).toContain('rel="next"');
      // The token's account and the repository, read on every request; the page's own reads only the first times.
      expect(third.statements).toBe(2);
      expect(first.statements).toBeGreaterThan(third.statements);
    });
  }

  it('a body format is part of what is kept: another Accept is another answer', async () => {
    const path = '/api/v3/repos/alice/app/issues?per_page=5';
    const raw = await get(path);
    await get(path, { accept: 'application/vnd.github.html+json' });
    const html = await get(path, { accept: 'application/vnd.github.html+json' });
    const newestIssue = (text: string) => (JSON.parse(text) as Array<Record<string, unknown>>).find((issue) => issue.title === 'Issue 39')!;
    expect(newestIssue(raw.text).body).toBe('*body* 39');
    expect(newestIssue(html.text)).not.toHaveProperty('body');
    expect(newestIssue(html.text).body_html).toContain('<em>body</em>');
    expect((await get(path)).text).toBe(raw.text);
  });
});

/** Over real HTTP, on either engine: a kept answer is never one a write or an access check would change. */
describe('answers kept in memory, seen by clients', () => {
  let host: RepoHost;
  const api = (path: string, token?: string, init: { method?: string; json?: unknown } = {}) =>
    http(`${host.url}${path}`, { ...init, headers: token ? { authorization: `Bearer ${token}` } : {} });

  beforeAll(async () => {
    host = await startHost();
    await host.admin.load({
      users: [
        { username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 'bot', token: TOKEN }] },
        { username: 'bob', email: 'bob@example.com', password: 'password123', tokens: [{ name: 'bot', token: OTHER_TOKEN }] },
      ],
      repositories: [
        { owner: 'alice', name: 'open', issues: [{ title: 'first' }] },
        { owner: 'alice', name: 'secret', private: true, collaborators: { bob: 'read' }, issues: [{ title: 'hidden' }] },
      ],
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  const titles = async (path: string, token?: string) => {
    const result = await api(path, token);
    expect(result.status).toBe(200);
    return (result.json as Array<{ title: string }>).map((issue) => issue.title);
  };

  it('shows every write at once: an issue opened, retitled and closed after the list was kept', async () => {
    for (const path of ['/api/v3/repos/alice/open/issues', '/api/v1/repos/alice/open/issues']) {
      for (let i = 0; i < 3; i++) expect(await titles(path)).toContain('first');
    }
    const opened = await api('/api/v3/repos/alice/open/issues', TOKEN, { json: { title: 'second' } });
    expect(opened.status).toBe(201);
    expect(await titles('/api/v3/repos/alice/open/issues')).toEqual(['second', 'first']);
    expect(await titles('/api/v1/repos/alice/open/issues')).toEqual(['second', 'first']);
    expect((await api(`/api/v3/repos/alice/open/issues/${opened.json.number}`, TOKEN, { method: 'PATCH', json: { title: 'renamed' } })).status).toBe(200);
    expect(await titles('/api/v3/repos/alice/open/issues')).toEqual(['renamed', 'first']);
    expect((await api(`/api/v3/repos/alice/open/issues/${opened.json.number}`, TOKEN, { method: 'PATCH', json: { state: 'closed' } })).status).toBe(200);
    expect(await titles('/api/v3/repos/alice/open/issues')).toEqual(['first']);
    expect(await titles('/api/v1/repos/alice/open/issues')).toEqual(['first']);
    const comments = async () => ((await api('/api/v3/repos/alice/open/issues/1/comments')).json as Array<{ body: string }>).map((comment) => comment.body);
    for (let i = 0; i < 3; i++) expect(await comments()).toEqual([]);
    expect((await api('/api/v3/repos/alice/open/issues/1/comments', TOKEN, { json: { body: 'seen' } })).status).toBe(201);
    expect(await comments()).toEqual(['seen']);
  });

  it('checks access on every request: a private list kept for its collaborator is 404 to others, and to the collaborator once removed', async () => {
    for (const path of ['/api/v3/repos/alice/secret/issues', '/api/v1/repos/alice/secret/issues']) {
      for (let i = 0; i < 3; i++) expect(await titles(path, OTHER_TOKEN)).toEqual(['hidden']);
      expect((await api(path)).status).toBe(404);
    }
    expect((await api('/api/v3/repos/alice/secret/collaborators/bob', TOKEN, { method: 'DELETE' })).status).toBe(204);
    expect((await api('/api/v3/repos/alice/secret/issues', OTHER_TOKEN)).status).toBe(404);
    expect((await api('/api/v1/repos/alice/secret/issues', OTHER_TOKEN)).status).toBe(404);
    expect(await titles('/api/v3/repos/alice/secret/issues', TOKEN)).toEqual(['hidden']);
  });

  it('sends a kept list compressed as asked, the same bytes each time', async () => {
    const path = '/api/v3/repos/alice/open/issues?per_page=100';
    const plain = (await api(path)).text;
    for (const [encoding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
      const bodies: Buffer[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await request(`${host.url}${path}`, { headers: { 'accept-encoding': encoding } });
        expect(response.headers['content-encoding']).toBe(encoding);
        bodies.push(Buffer.from(await response.body.arrayBuffer()));
      }
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[2]).toEqual(bodies[0]);
      expect(decode(bodies[2]!).toString()).toBe(plain);
    }
  });

  it('answers HEAD of a kept list with the headers GET gives, and no body', async () => {
    const path = '/api/v3/repos/alice/open/issues';
    const got = await api(path);
    for (let i = 0; i < 3; i++) {
      const head = await http(`${host.url}${path}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect([head.headers['content-type'], head.headers.etag]).toEqual([got.headers['content-type'], got.headers.etag]);
    }
  });

  it('answers a kept list 304 to the ETag it gave, and the new list once a write changed it', async () => {
    const path = '/api/v3/repos/alice/open/issues';
    const first = await api(path);
    const etag = first.headers.etag as string;
    for (let i = 0; i < 2; i++) {
      const again = await http(`${host.url}${path}`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    }
    expect((await api('/api/v3/repos/alice/open/issues', TOKEN, { json: { title: 'third' } })).status).toBe(201);
    const changed = await http(`${host.url}${path}`, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect((changed.json as Array<{ title: string }>)[0]!.title).toBe('third');
  });
});
