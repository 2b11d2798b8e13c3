import { setTimeout as sleep } from 'node:timers/promises';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { installationOctokit } from '../helpers/octokit.js';
import { HookReceiver } from '../helpers/receiver.js';

/**
 * Issue 41: what GitHub's OpenAPI description found wrong in /api/v3 answers, each asserted on its own (the check in
 * test/helpers/openapi/ finds them too, in every file's answers).
 */
describe('/api/v3 answers as GitHub describes them', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let token: string;
  let alice: Octokit;
  const owner = 'alice';
  const repo = 'described';

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    receiver = await HookReceiver.start();
    await host.admin.createUser({ username: owner, email: 'alice@example.com', password: 'password123' });
    token = await host.admin.createToken(owner, 'fidelity');
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: token });
    await alice.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('answers pushed_at, moved by a push, and the watchers of a repository it makes or edits', async () => {
    const made = await alice.repos.get({ owner, repo });
    expect(made.data.pushed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await sleep(1100);
    await alice.repos.createOrUpdateFileContents({ owner, repo, path: 'later.txt', message: 'Later', content: Buffer.from('later\n').toString('base64') });
    const pushed = await alice.repos.get({ owner, repo });
    expect(Date.parse(pushed.data.pushed_at!)).toBeGreaterThan(Date.parse(made.data.pushed_at!));
    const created = await alice.repos.createForAuthenticatedUser({ name: 'fresh' });
    const watchers = (await alice.repos.get({ owner, repo: 'fresh' })).data.subscribers_count;
    expect(watchers).toEqual(expect.any(Number));
    expect(created.data).toMatchObject({ subscribers_count: watchers, network_count: 0, pushed_at: created.data.created_at });
    const edited = await alice.repos.update({ owner, repo: 'fresh', name: 'fresher' });
    expect(edited.data).toMatchObject({ name: 'fresher', subscribers_count: watchers, network_count: 0 });
  });

  it("tells a hook's last response: unused, then how its last delivery went", async () => {
    const hook = await alice.repos.createWebhook({ owner, repo, config: { url: receiver.url, content_type: 'json' }, events: ['push'] });
    expect(hook.data.last_response).toEqual({ code: null, status: 'unused', message: null });
    await receiver.waitFor((received) => received.headers['x-github-event'] === 'ping');
    // The ping's attempt is recorded once the receiver has answered.
    await expect.poll(async () => (await alice.repos.getWebhook({ owner, repo, hook_id: hook.data.id })).data.last_response, { timeout: 5000 }).toEqual({ code: 200, status: 'active', message: 'OK' });
    expect((await alice.repos.listWebhooks({ owner, repo })).data[0]!.last_response).toEqual({ code: 200, status: 'active', message: 'OK' });
  });

  it('gives statuses and blobs their node ids, statuses their avatar, suites their head commit and repository', async () => {
    const sha = (await alice.repos.getBranch({ owner, repo, branch: 'main' })).data.commit.sha;
    const status = await alice.repos.createCommitStatus({ owner, repo, sha, state: 'success', context: 'ci' });
    expect(status.data.node_id).toEqual(expect.any(String));
    const combined = await alice.repos.getCombinedStatusForRef({ owner, repo, ref: sha });
    expect(combined.data.statuses[0]).toMatchObject({ node_id: status.data.node_id, avatar_url: status.data.creator!.avatar_url });
    const tree = await alice.git.getTree({ owner, repo, tree_sha: sha });
    const blob = await alice.git.getBlob({ owner, repo, file_sha: tree.data.tree.find((entry) => entry.type === 'blob')!.sha! });
    expect(blob.data.node_id).toEqual(expect.any(String));
    await (await installationOctokit(host, owner)).checks.create({ owner, repo, name: 'ci', head_sha: sha });
    const [suite] = (await alice.checks.listSuitesForRef({ owner, repo, ref: sha })).data.check_suites;
    expect(suite!.head_commit).toMatchObject({ id: sha, message: expect.any(String) });
    expect(suite!.repository).toMatchObject({ full_name: `${owner}/${repo}` });
  });

  it("pages a commit's combined statuses and its check suites with GitHub's Link", async () => {
    const sha = (await alice.repos.getBranch({ owner, repo, branch: 'main' })).data.commit.sha;
    for (const context of ['lint', 'test']) await alice.repos.createCommitStatus({ owner, repo, sha, state: 'pending', context });
    const combined = await http(`${host.url}/api/v3/repos/${owner}/${repo}/commits/${sha}/status?per_page=1`, { headers: bearer(token) });
    expect(combined.json.statuses).toHaveLength(1);
    expect(combined.json.total_count).toBeGreaterThan(1);
    expect(combined.headers.link).toContain('rel="next"');
    const suites = await http(`${host.url}/api/v3/repos/${owner}/${repo}/commits/${sha}/check-suites?per_page=1&page=2`, { headers: bearer(token) });
    expect(suites.json.check_suites).toEqual([]);
    expect(suites.headers.link).toContain('rel="prev"');
  });

  it("answers a collaborator's role, search's kind, and the protection's contexts URL", async () => {
    const permission = await alice.repos.getCollaboratorPermissionLevel({ owner, repo, username: owner });
    expect(permission.data.user).toMatchObject({ login: owner, role_name: 'admin', permissions: { admin: true } });
    await alice.issues.create({ owner, repo, title: 'Findable' });
    const found = await alice.search.issuesAndPullRequests({ q: `repo:${owner}/${repo} Findable` });
    expect(found.data).toMatchObject({ search_type: 'lexical', total_count: 1 });
    const protection = await alice.repos.updateBranchProtection({ owner, repo, branch: 'main', required_status_checks: { strict: false, contexts: ['ci'] }, enforce_admins: false, required_pull_request_reviews: null, restrictions: null });
    expect(protection.data.required_status_checks?.contexts_url).toBe(`${host.url}/api/v3/repos/${owner}/${repo}/branches/main/protection/required_status_checks/contexts`);
  });

  it('refuses an API version it does not answer, in GitHub\'s words', async () => {
    expect((await http(`${host.url}/api/v3/user`, { headers: { ...bearer(token), 'x-github-api-version': '2022-11-28' } })).status).toBe(200);
    const refused = await http(`${host.url}/api/v3/user`, { headers: { ...bearer(token), 'x-github-api-version': 'v3' } });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe('The version you specified in the "X-GitHub-API-Version" request header, "v3", is not a supported version. The following versions are currently supported: "2022-11-28" (most recent).');
  });

  it("names a personal token's scopes, as gh reads them", async () => {
    const me = await http(`${host.url}/api/v3/user`, { headers: bearer(token) });
    expect(me.headers['x-oauth-scopes']).toBe('admin:public_key, admin:repo_hook, delete_repo, notifications, repo, user');
    expect((await http(`${host.url}/api/v3/repos/${owner}/no-such-repository`, { headers: bearer(token) })).headers['x-oauth-scopes']).toContain('repo');
    expect((await http(`${host.url}/api/v3/repos/${owner}/${repo}`)).headers['x-oauth-scopes']).toBeUndefined();
  });

  it('sends Last-Modified of an object, and answers 304 to If-Modified-Since from then on', async () => {
    const url = `${host.url}/api/v3/repos/${owner}/${repo}`;
    const first = await http(url, { headers: bearer(token) });
    expect(first.headers['last-modified']).toBe(new Date(first.json.updated_at).toUTCString());
    const since = String(first.headers['last-modified']);
    const unchanged = await http(url, { headers: { ...bearer(token), 'if-modified-since': since } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    const before = new Date(Date.parse(since) - 1000).toUTCString();
    expect((await http(url, { headers: { ...bearer(token), 'if-modified-since': before } })).status).toBe(200);
    expect((await http(`${host.url}/api/v3/repos/${owner}/${repo}/branches`, { headers: bearer(token) })).headers['last-modified']).toBeUndefined();
  });

  it('answers GET /meta', async () => {
    expect((await alice.meta.get()).data).toEqual({ verifiable_password_authentication: true });
  });

  it('names every answer with a request id of its own, failures too', async () => {
    const ids = await Promise.all(['/user', '/repos/alice/no-such-repository', '/rate_limit'].map(async (path) => (await http(`${host.url}/api/v3${path}`, { headers: bearer(token) })).headers['x-github-request-id']));
    for (const id of ids) expect(id).toMatch(/^[0-9A-F]{4}(?::[0-9A-F]+){4}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('words the 422 of the operations GitHub gives plain error messages', async () => {
    const topics = await http(`${host.url}/api/v3/repos/${owner}/${repo}/topics`, { method: 'PUT', headers: bearer(token), json: { names: ['Not A Topic!'] } });
    expect(topics.status).toBe(422);
    expect(topics.json.errors).toEqual([expect.any(String)]);
  });

  it("redirects a tarball to the download of the commit its ref names", async () => {
    const sha = (await alice.repos.getBranch({ owner, repo, branch: 'main' })).data.commit.sha;
    const answer = await http(`${host.url}/api/v3/repos/${owner}/${repo}/tarball/main`, { headers: bearer(token) });
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe(`${host.url}/${owner}/${repo}/archive/${sha}.tar.gz`);
    expect((await http(`${host.url}/api/v3/repos/${owner}/${repo}/zipball/no-such-ref`, { headers: bearer(token) })).status).toBe(404);
  });

  it("tests a hook with the latest push, to that hook alone and only when it hears pushes", async () => {
    const hook = (await alice.repos.createWebhook({ owner, repo, config: { url: receiver.url, content_type: 'json' }, events: ['push'] })).data;
    const deaf = (await alice.repos.createWebhook({ owner, repo, config: { url: receiver.url, content_type: 'json' }, events: ['issues'] })).data;
    const fromHook = (id: number) => (received: { headers: Record<string, unknown> }) => received.headers['x-github-hook-id'] === String(id) && received.headers['x-github-event'] === 'push';
    const head = (await alice.repos.getBranch({ owner, repo, branch: 'main' })).data.commit;
    const answer = await http(hook.test_url, { method: 'POST', headers: bearer(token) });
    expect(answer.status).toBe(204);
    const [push] = await receiver.waitFor(fromHook(hook.id));
    expect(push!.json).toMatchObject({
      ref: 'refs/heads/main',
      before: head.parents[0]!.sha,
      after: head.sha,
      head_commit: { id: head.sha, message: head.commit.message },
      commits: [{ id: head.sha }],
      repository: { full_name: `${owner}/${repo}` },
      sender: { login: owner },
      pusher: { name: owner },
    });
    expect((await alice.repos.testPushWebhook({ owner, repo, hook_id: deaf.id })).status).toBe(204);
    expect((await http(`${host.url}/api/v3/repos/${owner}/${repo}/hooks/${deaf.id}/deliveries`, { headers: bearer(token) })).json.map((delivery: { event: string }) => delivery.event)).toEqual(['ping']);
    expect(receiver.received.filter(fromHook(hook.id))).toHaveLength(1);
    expect((await http(`${host.url}/api/v3/repos/${owner}/${repo}/hooks/999999/tests`, { method: 'POST', headers: bearer(token) })).status).toBe(404);
  });

  it("reads a pull request through /issues as GitHub: an issue's id and Issue node id of its own; html_url at /pull/N", async () => {
    const sha = (await alice.repos.getBranch({ owner, repo, branch: 'main' })).data.commit.sha;
    await alice.git.createRef({ owner, repo, ref: 'refs/heads/topic', sha });
    await alice.repos.createOrUpdateFileContents({ owner, repo, branch: 'topic', path: 'topic.txt', message: 'Topic', content: Buffer.from('topic\n').toString('base64') });
    const pull = (await alice.pulls.create({ owner, repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    const issue = (await alice.issues.get({ owner, repo, issue_number: pull.number })).data;
    expect(issue.id).not.toBe(pull.id);
    expect(issue.node_id).not.toBe(pull.node_id);
    expect(Buffer.from(issue.node_id, 'base64').toString()).toBe(`05:Issue${issue.id}`);
    expect(issue.pull_request).toMatchObject({ url: pull.url, html_url: pull.html_url });
    expect(pull.html_url).toBe(`${host.url}/${owner}/${repo}/pull/${pull.number}`);
    for (const tab of ['', '/files']) {
      const page = await http(`${pull.html_url}${tab}?diff=split`, { headers: bearer(token) });
      expect(page.status).toBe(301);
      expect(page.headers.location).toBe(`/${owner}/${repo}/pulls/${pull.number}${tab}?diff=split`);
      expect((await fetch(`${pull.html_url}${tab}`)).status).toBe(200);
    }
    // An open mergeable pull request's merge_commit_sha is GitHub's test merge of its branches, the same when asked again.
    const asked = (await alice.pulls.get({ owner, repo, pull_number: pull.number })).data;
    expect(asked.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const testMerge = (await alice.git.getCommit({ owner, repo, commit_sha: asked.merge_commit_sha! })).data;
    expect(testMerge.parents.map((parent) => parent.sha)).toEqual([asked.base.sha, asked.head.sha]);
    expect(testMerge.message).toBe(`Merge ${asked.head.sha} into ${asked.base.sha}\n`);
    expect((await alice.pulls.get({ owner, repo, pull_number: pull.number })).data.merge_commit_sha).toBe(asked.merge_commit_sha);
    const review = (await alice.pulls.createReview({ owner, repo, pull_number: pull.number, event: 'COMMENT', body: 'Noted' })).data;
    expect(review.html_url).toBe(`${pull.html_url}#pullrequestreview-${review.id}`);
    const merged = await alice.pulls.merge({ owner, repo, pull_number: pull.number });
    expect((await alice.pulls.get({ owner, repo, pull_number: pull.number })).data.merge_commit_sha).toBe(merged.data.sha);
    await alice.repos.createForAuthenticatedUser({ name: 'hidden', private: true });
    expect((await http(`${host.url}/${owner}/hidden/pull/1`)).status).toBe(404);
  });

  it('edits a repository\'s description, visibility and default branch as GitHub does, refusing the rest clearly', async () => {
    const edit = 'edited';
    await alice.repos.createForAuthenticatedUser({ name: edit, auto_init: true });
    const sha = (await alice.repos.getBranch({ owner, repo: edit, branch: 'main' })).data.commit.sha;
    await alice.git.createRef({ owner, repo: edit, ref: 'refs/heads/trunk', sha });
    const edited = (await alice.repos.update({ owner, repo: edit, description: 'Edited', private: true, default_branch: 'trunk' })).data;
    expect(edited).toMatchObject({ description: 'Edited', private: true, visibility: 'private', default_branch: 'trunk' });
    expect((await http(`${host.url}/api/v3/repos/${owner}/${edit}`)).status).toBe(404);
    // git's HEAD moved with it: what a clone checks out, and what a ref left out names.
    const head = await http(`${host.url}/${owner}/${edit}.git/info/refs?service=git-upload-pack`, { headers: bearer(token) });
    expect(head.text).toContain('symref=HEAD:refs/heads/trunk');
    expect((await alice.repos.update({ owner, repo: edit, visibility: 'public', description: null as unknown as string })).data).toMatchObject({ private: false, description: null });
    const refused = async (body: Record<string, unknown>) => (await http(`${host.url}/api/v3/repos/${owner}/${edit}`, { method: 'PATCH', headers: bearer(token), json: body })).json;
    expect((await refused({ default_branch: 'nope', description: 'not this' })).errors[0]).toMatchObject({ field: 'default_branch', code: 'invalid' });
    expect((await refused({ visibility: 'internal' })).errors[0]).toMatchObject({ field: 'visibility' });
    expect((await refused({ private: true, visibility: 'public' })).errors[0]).toMatchObject({ field: 'visibility' });
    expect((await refused({ has_issues: false })).errors[0]).toMatchObject({ field: 'has_issues', code: 'custom' });
    expect((await refused({ name: 'renamed-not', description: 'x'.repeat(2049) })).errors[0]).toMatchObject({ field: 'description' });
    expect((await http(`${host.url}/api/v3/repos/${owner}/renamed-not`, { headers: bearer(token) })).status).toBe(404);
    // Nothing of a refused edit was made.
    expect((await alice.repos.get({ owner, repo: edit })).data).toMatchObject({ description: null, default_branch: 'trunk', private: false });
  });

  it("escapes a bot's brackets in its URLs", async () => {
    const app = await host.admin.createApp({ owner, name: 'Described App', permissions: { issues: 'write' }, events: [] });
    const installation = await host.admin.installApp(app.slug, owner);
    const { createAppAuth } = await import('@octokit/auth-app');
    const bot = new Octokit({ baseUrl: `${host.url}/api/v3`, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey, installationId: installation.id } });
    const issue = await bot.issues.create({ owner, repo, title: 'By the bot' });
    expect(issue.data.user).toMatchObject({ login: `${app.slug}[bot]`, url: `${host.url}/api/v3/users/${app.slug}%5Bbot%5D`, type: 'Bot' });
    // What an app's installation makes names the app, as GitHub's `performed_via_github_app`; a person's names none.
    const performedBy = { id: app.id, slug: app.slug, owner: { login: owner }, name: 'Described App' };
    expect(issue.data.performed_via_github_app).toMatchObject(performedBy);
    const comment = await bot.issues.createComment({ owner, repo, issue_number: issue.data.number, body: 'By the bot too' });
    expect(comment.data.performed_via_github_app).toMatchObject(performedBy);
    await alice.issues.createComment({ owner, repo, issue_number: issue.data.number, body: 'By alice' });
    const comments = (await alice.issues.listComments({ owner, repo, issue_number: issue.data.number })).data;
    expect(comments.map((each) => each.performed_via_github_app?.slug ?? null)).toEqual([app.slug, null]);
    const issues = (await alice.issues.listForRepo({ owner, repo, state: 'all', per_page: 100 })).data;
    expect(issues.find((each) => each.number === issue.data.number)!.performed_via_github_app).toMatchObject(performedBy);
    expect(issues.filter((each) => each.user!.login === owner).every((each) => each.performed_via_github_app === null)).toBe(true);
  });
});
