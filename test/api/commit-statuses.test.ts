import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches, type SeededBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost } from '../helpers/host.js';

describe('commit statuses (issue 9): posted, listed, combined; the CI callback shows on the commit', () => {
  let host: RepoHost;
  let owner: TestUser;
  let writer: TestUser;
  let reader: TestUser;
  let commits: SeededBranches;
  let repoId: number;
  let base: string;

  const post = (sha: string, body: Record<string, unknown>, who = owner) => http(`${base}/statuses/${sha}`, { headers: bearer(who.token), json: body });

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'owner');
    writer = await newUser(host, 'writer');
    reader = await newUser(host, 'reader');
    repoId = (await newRepo(host, owner, 'app')).id;
    commits = await pushTwoBranches(host, 'owner', owner.token, 'app', ['release']);
    base = `${host.url}/api/v1/repos/owner/app`;
    for (const [user, permission] of [[writer, 'write'], [reader, 'read']] as const) {
      await http(`${base}/collaborators/${user.username}`, { method: 'PUT', headers: bearer(owner.token), json: { permission } });
    }
  });

  afterAll(async () => {
    await host?.close();
  });

  it('posts a status and answers its record', async () => {
    const result = await post(commits.feature, { state: 'success', context: 'ci/build', description: 'Built', target_url: 'https://ci.example/1' }, writer);
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      id: expect.any(Number),
      sha: commits.feature,
      state: 'success',
      context: 'ci/build',
      description: 'Built',
      target_url: 'https://ci.example/1',
      creator: 'writer',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const defaulted = await post(commits.feature, { state: 'pending' });
    expect(defaulted.json).toMatchObject({ context: 'default', description: '', target_url: null });
  });

  it('refuses bad input: state, target_url scheme, unknown or short commit ids, no write access', async () => {
    expectError(await post(commits.main, { state: 'done' }), 400, 'state');
    expectError(await post(commits.main, { state: 'success', target_url: 'javascript:alert(1)' }), 400, 'target_url');
    expectError(await post('f'.repeat(40), { state: 'success' }), 404);
    expectError(await post(commits.main.slice(0, 12), { state: 'success' }), 404);
    expectError(await post(commits.main, { state: 'success' }, reader), 403);
    expectError(await http(`${base}/statuses/${commits.main}`, { json: { state: 'success' } }), 401);
  });

  it('combines the newest status per context: failure beats pending beats success; none is pending', async () => {
    const combined = async (ref: string) => (await http(`${base}/commits/${ref}/status`)).json;
    expect(await combined('release')).toEqual({ state: 'pending', sha: commits.main, total_count: 0, statuses: [] });
    await post(commits.main, { state: 'pending', context: 'lint' });
    await post(commits.main, { state: 'success', context: 'test' });
    expect((await combined('main')).state).toBe('pending');
    await post(commits.main, { state: 'success', context: 'lint' });
    const green = await combined(commits.main);
    expect(green).toMatchObject({ state: 'success', sha: commits.main, total_count: 2 });
    expect(green.statuses.map((s: { context: string; state: string }) => `${s.context}:${s.state}`)).toEqual(['lint:success', 'test:success']);
    await post(commits.main, { state: 'error', context: 'deploy' });
    expect((await combined('main')).state).toBe('failure');
    await post(commits.main, { state: 'success', context: 'deploy' });
    await post(commits.main, { state: 'failure', context: 'test' });
    expect((await combined('main')).state).toBe('failure');
    expectError(await http(`${base}/commits/no-such-branch/status`), 404);
  });

  it('lists every status of a commit newest first, paginated', async () => {
    const list = await http(`${base}/commits/main/statuses?limit=2`);
    expect(list.status).toBe(200);
    expect(list.json.map((s: { context: string; state: string }) => `${s.context}:${s.state}`)).toEqual(['test:failure', 'deploy:success']);
    expect(list.headers['x-total-count']).toBe('6');
  });

  it("turns the spec's CI callback of a writer into a commit status: running is pending, unknown words are errors", async () => {
    const report = (status: string, run = '42') =>
      http(`${host.url}/api/v1/ci/status`, { headers: bearer(writer.token), json: { run_id: run, repo_id: String(repoId), commit_hash: commits.feature, branch: 'feature', status } });
    expect((await report('running')).json).toMatchObject({ success: true, status: 'running' });
    let combined = (await http(`${base}/commits/feature/status`)).json;
    expect(combined.statuses.find((s: { context: string }) => s.context === 'ci/42')).toMatchObject({ state: 'pending', creator: 'writer' });
    await report('cancelled');
    combined = (await http(`${base}/commits/feature/status`)).json;
    const ci = combined.statuses.find((s: { context: string }) => s.context === 'ci/42');
    expect(ci).toMatchObject({ state: 'error' });
    expect(ci.description).toContain('cancelled');
    expect(combined.state).toBe('failure');
    // A placeholder commit id is still a valid report, but names no commit to show it on.
    const placeholder = await http(`${host.url}/api/v1/ci/status`, { json: { run_id: '43', repo_id: String(repoId), commit_hash: 'abc123', branch: 'main', status: 'success' } });
    expect(placeholder.json.success).toBe(true);
  });

  it('pull requests show the combined status of their head as checks_state', async () => {
    const pull = await http(`${base}/pulls`, { headers: bearer(owner.token), json: { title: 'Feature', head: 'feature', base: 'main' } });
    expect(pull.json).toMatchObject({ status: 'open', checks_state: 'failure', head_sha: commits.feature });
    await http(`${host.url}/api/v1/ci/status`, { headers: bearer(writer.token), json: { run_id: '42', repo_id: String(repoId), commit_hash: commits.feature, branch: 'feature', status: 'success' } });
    expect((await http(`${base}/pulls/${pull.json.id}`)).json.checks_state).toBe('pending');
    await post(commits.feature, { state: 'success' });
    expect((await http(`${base}/pulls/${pull.json.id}`)).json.checks_state).toBe('success');
  });
});
