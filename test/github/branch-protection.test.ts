import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { join } from 'node:path';
import { Clone } from '../helpers/clone.js';
import { startHost, tempDir } from '../helpers/host.js';
import { DOCS, failure } from '../helpers/octokit.js';

// Issue 20: `PUT` and `DELETE /repos/:o/:r/branches/:branch/protection` in GitHub's shape, with `enforce_admins`
// honoured: a rule that spares admins lets them push and merge past it.
describe('branch protection through the GitHub-compatible API', () => {
  let host: RepoHost;
  const clients: Record<string, Octokit> = {};
  let bobToken = '';
  const repo = { owner: 'alice', repo: 'guarded' };
  const protection = `/repos/alice/guarded/branches/main/protection`;

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      const token = await host.admin.createToken(username, 'protection');
      if (username === 'bob') bobToken = token;
      clients[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: token });
    }
    await clients.alice!.repos.createForAuthenticatedUser({ name: 'guarded', auto_init: true });
    const token = await host.admin.createToken('alice', 'v1');
    for (const username of ['bob', 'carol']) {
      const added = await fetch(`${host.url}/api/v1/repos/alice/guarded/collaborators/${username}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ permission: 'write' }) });
      expect(added.status).toBeLessThan(300);
    }
  });

  afterAll(async () => {
    await host?.close();
  });

  const edit = (who: string, path: string) =>
    clients[who]!.repos.createOrUpdateFileContents({ ...repo, path, branch: 'main', message: `${who} edits`, content: Buffer.from(who).toString('base64') });

  const rule = (enforceAdmins: boolean, contexts = ['ci/build']) => ({
    required_status_checks: { strict: false, contexts },
    enforce_admins: enforceAdmins,
    required_pull_request_reviews: { required_approving_review_count: 0, bypass_pull_request_allowances: { users: ['bob'] } },
    restrictions: null,
    allow_force_pushes: false,
    allow_deletions: false,
  });

  it('sets a rule from GitHub\'s body and answers it in GitHub\'s shape, for admins only', async () => {
    const set = await clients.alice!.request(`PUT ${protection}`, rule(false));
    expect(set.status).toBe(200);
    expect(set.data).toMatchObject({
      url: `${host.url}/api/v3${protection}`,
      required_status_checks: { strict: false, contexts: ['ci/build'], checks: [{ context: 'ci/build', app_id: null }] },
      required_pull_request_reviews: { required_approving_review_count: 0, bypass_pull_request_allowances: { users: [{ login: 'bob' }], teams: [], apps: [] } },
      enforce_admins: { enabled: false },
      allow_force_pushes: { enabled: false },
      allow_deletions: { enabled: false },
    });
    expect(set.data).not.toHaveProperty('restrictions');
    expect((await clients.alice!.repos.getBranchProtection({ ...repo, branch: 'main' })).data).toEqual(set.data);
    expect((await clients.alice!.repos.getBranch({ ...repo, branch: 'main' })).data.protected).toBe(true);
    expect((await failure(clients.carol!.request(`PUT ${protection}`, rule(false)))).status).toBe(404);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).request(`PUT ${protection}`, rule(false)))).status).toBe(401);
  });

  it('lets admins past a rule that spares them, and holds them to one that does not', async () => {
    // No required checks here: a commit made by an edit has none passed (the next test).
    await clients.alice!.request(`PUT ${protection}`, rule(false, []));
    expect((await edit('alice', 'admin.txt')).status).toBe(201);
    expect((await edit('bob', 'bypass.txt')).status).toBe(201);
    expect((await failure(edit('carol', 'carol.txt'))).status).toBe(403);

    await clients.alice!.request(`PUT ${protection}`, rule(true, []));
    expect((await clients.alice!.repos.getBranchProtection({ ...repo, branch: 'main' })).data.enforce_admins?.enabled).toBe(true);
    expect((await failure(edit('alice', 'admin-again.txt'))).status).toBe(403);
    expect((await edit('bob', 'bypass-again.txt')).status).toBe(201);
  });

  it('moves a branch with required checks only to a commit that passed them, by edit, the refs API or git push', async () => {
    // GitHub's rule: push the commit elsewhere, let it pass, then move the branch to it. bob may skip pull requests,
    // not the checks; the rule spares admins, so alice may.
    await clients.alice!.request(`PUT ${protection}`, rule(false));
    const refused = await failure(edit('bob', 'untested.txt'));
    expect(refused.status).toBe(403);
    expect(refused.data.message).toContain('required status checks are expected: ci/build (missing)');
    expect((await edit('alice', 'admin-untested.txt')).status).toBe(201);

    const main = (await clients.bob!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await clients.bob!.git.createRef({ ...repo, ref: 'refs/heads/tested', sha: main });
    const tested = (await clients.bob!.repos.createOrUpdateFileContents({ ...repo, path: 'tested.txt', branch: 'tested', message: 'Tested', content: Buffer.from('t').toString('base64') })).data.commit.sha!;
    const move = () => clients.bob!.git.updateRef({ ...repo, ref: 'heads/main', sha: tested });
    expect((await failure(move())).data.message).toContain('ci/build (missing)');
    await clients.bob!.repos.createCommitStatus({ ...repo, sha: tested, state: 'failure', context: 'ci/build' });
    expect((await failure(move())).data.message).toContain('ci/build (failure)');
    await clients.bob!.repos.createCommitStatus({ ...repo, sha: tested, state: 'success', context: 'ci/build' });
    expect((await move()).data.object.sha).toBe(tested);

    // The same through git: an untested commit is refused with the reason; once it passed, the same push goes.
    const work = await tempDir();
    try {
      const clone = await Clone.of(host, { username: 'bob', session: '', token: bobToken }, 'guarded', join(work.path, 'clone'), work.path);
      const remote = new URL(`${host.url}/alice/guarded.git`);
      remote.username = 'bob';
      remote.password = bobToken;
      await clone.git('remote', 'set-url', 'origin', remote.toString());
      await clone.git('fetch', '-q', 'origin', 'main');
      await clone.git('reset', '-q', '--hard', 'FETCH_HEAD');
      const pushed = await clone.commit('Pushed', { 'pushed.txt': 'p' });
      const push = () => clone.git('push', '-q', 'origin', 'HEAD:main');
      await expect(push()).rejects.toThrow(/required status checks are expected: ci\/build \(missing\)/);
      expect((await clients.bob!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha).toBe(tested);
      await clone.git('push', '-q', 'origin', 'HEAD:refs/heads/pushed');
      await clients.bob!.repos.createCommitStatus({ ...repo, sha: pushed, state: 'success', context: 'ci/build' });
      await push();
      expect((await clients.bob!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha).toBe(pushed);
    } finally {
      await work.cleanup();
    }
  });

  it('lets an admin merge without the required status when the rule spares admins', async () => {
    await clients.alice!.request(`PUT ${protection}`, rule(true));
    await clients.alice!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: (await clients.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha });
    await clients.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'topic.txt', branch: 'topic', message: 'Topic', content: Buffer.from('t').toString('base64') });
    const pull = (await clients.carol!.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    expect((await failure(clients.alice!.pulls.merge({ ...repo, pull_number: pull.number }))).status).toBe(405);
    expect((await failure(clients.carol!.pulls.merge({ ...repo, pull_number: pull.number }))).status).toBe(405);
    await clients.alice!.request(`PUT ${protection}`, rule(false));
    expect((await failure(clients.carol!.pulls.merge({ ...repo, pull_number: pull.number }))).status).toBe(405);
    expect((await clients.alice!.pulls.merge({ ...repo, pull_number: pull.number })).data.merged).toBe(true);
  });

  // GitHub's errors of this operation are plain messages (`validation_failed_simple`): each names its field.
  it('refuses with 422 what its rules cannot hold, naming it', async () => {
    const refused = async (body: Record<string, unknown>) => (await failure(clients.alice!.request(`PUT ${protection}`, body))).data;
    // GitHub's answer to a key it requires left out (what octokit.rb's protect_branch sends without
    // required_pull_request_reviews), word for word.
    expect(await refused({ required_status_checks: null })).toEqual({ message: 'Invalid request.\n\n"enforce_admins" wasn\'t supplied.', documentation_url: DOCS });
    expect((await refused({ required_status_checks: null, enforce_admins: false, restrictions: null })).message).toBe('Invalid request.\n\n"required_pull_request_reviews" wasn\'t supplied.');
    expect((await refused({ ...rule(false), required_status_checks: { strict: true, contexts: [] } })).errors[0]).toMatch(/^required_status_checks\.strict: /);
    expect((await refused({ ...rule(false), restrictions: { users: ['bob'], teams: [] } })).errors[0]).toMatch(/^restrictions: /);
    expect((await refused({ ...rule(false), required_pull_request_reviews: { required_approving_review_count: 7 } })).errors[0]).toMatch(/^required_pull_request_reviews\.required_approving_review_count: /);
    expect((await refused({ ...rule(false), required_linear_history: true })).errors[0]).toMatch(/required_linear_history/);
  });

  it('serves the parts of a rule at their own URLs: status checks, their contexts, enforce admins, required reviews', async () => {
    const alice = clients.alice!;
    await alice.request(`PUT ${protection}`, rule(true));
    const branch = { ...repo, branch: 'main' };
    expect((await alice.repos.getStatusChecksProtection(branch)).data).toEqual({
      url: `${host.url}/api/v3${protection}/required_status_checks`,
      contexts_url: `${host.url}/api/v3${protection}/required_status_checks/contexts`,
      strict: false,
      contexts: ['ci/build'],
      checks: [{ context: 'ci/build', app_id: null }],
    });
    expect((await alice.repos.addStatusCheckContexts({ ...branch, contexts: ['ci/lint', 'ci/build'] })).data).toEqual(['ci/build', 'ci/lint']);
    expect((await alice.repos.getAllStatusCheckContexts(branch)).data).toEqual(['ci/build', 'ci/lint']);
    expect((await alice.repos.removeStatusCheckContexts({ ...branch, contexts: ['ci/build'] })).data).toEqual(['ci/lint']);
    expect((await alice.repos.setStatusCheckContexts({ ...branch, contexts: ['ci/test'] })).data).toEqual(['ci/test']);
    expect((await alice.repos.updateStatusCheckProtection({ ...branch, contexts: ['ci/test', 'ci/e2e'] })).data.contexts).toEqual(['ci/test', 'ci/e2e']);
    expect((await failure(alice.repos.updateStatusCheckProtection({ ...branch, strict: true }))).status).toBe(422);
    // No context would turn the checks off, which DELETE does: refused, and nothing changed.
    expect((await failure(alice.repos.updateStatusCheckProtection({ ...branch, contexts: [] }))).status).toBe(422);
    expect((await alice.repos.getAllStatusCheckContexts(branch)).data).toEqual(['ci/test', 'ci/e2e']);
    // The parts hold the branch's rule: bob may skip pull requests, not the checks.
    expect((await failure(edit('bob', 'unchecked.txt'))).data.message).toContain('ci/test (missing), ci/e2e (missing)');

    expect((await alice.repos.getAdminBranchProtection(branch)).data).toEqual({ url: `${host.url}/api/v3${protection}/enforce_admins`, enabled: true });
    expect((await alice.repos.deleteAdminBranchProtection(branch)).status).toBe(204);
    expect((await alice.repos.getBranchProtection(branch)).data.enforce_admins!.enabled).toBe(false);
    expect((await alice.repos.setAdminBranchProtection(branch)).data.enabled).toBe(true);

    const reviews = await alice.repos.updatePullRequestReviewProtection({ ...branch, required_approving_review_count: 2 });
    expect(reviews.data).toMatchObject({ url: `${host.url}/api/v3${protection}/required_pull_request_reviews`, required_approving_review_count: 2, bypass_pull_request_allowances: { users: [{ login: 'bob' }] } });
    expect((await alice.repos.getPullRequestReviewProtection(branch)).data.required_approving_review_count).toBe(2);
    expect((await failure(alice.repos.updatePullRequestReviewProtection({ ...branch, dismiss_stale_reviews: true }))).status).toBe(422);
    expect((await alice.repos.deletePullRequestReviewProtection(branch)).status).toBe(204);
    expect(await failure(alice.repos.getPullRequestReviewProtection(branch))).toEqual({ status: 404, data: { message: 'Required pull request reviews not enabled', documentation_url: DOCS } });

    expect((await alice.repos.removeStatusCheckContexts({ ...branch, contexts: ['ci/test', 'ci/e2e'] })).data).toEqual([]);
    await alice.repos.setStatusCheckContexts({ ...branch, contexts: ['ci/test'] }).then(
      () => expect.unreachable('no contexts: status checks are off'),
      (error: { status: number }) => expect(error.status).toBe(404),
    );
    await alice.request(`PUT ${protection}`, rule(true, ['ci/test', 'ci/e2e']));
    expect((await alice.repos.removeStatusCheckProtection(branch)).status).toBe(204);
    expect(await failure(alice.repos.getStatusChecksProtection(branch))).toEqual({ status: 404, data: { message: 'Required status checks not enabled', documentation_url: DOCS } });
    expect((await failure(alice.repos.addStatusCheckContexts({ ...branch, contexts: ['ci/x'] }))).status).toBe(404);
    expect((await edit('bob', 'unchecked.txt')).status).toBe(201);
    // Admins only, as the whole rule; a branch that does not exist is 404.
    expect((await failure(clients.bob!.repos.getAdminBranchProtection(branch))).status).toBe(404);
    expect((await failure(clients.bob!.repos.setAdminBranchProtection(branch))).status).toBe(404);
    expect((await failure(alice.repos.setAdminBranchProtection({ ...repo, branch: 'no-such' }))).status).toBe(404);
  });

  it('edits the parts of a rule racing each other without losing one', async () => {
    const alice = clients.alice!;
    await alice.request(`PUT ${protection}`, rule(true, ['ci/a']));
    const branch = { ...repo, branch: 'main' };
    const names = Array.from({ length: 8 }, (_, index) => `ci/${index}`);
    await Promise.all([...names.map((name) => alice.repos.addStatusCheckContexts({ ...branch, contexts: [name] })), alice.repos.deleteAdminBranchProtection(branch)]);
    const now = (await alice.repos.getBranchProtection(branch)).data;
    expect([...now.required_status_checks!.contexts].sort()).toEqual(['ci/a', ...names].sort());
    expect(now.enforce_admins!.enabled).toBe(false);
  });

  it('removes a rule (204), then answers 404 Branch not protected', async () => {
    expect((await clients.alice!.repos.deleteBranchProtection({ ...repo, branch: 'main' })).status).toBe(204);
    expect(await failure(clients.alice!.repos.getBranchProtection({ ...repo, branch: 'main' }))).toEqual({ status: 404, data: { message: 'Branch not protected', documentation_url: DOCS } });
    expect((await failure(clients.alice!.repos.deleteBranchProtection({ ...repo, branch: 'main' }))).data.message).toBe('Branch not protected');
    expect((await edit('carol', 'free.txt')).status).toBe(201);
    expect((await failure(clients.alice!.request('PUT /repos/alice/guarded/branches/no-such/protection', rule(false)))).status).toBe(404);
  });
});
