import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { COMMENT_SUMMARY, expectShape, ISSUE_SUMMARY, pngBytes, PULL_SUMMARY, REPO_SUMMARY, uploadAvatar, USER_SUMMARY } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';

/**
 * One pass through the spec in its own order, the way an outside client uses the service: every row of
 * §4.1 (1-18), §4.2 and §7, each request sent with exactly the credentials §5 names for it.
 */
describe('spec walkthrough (http-api.md §4, §5, §7 in order)', () => {
  let host: RepoHost;
  let session: string;
  let apiToken: string;
  let repoId: number;
  let issueId: number;
  let pullId: number;

  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(() => host?.close());

  it('§4.2 GET / responds once the service accepts connections', async () => {
    expect((await http(`${host.url}/`)).status).toBe(200);
  });

  it('§4.2 POST /register: 200 and Set-Cookie token=<SESSION_TOKEN>', async () => {
    const result = await http(`${host.url}/register`, { form: { username: 'walker', password: 'walker-pass', email: 'walker@example.com', no_redirect: '1' } });
    expect(result.status).toBe(200);
    const line = [result.headers['set-cookie']].flat().find((value) => value?.startsWith('token='));
    session = /^token=([^;]+)/.exec(line ?? '')![1]!;
    expect(session).toBeTruthy();
  });

  it('§4.2 POST /new: 200, plain body ok; the repository then exists under the caller', async () => {
    const result = await http(`${host.url}/new`, {
      headers: cookie(session),
      form: { name: 'walk', description: 'walkthrough', clone_url: '', repo_visibility: 'public', no_redirect: '1' },
    });
    expect(result.status).toBe(200);
    expect(result.text).toBe('ok');
  });

  it('§4.2 POST /:username/settings/api-tokens: 302/303, Location query new_token=<API_TOKEN>', async () => {
    const result = await http(`${host.url}/walker/settings/api-tokens`, { headers: cookie(session), form: { name: 'walkthrough' } });
    expect([302, 303]).toContain(result.status);
    const location = String(result.headers.location);
    // A client may take everything after `new_token=`: the token is the last thing in the Location.
    apiToken = location.slice(location.indexOf('new_token=') + 'new_token='.length);
    expect(apiToken).toMatch(/^[0-9a-f]{64}$/);
    expect(apiToken.length).toBeGreaterThan(0);
  });

  it('1 GET /api/v1/me with the bearer token and with the session cookie; 401 without', async () => {
    for (const headers of [bearer(apiToken), cookie(session)]) {
      const result = await http(`${host.url}/api/v1/me`, { headers });
      expect(result.status).toBe(200);
      expectShape(result.json, USER_SUMMARY);
      expect(result.json.username).toBe('walker');
    }
    expect((await http(`${host.url}/api/v1/me`)).status).toBe(401);
  });

  it('2 GET /api/v1/users/:username; 404 for an unknown username', async () => {
    const result = await http(`${host.url}/api/v1/users/walker`);
    expect(result.status).toBe(200);
    expectShape(result.json, USER_SUMMARY);
    expect((await http(`${host.url}/api/v1/users/no-such-walker`)).status).toBe(404);
  });

  it('3 GET /api/v1/users/:username/repos', async () => {
    const result = await http(`${host.url}/api/v1/users/walker/repos`);
    expect(result.status).toBe(200);
    expect(result.json.length).toBeGreaterThanOrEqual(1);
    for (const repo of result.json) expectShape(repo, REPO_SUMMARY);
  });

  it('4 GET /api/v1/repos/:username/:repo_name; 404 for an unknown name of an existing user', async () => {
    const result = await http(`${host.url}/api/v1/repos/walker/walk`);
    expect(result.status).toBe(200);
    expectShape(result.json, REPO_SUMMARY);
    expect(result.json).toMatchObject({ name: 'walk', user_name: 'walker' });
    repoId = result.json.id;
    expect((await http(`${host.url}/api/v1/repos/walker/walk`, { headers: cookie(session) })).status).toBe(200);
    expect((await http(`${host.url}/api/v1/repos/walker/no-such-walk`)).status).toBe(404);
  });

  it('5 GET .../issues: an empty array for a repository without issues', async () => {
    const result = await http(`${host.url}/api/v1/repos/walker/walk/issues`);
    expect(result.status).toBe(200);
    expect(result.json).toEqual([]);
  });

  it('6 POST .../issues with the bearer token: 200, status open; 401 without credentials; 400 without title', async () => {
    const result = await http(`${host.url}/api/v1/repos/walker/walk/issues`, { headers: bearer(apiToken), form: { title: 'Walk issue', body: 'Found on the walk' } });
    expect(result.status).toBe(200);
    expectShape(result.json, ISSUE_SUMMARY);
    expect(result.json.status).toBe('open');
    issueId = result.json.id;
    expect((await http(`${host.url}/api/v1/repos/walker/walk/issues`, { form: { title: 'anonymous' } })).status).toBe(401);
    expect((await http(`${host.url}/api/v1/repos/walker/walk/issues`, { headers: bearer(apiToken), form: { body: 'no title' } })).status).toBe(400);
  });

  it('5 then 7: the issue is listed and retrievable by id; 404 for an id that does not exist', async () => {
    const list = await http(`${host.url}/api/v1/repos/walker/walk/issues`);
    expect(list.json.map((issue: { id: number }) => issue.id)).toContain(issueId);
    const result = await http(`${host.url}/api/v1/repos/walker/walk/issues/${issueId}`);
    expect(result.status).toBe(200);
    expectShape(result.json, ISSUE_SUMMARY);
    expect(result.json.id).toBe(issueId);
    expect((await http(`${host.url}/api/v1/repos/walker/walk/issues/987654`)).status).toBe(404);
  });

  it('8 GET .../pulls: an empty array when there are none', async () => {
    const result = await http(`${host.url}/api/v1/repos/walker/walk/pulls`);
    expect(result.status).toBe(200);
    expect(result.json).toEqual([]);
  });

  it('9 and 10 after pushing two branches and opening a pull request with a comment; 404 for unknown ids', async () => {
    await pushTwoBranches(host, 'walker', apiToken, 'walk');
    const pull = await http(`${host.url}/api/v1/repos/walker/walk/pulls`, { headers: bearer(apiToken), form: { title: 'Walk PR', description: 'd', head: 'feature', base: 'main' } });
    expect(pull.status).toBe(200);
    pullId = pull.json.id;
    const comment = await http(`${host.url}/api/v1/repos/walker/walk/pulls/${pullId}/comments`, { headers: bearer(apiToken), form: { text: 'LGTM' } });
    expect(comment.status).toBe(200);
    const list = await http(`${host.url}/api/v1/repos/walker/walk/pulls`);
    expect(list.json).toHaveLength(1);
    const fetched = await http(`${host.url}/api/v1/repos/walker/walk/pulls/${pullId}`);
    expect(fetched.status).toBe(200);
    expectShape(fetched.json, PULL_SUMMARY);
    const comments = await http(`${host.url}/api/v1/repos/walker/walk/pulls/${pullId}/comments`);
    expect(comments.status).toBe(200);
    for (const entry of comments.json) expectShape(entry, COMMENT_SUMMARY);
    expect(comments.json.map((entry: { text: string }) => entry.text)).toEqual(['LGTM']);
    expect((await http(`${host.url}/api/v1/repos/walker/walk/pulls/987654`)).status).toBe(404);
    expect((await http(`${host.url}/api/v1/repos/walker/walk/pulls/987654/comments`)).status).toBe(404);
  });

  it('11 POST /api/v1/repos/:repo_id/star with the session cookie twice: true, then false', async () => {
    const first = await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: cookie(session) });
    const second = await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: cookie(session) });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.json).toEqual({ success: true, result: true });
    expect(second.json).toEqual({ success: true, result: false });
  });

  it('12 POST /api/v1/repos/:repo_id/watch with the session cookie: success true, a boolean result', async () => {
    const result = await http(`${host.url}/api/v1/repos/${repoId}/watch`, { method: 'POST', headers: cookie(session) });
    expect(result.status).toBe(200);
    expect(result.json.success).toBe(true);
    expect(typeof result.json.result).toBe('boolean');
  });

  it('13 GET /api/v1/repos/:repo_id_str/tree/files?branch=: Files result; branch is required; Not found', async () => {
    const result = await http(`${host.url}/api/v1/repos/${String(repoId)}/tree/files?branch=main`);
    expect(result.status).toBe(200);
    expect(result.json.success).toBe(true);
    expect(Array.isArray(result.json.result)).toBe(true);
    for (const entry of result.json.result) for (const field of ['name', 'last_msg', 'last_hash', 'last_time', 'size']) expect(typeof entry[field]).toBe('string');
    expect((await http(`${host.url}/api/v1/repos/${repoId}/tree/files`)).text).toContain('branch is required');
    expect((await http(`${host.url}/api/v1/repos/987654/tree/files?branch=main`)).text).toContain('Not found');
  });

  it('14, 15, 16 counts with the session cookie; 16 without credentials contains Not found', async () => {
    const branches = await http(`${host.url}/api/v1/walker/walk/branches/count`, { headers: cookie(session) });
    expect(branches.status).toBe(200);
    expect(branches.json).toEqual({ success: true, result: 2 });
    const commits = await http(`${host.url}/api/v1/walker/walk/main/commits/count`, { headers: cookie(session) });
    expect(commits.json).toEqual({ success: true, result: 1 });
    const issues = await http(`${host.url}/api/v1/walker/walk/issues/count`, { headers: cookie(session) });
    expect(issues.json.success).toBe(true);
    expect(issues.json.result).toBeGreaterThanOrEqual(1);
    expect((await http(`${host.url}/api/v1/walker/walk/issues/count`)).text).toContain('Not found');
  });

  it('17 POST /api/v1/users/avatar: 404 without credentials; accepted with a file part named file', async () => {
    const part = { name: 'file', filename: 'walker.png', contentType: 'image/png', data: pngBytes() };
    expect((await uploadAvatar(host, {}, [part])).status).toBe(404);
    expect((await uploadAvatar(host, bearer(apiToken), [part])).status).toBe(200);
  });

  it('18 POST /api/v1/ci/status without credentials: 200 success true; Invalid request body for non-JSON', async () => {
    const report = { run_id: 'walk-1', repo_id: String(repoId), commit_hash: 'abc1234', branch: 'main', status: 'running' };
    const result = await http(`${host.url}/api/v1/ci/status`, { json: report });
    expect(result.status).toBe(200);
    expect(result.json.success).toBe(true);
    const bad = await http(`${host.url}/api/v1/ci/status`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'not json' });
    expect(bad.text).toContain('Invalid request body');
  });

  it('§9 every JSON API path begins with /api/v1/', async () => {
    expect((await http(`${host.url}/api/v2/me`, { headers: bearer(apiToken) })).status).toBe(404);
  });
});
