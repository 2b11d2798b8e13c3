import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, historyOf } from '../helpers/octokit.js';

// GitHub's deployments API (octokit's `repos.createDeployment`, `listDeployments`, `createDeploymentStatus`…), as
// deployment tools and bots use it, checks before a deployment is made included.
describe('deployments and their statuses', () => {
  let host: RepoHost;
  let history: ReturnType<typeof historyOf>;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'shipped' };
  /** A deployment made at once (no merge, no status checks), its id. */
  const deploy = async (environment: string, extra: Record<string, unknown> = {}) =>
    ((await as.alice!.repos.createDeployment({ ...repo, ref: 'main', environment, auto_merge: false, required_contexts: [], ...extra })).data as { id: number }).id;
  const states = async (deployment_id: number) => (await as.alice!.repos.listDeploymentStatuses({ ...repo, deployment_id })).data.map((status) => status.state);

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'erin']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'deploys') });
    }
    history = historyOf(as.alice!, repo);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'shipped', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'pull' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('makes a deployment with GitHub’s defaults, and lists and filters them newest first', async () => {
    const made = await as.alice!.repos.createDeployment({ ...repo, ref: 'main' });
    expect(made.status).toBe(201);
    const deployment = made.data as Exclude<typeof made.data, { message?: string }>;
    expect(deployment).toMatchObject({
      ref: 'main',
      sha: await history.tip('main'),
      task: 'deploy',
      environment: 'production',
      original_environment: 'production',
      production_environment: true,
      transient_environment: false,
      payload: '',
      description: '',
      creator: { login: 'alice' },
      url: `${host.url}/api/v3/repos/alice/shipped/deployments/${deployment.id}`,
      statuses_url: `${host.url}/api/v3/repos/alice/shipped/deployments/${deployment.id}/statuses`,
      repository_url: `${host.url}/api/v3/repos/alice/shipped`,
    });
    expect(made.headers.location).toBe(deployment.url);
    expect((await as.bob!.repos.getDeployment({ ...repo, deployment_id: deployment.id })).data).toEqual(deployment);

    const staging = await deploy('staging', { task: 'deploy:migrations', payload: { build: 7, flags: ['a'] }, description: 'Migrate', transient_environment: true });
    const staged = (await as.alice!.repos.getDeployment({ ...repo, deployment_id: staging })).data;
    expect(staged).toMatchObject({ task: 'deploy:migrations', payload: { build: 7, flags: ['a'] }, description: 'Migrate', production_environment: false, transient_environment: true });
    const ids = async (filter: Record<string, string> = {}) => (await as.bob!.repos.listDeployments({ ...repo, ...filter })).data.map((entry) => entry.id);
    expect(await ids()).toEqual([staging, deployment.id]);
    expect(await ids({ environment: 'staging' })).toEqual([staging]);
    expect(await ids({ task: 'deploy' })).toEqual([deployment.id]);
    expect(await ids({ ref: 'main', sha: await history.tip('main') })).toEqual([staging, deployment.id]);
    expect(await ids({ ref: 'elsewhere' })).toEqual([]);
  });

  it('needs the commit’s statuses successful, all of them or the contexts asked for', async () => {
    const sha = await history.write('main', 'checked.txt', 'checked\n');
    await as.alice!.repos.createCommitStatus({ ...repo, sha, state: 'failure', context: 'ci' });
    const refused = await failure(as.alice!.repos.createDeployment({ ...repo, ref: 'main' }));
    expect(refused).toMatchObject({
      status: 409,
      data: { message: 'Conflict: Commit status checks failed for main.', errors: [{ contexts: [{ context: 'ci', state: 'failure' }], resource: 'Deployment', field: 'required_contexts', code: 'invalid' }] },
    });
    await as.alice!.repos.createCommitStatus({ ...repo, sha, state: 'success', context: 'ci' });
    expect((await failure(as.alice!.repos.createDeployment({ ...repo, ref: 'main', required_contexts: ['ci', 'lint'] }))).data.errors[0].contexts).toEqual([
      { context: 'ci', state: 'success' },
      { context: 'lint', state: 'missing' },
    ]);
    expect((await as.alice!.repos.createDeployment({ ...repo, ref: 'main' })).status).toBe(201);
    expect((await as.alice!.repos.createDeployment({ ...repo, ref: sha, required_contexts: ['ci'] })).status).toBe(201);
  });

  it('merges the default branch into a branch behind it first, as GitHub does, and makes none then', async () => {
    await history.branchFrom('topic', 'main');
    await history.write('topic', 'topic.txt', 'topic\n');
    await history.write('main', 'later.txt', 'later\n');
    const head = await history.tip('topic');
    const merged = await as.alice!.repos.createDeployment({ ...repo, ref: 'topic', required_contexts: [] });
    expect(merged.status).toBe(202);
    expect(merged.data).toEqual({ message: 'Auto-merged main into topic on deployment.' });
    const merge = (await as.alice!.git.getCommit({ ...repo, commit_sha: await history.tip('topic') })).data;
    expect(merge.parents.map((parent) => parent.sha)).toEqual([head, await history.tip('main')]);
    expect((await as.alice!.repos.listDeployments({ ...repo, ref: 'topic' })).data).toEqual([]);
    // Up to date now: made.
    expect((await as.alice!.repos.createDeployment({ ...repo, ref: 'topic', required_contexts: [] })).status).toBe(201);

    await history.branchFrom('clash', 'main');
    await history.write('clash', 'shared.txt', 'one side\n');
    await history.write('main', 'shared.txt', 'the other side\n');
    const clash = await history.tip('clash');
    expect(await failure(as.alice!.repos.createDeployment({ ...repo, ref: 'clash', required_contexts: [] }))).toMatchObject({ status: 409, data: { message: 'Conflict merging main into clash.' } });
    expect(await history.tip('clash')).toBe(clash);
    const asIs = (await as.alice!.repos.createDeployment({ ...repo, ref: 'clash', required_contexts: [], auto_merge: false })).data as { sha: string };
    expect(asIs.sha).toBe(clash);
  });

  it('reports statuses: urls, environments, and earlier successes made inactive', async () => {
    const first = await deploy('qa');
    const progress = await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: first, state: 'in_progress', log_url: 'https://ci.example.com/run/1', description: 'Rolling out' });
    expect(progress.status).toBe(201);
    expect(progress.data).toMatchObject({
      state: 'in_progress',
      target_url: 'https://ci.example.com/run/1',
      log_url: 'https://ci.example.com/run/1',
      description: 'Rolling out',
      environment: 'qa',
      environment_url: '',
      creator: { login: 'alice' },
      deployment_url: `${host.url}/api/v3/repos/alice/shipped/deployments/${first}`,
    });
    expect(progress.headers.location).toBe(progress.data.url);
    await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: first, state: 'success', environment_url: 'https://qa.example.com' });
    expect(await states(first)).toEqual(['success', 'in_progress']);
    expect((await as.bob!.repos.getDeploymentStatus({ ...repo, deployment_id: first, status_id: progress.data.id })).data).toEqual(progress.data);

    // Another success in qa makes the first inactive; a production deployment is left alone, as is one told not to.
    const second = await deploy('qa');
    const production = await deploy('production');
    await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: production, state: 'success' });
    await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: second, state: 'success' });
    expect(await states(first)).toEqual(['inactive', 'success', 'in_progress']);
    const third = await deploy('qa');
    await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: third, state: 'success', auto_inactive: false });
    expect(await states(second)).toEqual(['success']);
    expect(await states(production)).toEqual(['success']);

    // A status naming another environment moves the deployment there.
    await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: third, state: 'queued', environment: 'qa-2' });
    expect((await as.alice!.repos.getDeployment({ ...repo, deployment_id: third })).data).toMatchObject({ environment: 'qa-2', original_environment: 'qa' });

    expect((await failure(as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: first, state: 'done' as 'success' }))).status).toBe(422);
    expect((await failure(as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: first, state: 'success', description: 'x'.repeat(141) }))).status).toBe(422);
    expect((await failure(as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: first, state: 'success', log_url: 'ftp://ci.example.com' }))).status).toBe(422);
    expect((await failure(as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: 987654, state: 'success' }))).status).toBe(404);
    expect((await failure(as.alice!.repos.getDeploymentStatus({ ...repo, deployment_id: first, status_id: 987654 }))).status).toBe(404);
  });

  it('deletes inactive deployments, and an active one only when alone in its environment', async () => {
    const older = await deploy('preview');
    const newer = await deploy('preview');
    await as.alice!.repos.createDeploymentStatus({ ...repo, deployment_id: newer, state: 'success', auto_inactive: false });
    expect(await failure(as.alice!.repos.deleteDeployment({ ...repo, deployment_id: newer }))).toMatchObject({
      status: 422,
      data: { message: 'We cannot delete an active deployment unless it is the only deployment in a given environment.' },
    });
    expect((await as.alice!.repos.deleteDeployment({ ...repo, deployment_id: older })).status).toBe(204);
    expect((await as.alice!.repos.deleteDeployment({ ...repo, deployment_id: newer })).status).toBe(204);
    expect((await failure(as.alice!.repos.getDeployment({ ...repo, deployment_id: newer }))).status).toBe(404);
    expect((await failure(as.alice!.repos.listDeploymentStatuses({ ...repo, deployment_id: newer }))).status).toBe(404);
  });

  it('lets an app with deployments write deploy, but merge the default branch in only with contents write', async () => {
    const app = await host.admin.createApp({ owner: 'alice', name: 'Deployer', permissions: { deployments: 'write' } });
    const { id: installationId } = await host.admin.installApp(app.slug, 'alice');
    const bot = new Octokit({ baseUrl: `${host.url}/api/v3`, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey, installationId } });
    await history.branchFrom('app-topic', 'main');
    await history.write('app-topic', 'app.txt', 'app\n');
    await history.write('main', 'main-moved.txt', 'moved\n');
    const head = await history.tip('app-topic');
    expect((await failure(bot.repos.createDeployment({ ...repo, ref: 'app-topic', required_contexts: [] }))).status).toBe(403);
    expect(await history.tip('app-topic')).toBe(head);
    const made = await bot.repos.createDeployment({ ...repo, ref: 'app-topic', required_contexts: [], auto_merge: false });
    expect(made.status).toBe(201);
    expect((made.data as { sha: string; creator: { login: string } })).toMatchObject({ sha: head, creator: { login: 'deployer[bot]' } });
  });

  it('answers GitHub’s errors, and keeps deployments of private repositories hidden', async () => {
    expect(await failure(as.alice!.repos.createDeployment({ ...repo, ref: 'nope' }))).toMatchObject({ status: 422, data: { message: 'No ref found for: nope' } });
    const missing = await failure(as.alice!.request('POST /repos/{owner}/{repo}/deployments', repo as { owner: string; repo: string; ref: string }));
    expect(missing).toMatchObject({ status: 422, data: { errors: [{ resource: 'Deployment', field: 'ref', code: 'missing_field' }] } });
    expect((await failure(as.alice!.repos.createDeployment({ ...repo, ref: 'main', payload: ['a'] as unknown as string }))).status).toBe(422);
    expect((await failure(as.bob!.repos.createDeployment({ ...repo, ref: 'main', required_contexts: [] }))).status).toBe(403);
    const id = await deploy('bob-cannot');
    expect((await failure(as.bob!.repos.createDeploymentStatus({ ...repo, deployment_id: id, state: 'success' }))).status).toBe(403);
    expect((await failure(as.bob!.repos.deleteDeployment({ ...repo, deployment_id: id }))).status).toBe(403);

    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
    const hidden = { owner: 'alice', repo: 'hidden' };
    const secret = ((await as.alice!.repos.createDeployment({ ...hidden, ref: 'main', required_contexts: [] })).data as { id: number }).id;
    expect((await failure(as.erin!.repos.listDeployments(hidden))).status).toBe(404);
    expect((await failure(as.erin!.repos.getDeployment({ ...hidden, deployment_id: secret }))).status).toBe(404);
    // A deployment of one repository is not found through another.
    expect((await failure(as.alice!.repos.getDeployment({ ...repo, deployment_id: secret }))).status).toBe(404);
  });
});
