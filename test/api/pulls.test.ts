import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { COMMENT_SUMMARY, expectError, expectShape, newRepo, newUser, PULL_SUMMARY, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';

describe('pull requests API (spec §4.1 endpoints 8-10, and the creation endpoints of issue 2)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let repo: { id: number };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    repo = await newRepo(host, alice, 'project');
    await newRepo(host, alice, 'empty');
    // Only one open pull request may join two branches: each test opens its own from feature into base-N.
    await pushTwoBranches(host, 'alice', alice.token, 'project', Array.from({ length: 20 }, (_, n) => `base-${n + 1}`));
  });
  afterAll(() => host?.close());

  const pullsUrl = (name = 'project') => `${host.url}/api/v1/repos/alice/${name}/pulls`;
  let bases = 0;
  const openPull = (headers: Record<string, string>, fields: Record<string, string> = {}) =>
    http(pullsUrl(), { headers, form: { title: 'Add a feature', description: 'Please merge.', head: 'feature', base: `base-${++bases}`, ...fields } });

  it('answers an empty array when there are no pull requests', async () => {
    const result = await http(pullsUrl('empty'));
    expect(result.status).toBe(200);
    expect(result.json).toEqual([]);
  });

  it('creates a pull request between two pushed branches and returns its summary', async () => {
    const result = await openPull(bearer(alice.token));
    expect(result.status).toBe(200);
    expectShape(result.json, PULL_SUMMARY);
    expect(result.json).toMatchObject({ repo_id: repo.id, title: 'Add a feature', description: 'Please merge.', status: 'open' });
  });

  it('lists a created pull request and fetches it by id, without credentials', async () => {
    const created = await openPull(cookie(bob.session), { title: 'Listed pull' });
    expect(created.status).toBe(200);
    const list = await http(pullsUrl());
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json)).toBe(true);
    for (const pull of list.json) expectShape(pull, PULL_SUMMARY);
    expect(list.json).toContainEqual(created.json);
    const fetched = await http(`${pullsUrl()}/${created.json.id}`);
    expect(fetched.status).toBe(200);
    expectShape(fetched.json, PULL_SUMMARY);
    expect(fetched.json).toEqual(created.json);
  });

  it('stores a pull request without a description with an empty one', async () => {
    const result = await http(pullsUrl(), { headers: bearer(bob.token), form: { title: 'Bare', head: 'feature', base: 'main' } });
    expect(result.status).toBe(200);
    expect(result.json.description).toBe('');
  });

  it('answers 401 to pull request creation without credentials or with a wrong token', async () => {
    expectError(await openPull({}), 401);
    expectError(await openPull(bearer('wrong')), 401);
  });

  it('answers 400 when a field is missing or a branch does not exist, and stores nothing', async () => {
    const before = (await http(pullsUrl())).json.length;
    expectError(await openPull(bearer(alice.token), { title: '' }), 400, 'title');
    expectError(await http(pullsUrl(), { headers: bearer(alice.token), form: { title: 't', base: 'main' } }), 400, 'head');
    expectError(await http(pullsUrl(), { headers: bearer(alice.token), form: { title: 't', head: 'feature' } }), 400, 'base');
    expectError(await openPull(bearer(alice.token), { head: 'no-such-branch' }), 400, 'no-such-branch');
    expectError(await openPull(bearer(alice.token), { base: 'no-such-base' }), 400, 'no-such-base');
    expectError(await openPull(bearer(alice.token), { head: 'main', base: 'main' }), 400);
    expect((await http(pullsUrl())).json.length).toBe(before);
  });

  it('answers 400 in a repository without branches', async () => {
    expectError(await http(pullsUrl('empty'), { headers: bearer(alice.token), form: { title: 't', head: 'feature', base: 'main' } }), 400);
  });

  it('answers 404 to pull request lookup for an id that does not exist', async () => {
    expectError(await http(`${pullsUrl()}/999999`), 404);
    expectError(await http(`${pullsUrl()}/abc`), 404);
    expectError(await http(`${pullsUrl()}/-3`), 404);
  });

  it('answers 404 to a pull request id of another repository', async () => {
    const created = await openPull(bearer(alice.token));
    expectError(await http(`${pullsUrl('empty')}/${created.json.id}`), 404);
    expectError(await http(`${pullsUrl('empty')}/${created.json.id}/comments`), 404);
  });

  describe('comments', () => {
    it('creates comments, lists them in order as comment summaries', async () => {
      const pull = await openPull(bearer(alice.token), { title: 'Commented' });
      const commentsUrl = `${pullsUrl()}/${pull.json.id}/comments`;
      const empty = await http(commentsUrl);
      expect(empty.status).toBe(200);
      expect(empty.json).toEqual([]);
      const first = await http(commentsUrl, { headers: bearer(bob.token), form: { text: 'Looks good' } });
      expect(first.status).toBe(200);
      expectShape(first.json, COMMENT_SUMMARY);
      expect(first.json).toMatchObject({ author: 'bob', text: 'Looks good' });
      const second = await http(commentsUrl, { headers: cookie(alice.session), form: { text: 'Thanks ✓' } });
      expect(second.status).toBe(200);
      expect(second.json).toMatchObject({ author: 'alice', text: 'Thanks ✓' });
      const list = await http(commentsUrl);
      expect(list.status).toBe(200);
      for (const comment of list.json) expectShape(comment, COMMENT_SUMMARY);
      expect(list.json.map((comment: { text: string }) => comment.text)).toEqual(['Looks good', 'Thanks ✓']);
      expect(list.json[0]).toEqual(first.json);
    });

    it('answers 404 to comments of a pull request that does not exist (list and create)', async () => {
      expectError(await http(`${pullsUrl()}/999999/comments`), 404);
      expectError(await http(`${pullsUrl()}/999999/comments`, { headers: bearer(bob.token), form: { text: 'hello?' } }), 404);
    });

    it('answers 401 without credentials and 400 without text', async () => {
      const pull = await openPull(bearer(alice.token));
      const commentsUrl = `${pullsUrl()}/${pull.json.id}/comments`;
      expectError(await http(commentsUrl, { form: { text: 'anonymous' } }), 401);
      expectError(await http(commentsUrl, { headers: bearer(bob.token), form: {} }), 400, 'text');
      expectError(await http(commentsUrl, { headers: bearer(bob.token), form: { text: '  ' } }), 400);
      expect((await http(commentsUrl)).json).toEqual([]);
    });
  });
});
