import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, installationOctokit } from '../helpers/octokit.js';

// Issue 20: check runs and suites as a CI integration reports them, and required checks that check runs satisfy.
describe('the Checks API', () => {
  let host: RepoHost;
  let alice: Octokit;
  let bob: Octokit;
  let anonymous: Octokit;
  /** alice's CI: an app installed on her repositories (GitHub takes check runs from apps only). */
  let ci: Octokit;
  const repo = { owner: 'alice', repo: 'checked' };
  let main: string;

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice', 'ci') });
    bob = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('bob', 'ci') });
    anonymous = new Octokit({ baseUrl: `${host.url}/api/v3` });
    ci = await installationOctokit(host, 'alice');
    await alice.repos.createForAuthenticatedUser({ name: 'checked', auto_init: true });
    main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
  });

  afterAll(async () => {
    await host?.close();
  });

  it('creates a run, moves it through in_progress to completed, and keeps its annotations', async () => {
    const created = await ci.checks.create({ ...repo, name: 'lint', head_sha: main, external_id: 'job-1', details_url: 'https://ci.example.com/1' });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      name: 'lint',
      head_sha: main,
      status: 'queued',
      conclusion: null,
      completed_at: null,
      external_id: 'job-1',
      details_url: 'https://ci.example.com/1',
      url: `${host.url}/api/v3/repos/alice/checked/check-runs/${created.data.id}`,
      output: { title: null, summary: null, annotations_count: 0, annotations_url: `${host.url}/api/v3/repos/alice/checked/check-runs/${created.data.id}/annotations` },
      app: { slug: 'ci-of-alice', owner: { login: 'alice' } },
      pull_requests: [],
    });
    expect(created.data.started_at).toMatch(/Z$/);

    await ci.checks.update({ ...repo, check_run_id: created.data.id, status: 'in_progress' });
    const done = await ci.checks.update({
      ...repo,
      check_run_id: created.data.id,
      conclusion: 'failure',
      output: {
        title: '2 problems',
        summary: 'Lint found problems',
        annotations: [
          { path: 'README.md', start_line: 1, end_line: 1, annotation_level: 'warning', message: 'Heading style' },
          { path: 'README.md', start_line: 2, end_line: 3, annotation_level: 'failure', message: 'Trailing space', title: 'Spaces' },
        ],
      },
    });
    expect(done.data).toMatchObject({ status: 'completed', conclusion: 'failure', output: { title: '2 problems', summary: 'Lint found problems', annotations_count: 2 } });
    expect(done.data.completed_at).toMatch(/Z$/);
    const annotations = await anonymous.checks.listAnnotations({ ...repo, check_run_id: created.data.id });
    expect(annotations.data.map((annotation) => [annotation.start_line, annotation.annotation_level, annotation.message])).toEqual([
      [1, 'warning', 'Heading style'],
      [2, 'failure', 'Trailing space'],
    ]);
    expect((await anonymous.checks.get({ ...repo, check_run_id: created.data.id })).data.conclusion).toBe('failure');
  });

  it('lists the newest run of each name by default, every run with filter=all, and filters by name and status', async () => {
    await ci.checks.create({ ...repo, name: 'lint', head_sha: main, conclusion: 'success' });
    await ci.checks.create({ ...repo, name: 'test', head_sha: main, status: 'in_progress' });
    const latest = await anonymous.checks.listForRef({ ...repo, ref: 'main' });
    expect(latest.data.total_count).toBe(2);
    expect(latest.data.check_runs.map((run) => [run.name, run.status, run.conclusion])).toEqual([
      ['test', 'in_progress', null],
      ['lint', 'completed', 'success'],
    ]);
    expect((await anonymous.checks.listForRef({ ...repo, ref: main, filter: 'all' })).data.total_count).toBe(3);
    expect((await anonymous.checks.listForRef({ ...repo, ref: main, filter: 'all', check_name: 'lint' })).data.check_runs).toHaveLength(2);
    expect((await anonymous.checks.listForRef({ ...repo, ref: main, status: 'in_progress' })).data.check_runs.map((run) => run.name)).toEqual(['test']);
    // An app's id keeps its runs; another app made none; a malformed id is refused.
    const appId = (await ci.checks.get({ ...repo, check_run_id: latest.data.check_runs[0]!.id })).data.app!.id;
    expect((await anonymous.checks.listForRef({ ...repo, ref: main, app_id: appId })).data.total_count).toBe(2);
    expect((await anonymous.checks.listForRef({ ...repo, ref: main, app_id: appId + 1 })).data.total_count).toBe(0);
    expect((await failure(anonymous.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...repo, ref: main, app_id: 'one' as unknown as number }))).data.errors[0]).toMatchObject({ field: 'app_id' });
    expect((await failure(anonymous.checks.listForRef({ ...repo, ref: 'no-such-ref' }))).status).toBe(404);
  });

  it('groups a commit\'s runs in one suite whose state follows the newest runs', async () => {
    const suites = await anonymous.checks.listSuitesForRef({ ...repo, ref: main });
    expect(suites.data.total_count).toBe(1);
    const [suite] = suites.data.check_suites;
    expect(suite).toMatchObject({ head_sha: main, head_branch: 'main', status: 'in_progress', conclusion: null, latest_check_runs_count: 2 });
    const [testRun] = (await anonymous.checks.listForRef({ ...repo, ref: main, check_name: 'test' })).data.check_runs;
    await ci.checks.update({ ...repo, check_run_id: testRun!.id, conclusion: 'timed_out' });
    expect((await anonymous.checks.getSuite({ ...repo, check_suite_id: suite!.id })).data).toMatchObject({ status: 'completed', conclusion: 'timed_out' });
    expect((await anonymous.checks.listForSuite({ ...repo, check_suite_id: suite!.id })).data.total_count).toBe(2);
  });

  it('refuses what GitHub refuses, with 422 naming the field, and runs from those who may not write', async () => {
    const errorOf = async (request: Promise<unknown>) => (await failure(request)).data.errors?.[0];
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, status: 'completed' }))).toMatchObject({ resource: 'CheckRun', field: 'conclusion' });
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, conclusion: 'great' as never }))).toMatchObject({ field: 'conclusion', code: 'invalid' });
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: '0'.repeat(40) }))).toMatchObject({ field: 'head_sha', code: 'invalid' });
    expect(await errorOf(ci.checks.create({ ...repo, head_sha: main } as never))).toMatchObject({ field: 'name', code: 'missing_field' });
    const annotations = Array.from({ length: 51 }, () => ({ path: 'a', start_line: 1, end_line: 1, annotation_level: 'notice' as const, message: 'm' }));
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, output: { title: 't', summary: 's', annotations } }))).toMatchObject({ code: 'custom' });
    // GitHub's documented rules of a run: a completion time needs a conclusion, output a title, only Actions sets the
    // waiting states and only GitHub `stale`; a conclusion completes the run whatever status came with it.
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, completed_at: '2026-01-01T00:00:00Z' }))).toMatchObject({ field: 'conclusion' });
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, output: { summary: 's' } as never }))).toMatchObject({ field: 'output.title', code: 'missing_field' });
    for (const status of ['waiting', 'requested', 'pending'] as const) expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, status: status as 'queued' }))).toMatchObject({ field: 'status' });
    expect(await errorOf(ci.checks.create({ ...repo, name: 'x', head_sha: main, conclusion: 'stale' }))).toMatchObject({ field: 'conclusion' });
    const concluded = (await ci.checks.create({ ...repo, name: 'concluded', head_sha: main, status: 'in_progress', conclusion: 'success' })).data;
    expect(concluded).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect((await failure(bob.checks.create({ ...repo, name: 'x', head_sha: main }))).status).toBe(403);
    // A personal token, even the owner's, writes no check run: GitHub's words.
    expect((await failure(alice.checks.create({ ...repo, name: 'x', head_sha: main }))).data.message).toBe('You must authenticate via a GitHub App.');
    expect((await failure(alice.checks.update({ ...repo, check_run_id: concluded.id, conclusion: 'failure' }))).data.message).toBe('You must authenticate via a GitHub App.');
    expect((await failure(anonymous.checks.create({ ...repo, name: 'x', head_sha: main }))).status).toBe(401);
    await alice.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
    expect((await failure(bob.checks.listForRef({ owner: 'alice', repo: 'hidden', ref: 'main' }))).status).toBe(404);
  });

  it('lets a check run of a required name pass branch protection, and names the pull request it ran for', async () => {
    await alice.request('PUT /repos/{owner}/{repo}/branches/{branch}/protection', {
      ...repo,
      branch: 'main',
      required_status_checks: { strict: false, contexts: ['ci/test'] },
      enforce_admins: true,
      required_pull_request_reviews: null,
      restrictions: null,
    });
    await alice.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    const commit = await alice.repos.createOrUpdateFileContents({ ...repo, path: 'topic.txt', branch: 'topic', message: 'Topic', content: Buffer.from('t').toString('base64') });
    const head = commit.data.commit.sha!;
    const pull = (await alice.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    const run = await ci.checks.create({ ...repo, name: 'ci/test', head_sha: head, status: 'in_progress' });
    expect(run.data.pull_requests).toEqual([expect.objectContaining({ number: pull.number, head: expect.objectContaining({ ref: 'topic', sha: head }), base: expect.objectContaining({ ref: 'main' }) })]);
    expect((await failure(alice.pulls.merge({ ...repo, pull_number: pull.number }))).status).toBe(405);
    await ci.checks.update({ ...repo, check_run_id: run.data.id, conclusion: 'failure' });
    expect((await failure(alice.pulls.merge({ ...repo, pull_number: pull.number }))).data.message).toContain('ci/test (failure)');
    await ci.checks.create({ ...repo, name: 'ci/test', head_sha: head, conclusion: 'success' });
    expect((await alice.pulls.merge({ ...repo, pull_number: pull.number })).data.merged).toBe(true);
  });
});
