import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { DOCS, failure } from '../helpers/octokit.js';
import { http, startHost } from '../helpers/host.js';

describe('GitHub-compatible errors, headers and access', () => {
  let host: RepoHost;
  let alice: Octokit;
  let bob: Octokit;
  let anonymous: Octokit;
  let aliceToken: string;
  let base: string;

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
    aliceToken = await host.admin.createToken('alice');
    const api = `${host.url}/api/v3`;
    alice = new Octokit({ baseUrl: api, auth: aliceToken });
    bob = new Octokit({ baseUrl: api, auth: await host.admin.createToken('bob') });
    anonymous = new Octokit({ baseUrl: api });
    await alice.repos.createForAuthenticatedUser({ name: 'public', auto_init: true });
    await alice.repos.createForAuthenticatedUser({ name: 'secret', private: true, auto_init: true });
    base = (await alice.git.getRef({ owner: 'alice', repo: 'public', ref: 'heads/main' })).data.object.sha;
  });

  afterAll(async () => {
    await host?.close();
  });

  it('hides private repositories from everyone else with 404 Not Found, everywhere', async () => {
    for (const client of [bob, anonymous]) {
      // Each asked for only when its turn comes: a failure that arrives before it is awaited is an unhandled rejection.
      for (const request of [
        () => client.repos.get({ owner: 'alice', repo: 'secret' }),
        () => client.issues.listForRepo({ owner: 'alice', repo: 'secret' }),
        () => client.git.getRef({ owner: 'alice', repo: 'secret', ref: 'heads/main' }),
        () => client.repos.getContent({ owner: 'alice', repo: 'secret', path: 'README.md' }),
        () => client.repos.listCommits({ owner: 'alice', repo: 'secret' }),
      ]) {
        expect(await failure(request())).toEqual({ status: 404, data: { message: 'Not Found', documentation_url: DOCS } });
      }
    }
    expect((await bob.repos.listForUser({ username: 'alice' })).data.map((repo) => repo.name)).toEqual(['public']);
    expect((await alice.repos.listForAuthenticatedUser()).data.map((repo) => [repo.name, repo.private])).toEqual([
      ['public', false],
      ['secret', true],
    ]);
    expect((await bob.repos.getCollaboratorPermissionLevel({ owner: 'alice', repo: 'public', username: 'bob' })).data.permission).toBe('read');
  });

  it('answers 401 Requires authentication and 403 for callers who may not write', async () => {
    expect(await failure(anonymous.issues.create({ owner: 'alice', repo: 'public', title: 'x' }))).toEqual({ status: 401, data: { message: 'Requires authentication', documentation_url: DOCS } });
    expect(await failure(anonymous.users.getAuthenticated())).toMatchObject({ status: 401 });
    const refused = await failure(bob.git.createRef({ owner: 'alice', repo: 'public', ref: 'refs/heads/bob', sha: base }));
    expect(refused.status).toBe(403);
    expect(refused.data.documentation_url).toBe(DOCS);
  });

  it('answers 422 Validation Failed with GitHub errors', async () => {
    expect(await failure(alice.issues.create({ owner: 'alice', repo: 'public', title: '' }))).toEqual({
      status: 422,
      data: { message: 'Validation Failed', errors: [{ resource: 'Issue', field: 'title', code: 'missing_field', message: 'title is required' }], documentation_url: DOCS },
    });
    const missing = await failure(alice.request('POST /repos/{owner}/{repo}/pulls', { owner: 'alice', repo: 'public', title: 'no branches' } as never));
    expect(missing.status).toBe(422);
    expect(missing.data.errors.map((error: { field: string; code: string }) => [error.field, error.code])).toEqual([
      ['head', 'missing_field'],
      ['base', 'missing_field'],
    ]);
    const badJson = await http(`${host.url}/api/v3/repos/alice/public/issues`, { method: 'POST', headers: { authorization: `token ${aliceToken}`, 'content-type': 'application/json' }, body: '{nope' });
    expect(badJson.status).toBe(400);
    expect(badJson.json).toEqual({ message: 'Problems parsing JSON', documentation_url: DOCS });
  });

  it('refuses a ref update that is not a fast forward unless forced (422), and a stale contents sha (409)', async () => {
    const tree = (await alice.git.getCommit({ owner: 'alice', repo: 'public', commit_sha: base })).data.tree.sha;
    const unrelated = await alice.git.createCommit({ owner: 'alice', repo: 'public', message: 'unrelated root', tree, parents: [] });
    await alice.git.createRef({ owner: 'alice', repo: 'public', ref: 'refs/heads/topic', sha: base });
    expect(await failure(alice.git.updateRef({ owner: 'alice', repo: 'public', ref: 'heads/topic', sha: unrelated.data.sha }))).toEqual({
      status: 422,
      data: { message: 'Update is not a fast forward', documentation_url: DOCS },
    });
    expect(await failure(alice.git.createRef({ owner: 'alice', repo: 'public', ref: 'refs/heads/topic', sha: base }))).toMatchObject({ status: 422, data: { message: 'Reference already exists' } });
    const blob = await alice.git.createBlob({ owner: 'alice', repo: 'public', content: 'not a commit' });
    expect(await failure(alice.git.updateRef({ owner: 'alice', repo: 'public', ref: 'heads/topic', sha: blob.data.sha, force: true }))).toMatchObject({ status: 422, data: { message: 'Object is not a commit' } });
    expect(await failure(alice.git.createRef({ owner: 'alice', repo: 'public', ref: 'refs/heads/x', sha: '0123456789012345678901234567890123456789' }))).toMatchObject({ status: 422, data: { message: 'Object does not exist' } });
    expect((await alice.git.getTree({ owner: 'alice', repo: 'public', tree_sha: 'topic' })).data.sha).toBe(tree);
    const forced = await alice.git.updateRef({ owner: 'alice', repo: 'public', ref: 'heads/topic', sha: unrelated.data.sha, force: true });
    expect(forced.data.object.sha).toBe(unrelated.data.sha);
    await alice.git.deleteRef({ owner: 'alice', repo: 'public', ref: 'heads/topic' });
    expect(await failure(alice.git.getRef({ owner: 'alice', repo: 'public', ref: 'heads/topic' }))).toMatchObject({ status: 404 });

    const readme = (await alice.repos.getContent({ owner: 'alice', repo: 'public', path: 'README.md' })).data as { sha: string };
    const content = Buffer.from('changed\n').toString('base64');
    await alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'public', path: 'README.md', message: 'first', content, sha: readme.sha });
    const stale = await failure(alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'public', path: 'README.md', message: 'second', content, sha: readme.sha }));
    expect(stale.status).toBe(409);
    expect(stale.data.message).toBe(`README.md does not match ${readme.sha}`);
    const noSha = await failure(alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'public', path: 'README.md', message: 'third', content }));
    expect(noSha.status).toBe(422);
    expect(noSha.data.errors[0]).toMatchObject({ resource: 'Content', field: 'sha', code: 'missing_field' });
  });

  it('enforces branch protection on API ref updates with the rule git pushes meet', async () => {
    const protect = await http(`${host.url}/api/v1/repos/alice/public/branch_protections/main`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${aliceToken}` },
      json: { allow_force_push: false, allow_deletion: false, require_pull_request: false },
    });
    expect(protect.status).toBe(200);
    const main = (await alice.git.getRef({ owner: 'alice', repo: 'public', ref: 'heads/main' })).data.object.sha;
    const tree = (await alice.git.getCommit({ owner: 'alice', repo: 'public', commit_sha: main })).data.tree.sha;
    const rewrite = await alice.git.createCommit({ owner: 'alice', repo: 'public', message: 'rewritten', tree, parents: [] });
    const forced = await failure(alice.git.updateRef({ owner: 'alice', repo: 'public', ref: 'heads/main', sha: rewrite.data.sha, force: true }));
    expect(forced).toEqual({ status: 403, data: { message: 'branch main is protected (main): force pushes are not allowed', documentation_url: DOCS } });
    expect((await failure(alice.git.deleteRef({ owner: 'alice', repo: 'public', ref: 'heads/main' }))).data.message).toBe('branch main is protected (main): it may not be deleted');
    // A fast-forward is allowed.
    const next = await alice.git.createCommit({ owner: 'alice', repo: 'public', message: 'forward', tree, parents: [main] });
    expect((await alice.git.updateRef({ owner: 'alice', repo: 'public', ref: 'heads/main', sha: next.data.sha })).data.object.sha).toBe(next.data.sha);

    await http(`${host.url}/api/v1/repos/alice/public/branch_protections/main`, { method: 'PUT', headers: { authorization: `Bearer ${aliceToken}` }, json: { require_pull_request: true } });
    const viaContents = await failure(alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'public', path: 'new.txt', message: 'direct', content: Buffer.from('x').toString('base64') }));
    expect(viaContents).toMatchObject({ status: 403, data: { message: 'branch main is protected (main): changes reach it through pull requests only' } });
    expect((await alice.git.getRef({ owner: 'alice', repo: 'public', ref: 'heads/main' })).data.object.sha).toBe(next.data.sha);
  });

  it('answers 405 when a pull request cannot merge and 409 when its head moved', async () => {
    const main = (await alice.git.getRef({ owner: 'alice', repo: 'public', ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ owner: 'alice', repo: 'public', ref: 'refs/heads/change', sha: main });
    const change = await alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'public', path: 'change.txt', branch: 'change', message: 'change', content: Buffer.from('a').toString('base64') });
    const pull = await alice.pulls.create({ owner: 'alice', repo: 'public', title: 'Change', head: 'change', base: 'main' });
    const moved = await failure(alice.pulls.merge({ owner: 'alice', repo: 'public', pull_number: pull.data.number, sha: main }));
    expect(moved.status).toBe(409);
    expect(moved.data.documentation_url).toBe(DOCS);
    expect((await alice.pulls.merge({ owner: 'alice', repo: 'public', pull_number: pull.data.number, sha: change.data.commit.sha })).data.merged).toBe(true);
    const again = await failure(alice.pulls.merge({ owner: 'alice', repo: 'public', pull_number: pull.data.number }));
    expect(again).toEqual({ status: 405, data: { message: 'the pull request is already merged', documentation_url: DOCS } });
    expect((await alice.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/merge', { owner: 'alice', repo: 'public', pull_number: pull.data.number })).status).toBe(204);
  });

  it('sends GitHub headers, pages with Link and per_page, and answers 304 to a matching If-None-Match', async () => {
    for (let index = 0; index < 3; index += 1) await alice.issues.create({ owner: 'alice', repo: 'public', title: `issue ${index}` });
    const first = await alice.issues.listForRepo({ owner: 'alice', repo: 'public', per_page: 2 });
    expect(first.headers['x-github-media-type']).toBe('github.v3; format=json');
    expect(Number(first.headers['x-ratelimit-remaining'])).toBeGreaterThan(1000);
    const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
    expect(new URL(next!).searchParams.get('page')).toBe('2');
    expect(new URL(next!).searchParams.get('per_page')).toBe('2');
    const all = await alice.paginate(alice.issues.listForRepo, { owner: 'alice', repo: 'public', state: 'all', per_page: 2 });
    expect(all.map((issue) => issue.number)).toEqual([...all.map((issue) => issue.number)].sort((a, b) => b - a));
    expect(all.length).toBe(4);

    const url = `${host.url}/api/v3/repos/alice/public`;
    const fresh = await http(url, { headers: { authorization: `token ${aliceToken}` } });
    const etag = String(fresh.headers.etag);
    expect(etag).toMatch(/^W\/"[0-9a-f]{40}"$/);
    const cached = await http(url, { headers: { authorization: `token ${aliceToken}`, 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    expect(cached.text).toBe('');
  });

  it('refuses an edit of a repository by a non-admin even when it changes nothing: 403 where readable, 404 where not (issue 38)', async () => {
    for (const data of [{}, { name: 'public' }]) {
      expect((await failure(bob.request('PATCH /repos/{owner}/{repo}', { owner: 'alice', repo: 'public', ...data }))).status).toBe(403);
      expect((await failure(bob.request('PATCH /repos/{owner}/{repo}', { owner: 'alice', repo: 'secret', ...data }))).status).toBe(404);
      expect((await failure(anonymous.request('PATCH /repos/{owner}/{repo}', { owner: 'alice', repo: 'public', ...data }))).status).toBe(401);
      expect((await alice.request('PATCH /repos/{owner}/{repo}', { owner: 'alice', repo: 'public', ...data })).status).toBe(200);
    }
  });

  it('answers malformed input with a 4xx in GitHub shape, never a 500', async () => {
    const repo = `${host.url}/api/v3/repos/alice/public`;
    const targets: Array<[string, string]> = [
      ['POST', '/user/repos'],
      ['PATCH', ''],
      ['POST', '/git/refs'],
      ['PATCH', '/git/refs/heads/main'],
      ['POST', '/git/blobs'],
      ['POST', '/git/trees'],
      ['POST', '/git/commits'],
      ['PUT', '/contents/a/b.txt'],
      ['DELETE', '/contents/README.md'],
      ['POST', '/issues'],
      ['PATCH', '/issues/1'],
      ['POST', '/issues/1/comments'],
      ['PUT', '/issues/1/labels'],
      ['POST', '/labels'],
      ['POST', '/pulls'],
      ['PUT', '/pulls/1/merge'],
      ['POST', `/statuses/${base}`],
      ['POST', '/hooks'],
    ];
    const bodies = ['[]', '"text"', '5', 'null', '{"title":5,"body":[],"labels":{},"state":"sideways","state_reason":7}', '{"tree":"x","base_tree":[],"parents":"p","message":{}}', '{"tree":[{"path":"../x","sha":"zz"}]}', '{"tree":[null, 5]}', '{"ref":"refs/heads/../x","sha":5}', '{"sha":"nope","force":"maybe"}', '{"content":"%%%","message":"m","branch":"../x"}', '{"config":3,"events":"nope"}', '{"config":{"url":"ftp://x"}}', '{"merge_method":"octopus"}', '{"name":"a b c","color":"blue"}', '{"author":{"name":"<x>","email":"bad email","date":"yesterday"},"message":"m","tree":"t"}'];
    const refusedOrValid: string[] = [];
    for (const [method, path] of targets) {
      for (const body of bodies) {
        const result = await http(`${path.startsWith('/user') ? `${host.url}/api/v3` : repo}${path}`, { method, headers: { authorization: `token ${aliceToken}`, 'content-type': 'application/json' }, body });
        // A few of these happen to be valid (text is a fine blob; unknown fields change nothing in an issue edit).
        expect(result.status, `${method} ${path} ${body}: ${result.text}`).toBeLessThan(500);
        if (result.status >= 400) expect(result.json.documentation_url).toBe(DOCS);
        else refusedOrValid.push(`${method} ${path}`);
      }
    }
    // Valid too: an empty list of labels (`[]`) given to #1.
    expect([...new Set(refusedOrValid)]).toEqual(['POST /git/blobs', 'PATCH /issues/1', 'PUT /issues/1/labels']);
  });

  it('refuses objects that name their own toString, NUL in a commit message and over-long file names with 422, never a 500', async () => {
    const repo = `${host.url}/api/v3/repos/alice/public`;
    // `{"toString": "x"}` shadows Object.prototype.toString: turning such a value into text threw (500s before).
    const odd = { toString: 'x' };
    const tree = (await alice.git.getCommit({ owner: 'alice', repo: 'public', commit_sha: base })).data.tree.sha;
    const readme = (await alice.repos.getContent({ owner: 'alice', repo: 'public', path: 'README.md' })).data as { sha: string };
    const cases: Array<[string, string, unknown]> = [
      ['POST', `${host.url}/api/v3/markdown`, { text: 'hi', mode: odd }],
      ['POST', `${repo}/hooks`, { name: 'web', config: { url: 'http://127.0.0.1:9/hook', content_type: 'json', insecure_ssl: odd } }],
      ['PUT', `${repo}/contents/README.md`, { message: 'm', content: 'aGk=', sha: odd }],
      ['PUT', `${repo}/contents/README.md`, { message: 'm', content: 'aGk=', sha: {} }],
      // git refuses NUL in a commit message: every way of making a commit says so before asking git.
      ['PUT', `${repo}/contents/nul.txt`, { message: 'a\u0000b', content: 'aGk=' }],
      ['DELETE', `${repo}/contents/README.md`, { message: 'a\u0000b', sha: readme.sha }],
      ['POST', `${repo}/git/commits`, { message: 'a\u0000b', tree, parents: [base] }],
      // A name no clone's file system can hold (255 bytes a name, 4096 in all).
      ['PUT', `${repo}/contents/${'n'.repeat(256)}.txt`, { message: 'm', content: 'aGk=' }],
      ['POST', `${repo}/git/trees`, { tree: [{ path: `${'d/'.repeat(2100)}f.txt`, mode: '100644', type: 'blob', content: 'x' }] }],
    ];
    for (const [method, url, json] of cases) {
      const result = await http(url, { method, headers: { authorization: `token ${aliceToken}` }, json });
      expect(result.status, `${method} ${url} ${JSON.stringify(json)}: ${result.text}`).toBe(422);
      expect(result.json.documentation_url).toBe(DOCS);
    }
    expect((await alice.repos.getContent({ owner: 'alice', repo: 'public', path: 'README.md' })).data).toMatchObject({ sha: readme.sha });
  });

  it('names what it does not implement in a 404', async () => {
    const result = await http(`${host.url}/api/v3/repos/alice/public/actions/runs`, { headers: { authorization: `token ${aliceToken}` } });
    expect(result.status).toBe(404);
    expect(result.json).toEqual({ message: 'Not Found: repohost does not implement GET /repos/alice/public/actions/runs', documentation_url: DOCS });
    const method = await http(`${host.url}/api/v3/user`, { method: 'DELETE', headers: { authorization: `token ${aliceToken}` } });
    expect(method.json.message).toBe('Not Found: repohost does not implement DELETE /user');
  });
});
