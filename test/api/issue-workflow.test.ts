import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost } from '../helpers/host.js';

describe('issues that move: edit, close and reopen, comments, labels, filters', () => {
  let host: RepoHost;
  let owner: TestUser;
  let writer: TestUser;
  let reader: TestUser;
  let stranger: TestUser;
  let base: string;

  const open = async (who: TestUser, title: string, body = '') => {
    const result = await http(`${base}/issues`, { headers: bearer(who.token), form: { title, body } });
    expect(result.status).toBe(200);
    return result.json as { id: number; number: number };
  };

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'owen');
    writer = await newUser(host, 'wanda');
    reader = await newUser(host, 'rita');
    stranger = await newUser(host, 'sam');
    await newRepo(host, owner, 'tracker');
    base = `${host.url}/api/v1/repos/owen/tracker`;
    for (const [user, permission] of [[writer, 'write'], [reader, 'read']] as const) {
      await http(`${base}/collaborators/${user.username}`, { method: 'PUT', headers: bearer(owner.token), json: { permission } });
    }
  });

  afterAll(async () => {
    await host?.close();
  });

  it('a new issue carries the extra fields: closed_at null, updated_at, comments 0, labels []', async () => {
    const issue = await open(stranger, 'Fresh');
    const result = await http(`${base}/issues/${issue.id}`);
    expect(result.json).toMatchObject({ status: 'open', closed_at: null, closed_by: null, comments: 0, labels: [], author: 'sam' });
    expect(result.json.updated_at).toBe(result.json.created_at);
  });

  it('closing records closed_at and who closed it; reopening clears them', async () => {
    const issue = await open(reader, 'To close');
    const closed = await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(writer.token), json: { status: 'closed' } });
    expect(closed.status).toBe(200);
    expect(closed.json).toMatchObject({ id: issue.id, status: 'closed', closed_by: 'wanda' });
    expect(Date.parse(closed.json.closed_at)).not.toBeNaN();
    const reopened = await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(reader.token), form: { status: 'open' } });
    expect(reopened.json).toMatchObject({ status: 'open', closed_at: null, closed_by: null });
  });

  it('the author and write collaborators edit title and body; others get 403, anonymous 401', async () => {
    const issue = await open(reader, 'Tpyo', 'body');
    const byAuthor = await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(reader.token), json: { title: 'Typo' } });
    expect(byAuthor.json).toMatchObject({ title: 'Typo', body: 'body' });
    const byWriter = await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(writer.token), json: { body: 'fixed' } });
    expect(byWriter.json).toMatchObject({ title: 'Typo', body: 'fixed' });
    expectError(await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(stranger.token), json: { title: 'x' } }), 403);
    expectError(await http(`${base}/issues/${issue.id}`, { method: 'PATCH', json: { title: 'x' } }), 401);
    expect((await http(`${base}/issues/${issue.id}`)).json.title).toBe('Typo');
  });

  it('refuses bad edits with 400 and unknown issues with 404', async () => {
    const issue = await open(owner, 'Edits');
    expectError(await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { status: 'merged' } }), 400, 'status');
    expectError(await http(`${base}/issues/${issue.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { title: '  ' } }), 400, 'title');
    expectError(await http(`${base}/issues/999999`, { method: 'PATCH', headers: bearer(owner.token), json: { title: 'x' } }), 404);
  });

  it('comments: anyone signed in posts, the list pages, the author or a writer edits and deletes', async () => {
    const issue = await open(owner, 'Discuss');
    const first = await http(`${base}/issues/${issue.id}/comments`, { headers: bearer(stranger.token), json: { body: 'first!' } });
    expect(first.status).toBe(200);
    expect(Object.keys(first.json).sort()).toEqual(['author', 'body', 'created_at', 'id', 'updated_at']);
    expect(first.json).toMatchObject({ author: 'sam', body: 'first!' });
    await http(`${base}/issues/${issue.id}/comments`, { headers: bearer(reader.token), json: { body: 'second' } });
    expectError(await http(`${base}/issues/${issue.id}/comments`, { json: { body: 'anon' } }), 401);
    expectError(await http(`${base}/issues/${issue.id}/comments`, { headers: bearer(reader.token), json: { body: '' } }), 400);
    const list = await http(`${base}/issues/${issue.id}/comments`);
    expect(list.json.map((c: { body: string }) => c.body)).toEqual(['first!', 'second']);
    expect(list.headers['x-total-count']).toBe('2');
    expect((await http(`${base}/issues/${issue.id}`)).json.comments).toBe(2);

    const url = `${base}/issues/${issue.id}/comments/${first.json.id}`;
    expectError(await http(url, { method: 'PATCH', headers: bearer(reader.token), json: { body: 'hijack' } }), 403);
    const edited = await http(url, { method: 'PATCH', headers: bearer(stranger.token), json: { body: 'first, edited' } });
    expect(edited.json).toMatchObject({ id: first.json.id, body: 'first, edited' });
    expect((await http(url, { method: 'DELETE', headers: bearer(writer.token) })).status).toBe(204);
    expectError(await http(url, { method: 'DELETE', headers: bearer(writer.token) }), 404);
    expect((await http(`${base}/issues/${issue.id}`)).json.comments).toBe(1);
  });

  it('labels: unique per repository case-insensitively, managed with write, colors as 6 hex digits', async () => {
    const bug = await http(`${base}/labels`, { headers: bearer(writer.token), json: { name: 'bug', color: '#D73A4A', description: 'Broken' } });
    expect(bug.status).toBe(200);
    expect(bug.json).toEqual({ id: expect.any(Number), name: 'bug', color: 'd73a4a', description: 'Broken' });
    expectError(await http(`${base}/labels`, { headers: bearer(owner.token), json: { name: 'BUG', color: '000000' } }), 409);
    expectError(await http(`${base}/labels`, { headers: bearer(owner.token), json: { name: 'x', color: 'red' } }), 400, 'color');
    expectError(await http(`${base}/labels`, { headers: bearer(reader.token), json: { name: 'docs', color: '0000ff' } }), 403);
    const docs = await http(`${base}/labels`, { headers: bearer(owner.token), json: { name: 'docs', color: '0000ff' } });
    const renamed = await http(`${base}/labels/${docs.json.id}`, { method: 'PATCH', headers: bearer(writer.token), json: { name: 'documentation' } });
    expect(renamed.json).toMatchObject({ name: 'documentation', color: '0000ff' });
    expectError(await http(`${base}/labels/${docs.json.id}`, { method: 'PATCH', headers: bearer(writer.token), json: { name: 'Bug' } }), 409);
    const list = await http(`${base}/labels`);
    expect(list.json.map((l: { name: string }) => l.name)).toEqual(['bug', 'documentation']);
  });

  it('issue labels: replace, add by names, remove by name; unknown names 400; list filters by all named labels', async () => {
    await http(`${base}/labels`, { headers: bearer(owner.token), json: { name: 'ui', color: '00ff00' } });
    await http(`${base}/labels`, { headers: bearer(owner.token), json: { name: 'p1', color: 'ff0000' } });
    const a = await open(owner, 'Label A');
    const b = await open(owner, 'Label B');
    const set = await http(`${base}/issues/${a.id}/labels`, { method: 'PUT', headers: bearer(writer.token), json: { labels: ['ui', 'P1'] } });
    expect(set.json.map((l: { name: string }) => l.name)).toEqual(['p1', 'ui']);
    const added = await http(`${base}/issues/${b.id}/labels`, { headers: bearer(writer.token), json: { labels: ['ui'] } });
    expect(added.json.map((l: { name: string }) => l.name)).toEqual(['ui']);
    expectError(await http(`${base}/issues/${b.id}/labels`, { headers: bearer(writer.token), json: { labels: ['nope'] } }), 400, 'nope');
    expectError(await http(`${base}/issues/${b.id}/labels`, { headers: bearer(reader.token), json: { labels: ['p1'] } }), 403);

    const both = await http(`${base}/issues?labels=ui,p1`);
    expect(both.json.map((i: { id: number }) => i.id)).toEqual([a.id]);
    const ui = await http(`${base}/issues?labels=UI`);
    expect(ui.json.map((i: { id: number }) => i.id)).toEqual([b.id, a.id]);
    const removed = await http(`${base}/issues/${a.id}/labels/ui`, { method: 'DELETE', headers: bearer(writer.token) });
    expect(removed.json.map((l: { name: string }) => l.name)).toEqual(['p1']);
    expectError(await http(`${base}/issues/${a.id}/labels/ui`, { method: 'DELETE', headers: bearer(writer.token) }), 404);
    expect((await http(`${base}/issues?labels=ui,p1`)).json).toEqual([]);
  });

  it('lists open issues newest first by default; status=closed|all, sort and direction; bad values 400', async () => {
    const repo = await newRepo(host, owner, 'ordering');
    const url = `${host.url}/api/v1/repos/owen/ordering/issues`;
    const ids: number[] = [];
    for (const title of ['one', 'two', 'three']) ids.push((await http(url, { headers: bearer(owner.token), form: { title } })).json.id);
    expect(repo.name).toBe('ordering');
    // Times have millisecond resolution: keep the updates apart so their order is certain.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    await tick();
    await http(`${url}/${ids[1]}`, { method: 'PATCH', headers: bearer(owner.token), json: { status: 'closed' } });
    await tick();
    await http(`${url}/${ids[0]}`, { method: 'PATCH', headers: bearer(owner.token), json: { body: 'touched last' } });
    const titles = async (query: string) => (await http(`${url}${query}`)).json.map((i: { title: string }) => i.title);
    expect(await titles('')).toEqual(['three', 'one']);
    expect(await titles('?status=closed')).toEqual(['two']);
    expect(await titles('?status=all')).toEqual(['three', 'two', 'one']);
    expect(await titles('?status=all&direction=asc')).toEqual(['one', 'two', 'three']);
    expect(await titles('?status=all&sort=updated')).toEqual(['one', 'two', 'three']);
    expectError(await http(`${url}?status=merged`), 400, 'status');
    expectError(await http(`${url}?sort=votes`), 400, 'sort');
    expectError(await http(`${url}?direction=up`), 400, 'direction');
    // Endpoint 16 keeps counting every issue, closed ones included.
    const count = await http(`${host.url}/api/v1/owen/ordering/issues/count`, { headers: bearer(owner.token) });
    expect(count.json).toEqual({ success: true, result: 3 });
  });

  it('on a private repository strangers get 404 on every issue path, readers may open and comment', async () => {
    await newRepo(host, owner, 'secret', 'private');
    const url = `${host.url}/api/v1/repos/owen/secret`;
    await http(`${url}/collaborators/rita`, { method: 'PUT', headers: bearer(owner.token), json: { permission: 'read' } });
    const issue = await http(`${url}/issues`, { headers: bearer(reader.token), form: { title: 'from a reader' } });
    expect(issue.status).toBe(200);
    expect((await http(`${url}/issues/${issue.json.id}/comments`, { headers: bearer(reader.token), json: { body: 'hi' } })).status).toBe(200);
    for (const [method, path] of [
      ['GET', `/issues/${issue.json.id}`],
      ['PATCH', `/issues/${issue.json.id}`],
      ['GET', `/issues/${issue.json.id}/comments`],
      ['POST', `/issues/${issue.json.id}/comments`],
      ['GET', '/labels'],
      ['POST', '/labels'],
      ['GET', '/collaborators'],
    ] as const) {
      const result = await http(`${url}${path}`, { method, headers: bearer(stranger.token), ...(method === 'GET' ? {} : { json: { body: 'x', name: 'x', color: '000000' } }) });
      expect({ path, method, status: result.status }).toEqual({ path, method, status: 404 });
    }
  });
});
