import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// GitHub's deployment environments (octokit's `repos.getAllEnvironments`, `getEnvironment`,
// `createOrUpdateEnvironment`, `deleteAnEnvironment`): made by an admin or by the first deployment to one.
describe('deployment environments', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'staged' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'environments') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'staged', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'push' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('makes environments by asking and by deploying, lists them by name, and deletes them', async () => {
    const made = (await as.alice!.repos.createOrUpdateEnvironment({ ...repo, environment_name: 'staging' })).data;
    expect(made).toMatchObject({ name: 'staging', url: `${host.url}/api/v3/repos/alice/staged/environments/staging`, protection_rules: [], deployment_branch_policy: null });
    // Made again: the same one.
    expect((await as.alice!.repos.createOrUpdateEnvironment({ ...repo, environment_name: 'Staging' })).data.id).toBe(made.id);

    // A deployment to a new environment makes it; so does a status that moves a deployment to another.
    const deployment = (await as.bob!.repos.createDeployment({ ...repo, ref: 'main', environment: 'production', required_contexts: [], auto_merge: false })).data as { id: number };
    await as.bob!.repos.createDeploymentStatus({ ...repo, deployment_id: deployment.id, state: 'success', environment: 'qa' });
    const listed = (await as.bob!.repos.getAllEnvironments(repo)).data;
    expect(listed.total_count).toBe(3);
    expect(listed.environments!.map((environment) => environment.name)).toEqual(['production', 'qa', 'staging']);
    expect((await as.bob!.repos.getEnvironment({ ...repo, environment_name: 'QA' })).data).toEqual(listed.environments![1]);
    const paged = await as.bob!.request('GET /repos/{owner}/{repo}/environments', { ...repo, per_page: 1 });
    expect(paged.headers.link).toContain('rel="next"');

    expect((await as.alice!.repos.deleteAnEnvironment({ ...repo, environment_name: 'qa' })).status).toBe(204);
    expect((await failure(as.bob!.repos.getEnvironment({ ...repo, environment_name: 'qa' }))).status).toBe(404);
    // Its deployments stay.
    expect((await as.bob!.repos.getDeployment({ ...repo, deployment_id: deployment.id })).data.environment).toBe('qa');
  });

  it('refuses protection rules it has no counterpart for, and changes by anyone but an admin', async () => {
    expect((await failure(as.alice!.repos.createOrUpdateEnvironment({ ...repo, environment_name: 'guarded', wait_timer: 30 }))).status).toBe(422);
    expect((await failure(as.alice!.repos.createOrUpdateEnvironment({ ...repo, environment_name: 'guarded', reviewers: [{ type: 'User', id: 1 }] }))).status).toBe(422);
    expect((await as.alice!.repos.createOrUpdateEnvironment({ ...repo, environment_name: 'plain', wait_timer: 0, reviewers: [] })).status).toBe(200);
    expect((await failure(as.bob!.repos.createOrUpdateEnvironment({ ...repo, environment_name: 'mine' }))).status).toBe(403);
    expect((await failure(as.bob!.repos.deleteAnEnvironment({ ...repo, environment_name: 'plain' }))).status).toBe(403);
    expect((await failure(as.alice!.repos.deleteAnEnvironment({ ...repo, environment_name: 'never-made' }))).status).toBe(404);
  });
});
