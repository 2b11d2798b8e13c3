import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { expectError, expectShape, ISSUE_SUMMARY, newRepo, newUser, type TestUser } from '../helpers/api.js';

describe('issues API (spec §4.1 endpoints 5-7, 16)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let tracker: { id: number };
  let other: { id: number };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    tracker = await newRepo(host, alice, 'tracker');
    other = await newRepo(host, alice, 'other');
  });
  afterAll(() => host?.close());

  const issuesUrl = (repo = 'tracker', owner = 'alice') => `${host.url}/api/v1/repos/${owner}/${repo}/issues`;

  it('answers an empty array for a repository without issues', async () => {
    const result = await http(issuesUrl('other'));
    expect(result.status).toBe(200);
    expect(result.json).toEqual([]);
  });

  it('creates an issue with a bearer token: 200, the issue summary, status open', async () => {
    const result = await http(issuesUrl(), { headers: bearer(alice.token), form: { title: 'First bug', body: 'It breaks.' } });
    expect(result.status).toBe(200);
    expectShape(result.json, ISSUE_SUMMARY);
    expect(result.json).toMatchObject({ repo_id: tracker.id, title: 'First bug', body: 'It breaks.', author: 'alice', status: 'open' });
  });

  it('lists a created issue and fetches it by its id', async () => {
    const created = await http(issuesUrl(), { headers: bearer(bob.token), form: { title: 'Listed', body: 'by bob' } });
    expect(created.status).toBe(200);
    const list = await http(issuesUrl());
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json)).toBe(true);
    for (const issue of list.json) expectShape(issue, ISSUE_SUMMARY);
    expect(list.json).toContainEqual(created.json);
    const fetched = await http(`${issuesUrl()}/${created.json.id}`);
    expect(fetched.status).toBe(200);
    expectShape(fetched.json, ISSUE_SUMMARY);
    expect(fetched.json.id).toBe(created.json.id);
    expect(fetched.json).toEqual(created.json);
    expect(fetched.json.author).toBe('bob');
  });

  it('numbers issues per repository and gives them global ids', async () => {
    const a1 = await http(issuesUrl('other'), { headers: bearer(alice.token), form: { title: 'one' } });
    const a2 = await http(issuesUrl('other'), { headers: bearer(alice.token), form: { title: 'two' } });
    expect(a2.json.number).toBe(a1.json.number + 1);
    expect(a1.json.repo_id).toBe(other.id);
    const { id: thirdId } = await newRepo(host, bob, 'numbers');
    const b1 = await http(issuesUrl('numbers', 'bob'), { headers: bearer(bob.token), form: { title: 'first here' } });
    expect(b1.json).toMatchObject({ number: 1, repo_id: thirdId });
    expect(new Set([a1.json.id, a2.json.id, b1.json.id]).size).toBe(3);
  });

  it('stores an issue without a body with an empty body', async () => {
    const result = await http(issuesUrl(), { headers: bearer(alice.token), form: { title: 'No body' } });
    expect(result.status).toBe(200);
    expect(result.json.body).toBe('');
  });

  it('accepts a JSON body as well as the form', async () => {
    const result = await http(issuesUrl(), { headers: bearer(alice.token), json: { title: 'From JSON', body: 'json body' } });
    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({ title: 'From JSON', body: 'json body', status: 'open' });
  });

  it('keeps unicode text intact', async () => {
    const title = 'Ünïcødé ✓ 漢字 🚀';
    const result = await http(issuesUrl(), { headers: bearer(alice.token), form: { title, body: 'ß\u0000end' } });
    expect(result.status).toBe(200);
    const fetched = await http(`${issuesUrl()}/${result.json.id}`);
    expect(fetched.json.title).toBe(title);
  });

  it('also accepts the session cookie for creation', async () => {
    const result = await http(issuesUrl(), { headers: cookie(bob.session), form: { title: 'via cookie' } });
    expect(result.status).toBe(200);
    expect(result.json.author).toBe('bob');
  });

  it('answers 401 to issue creation without credentials, or with a wrong token, and stores nothing', async () => {
    const before = (await http(issuesUrl())).json.length;
    expectError(await http(issuesUrl(), { form: { title: 'anonymous' } }), 401);
    expectError(await http(issuesUrl(), { headers: bearer('0'.repeat(64)), form: { title: 'wrong' } }), 401);
    expectError(await http(issuesUrl(), { headers: { authorization: 'Bearer' }, form: { title: 'malformed' } }), 401);
    expectError(await http(issuesUrl(), { headers: cookie('wrong'), form: { title: 'wrong cookie' } }), 401);
    expect((await http(issuesUrl())).json.length).toBe(before);
  });

  it('answers 401 before looking at the repository (no credentials for an unknown repository)', async () => {
    expectError(await http(issuesUrl('missing'), { form: { title: 'x' } }), 401);
  });

  it('answers 400 to issue creation with credentials but without title', async () => {
    const before = (await http(issuesUrl())).json.length;
    expectError(await http(issuesUrl(), { headers: bearer(alice.token), form: { body: 'no title' } }), 400);
    expectError(await http(issuesUrl(), { headers: bearer(alice.token), form: { title: '', body: 'empty title' } }), 400);
    expectError(await http(issuesUrl(), { headers: bearer(alice.token), form: { title: '   ' } }), 400);
    expectError(await http(issuesUrl(), { method: 'POST', headers: bearer(alice.token) }), 400);
    expectError(await http(issuesUrl(), { headers: bearer(alice.token), json: { title: 42 } }), 400);
    expect((await http(issuesUrl())).json.length).toBe(before);
  });

  it('answers 400 to an over-long title', async () => {
    expectError(await http(issuesUrl(), { headers: bearer(alice.token), form: { title: 'x'.repeat(10_000) } }), 400);
  });

  it('answers 404 to issue creation in an unknown repository', async () => {
    expectError(await http(issuesUrl('missing'), { headers: bearer(alice.token), form: { title: 'x' } }), 404);
  });

  it('answers 404 to issue lookup for an id that does not exist', async () => {
    expectError(await http(`${issuesUrl()}/999999`), 404);
    expectError(await http(`${issuesUrl()}/0`), 404);
  });

  it('answers 404 to a non-numeric issue id', async () => {
    for (const id of ['abc', '-1', '1.0', '1e2', '%20', '99999999999999999999']) expectError(await http(`${issuesUrl()}/${id}`), 404);
  });

  it('answers 404 to an issue id of another repository', async () => {
    const foreign = await http(issuesUrl('other'), { headers: bearer(alice.token), form: { title: 'lives in other' } });
    expectError(await http(`${issuesUrl('tracker')}/${foreign.json.id}`), 404);
    expect((await http(`${issuesUrl('other')}/${foreign.json.id}`)).status).toBe(200);
  });

  it('answers 404 to the issue list of an unknown repository or user', async () => {
    expectError(await http(issuesUrl('missing')), 404);
    expectError(await http(issuesUrl('tracker', 'nobody')), 404);
  });

  describe('GET /api/v1/:username/:repo_name/issues/count', () => {
    it('answers a Count result, at least 1 after an issue was created, with the session cookie', async () => {
      await newRepo(host, alice, 'counted');
      const zero = await http(`${host.url}/api/v1/alice/counted/issues/count`, { headers: cookie(alice.session) });
      expect(zero.status).toBe(200);
      expectShape(zero.json, { success: 'boolean', result: 'integer' });
      expect(zero.json).toEqual({ success: true, result: 0 });
      await http(issuesUrl('counted'), { headers: bearer(alice.token), form: { title: 'one' } });
      await http(issuesUrl('counted'), { headers: bearer(bob.token), form: { title: 'two' } });
      const two = await http(`${host.url}/api/v1/alice/counted/issues/count`, { headers: cookie(alice.session) });
      expect(two.json).toEqual({ success: true, result: 2 });
      const list = await http(issuesUrl('counted'));
      expect(list.json.length).toBe(two.json.result);
    });

    it('answers another user and the bearer token too', async () => {
      for (const headers of [cookie(bob.session), bearer(bob.token), bearer(alice.token)]) {
        const result = await http(`${host.url}/api/v1/alice/tracker/issues/count`, { headers });
        expect(result.status).toBe(200);
        expect(result.json.success).toBe(true);
        expect(result.json.result).toBeGreaterThanOrEqual(1);
      }
    });

    it('answers a body containing Not found without credentials (404)', async () => {
      const result = await http(`${host.url}/api/v1/alice/tracker/issues/count`);
      expect(result.text).toContain('Not found');
      expectError(result, 404, 'Not found');
      expectError(await http(`${host.url}/api/v1/alice/tracker/issues/count`, { headers: cookie('stale') }), 404, 'Not found');
    });

    it('answers Not found (404) for an unknown repository', async () => {
      expectError(await http(`${host.url}/api/v1/alice/missing/issues/count`, { headers: cookie(alice.session) }), 404, 'Not found');
    });
  });
});
