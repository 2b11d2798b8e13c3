import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { failure } from '../helpers/octokit.js';
import { startHost } from '../helpers/host.js';

// GitHub's `GET /repos/{owner}/{repo}/collaborators` (octokit's `repos.listCollaborators`): the owner and everyone
// added, each with GitHub's permission flags and role, for callers with push access.
describe('the collaborator list', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'team' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol', 'dave', 'erin']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'team') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'team', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'dave', permission: 'pull' });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'carol', permission: 'push' });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'admin' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('lists the owner first, then the collaborators by name, with their permissions', async () => {
    const { data } = await as.carol!.repos.listCollaborators(repo);
    expect(data.map((user) => [user.login, user.role_name, user.permissions])).toEqual([
      ['alice', 'admin', { admin: true, maintain: true, push: true, triage: true, pull: true }],
      ['bob', 'admin', { admin: true, maintain: true, push: true, triage: true, pull: true }],
      ['carol', 'write', { admin: false, maintain: false, push: true, triage: true, pull: true }],
      ['dave', 'read', { admin: false, maintain: false, push: false, triage: false, pull: true }],
    ]);
    // Each is the account as GitHub shows users elsewhere (here: the author of an issue).
    const { permissions: _permissions, role_name: _role, ...carol } = data[2]!;
    expect(carol).toEqual((await as.carol!.issues.create({ ...repo, title: 'Who am I' })).data.user);
    expect((await as.alice!.repos.listCollaborators({ ...repo, affiliation: 'outside' })).data.map((user) => user.login)).toEqual(['bob', 'carol', 'dave']);
    expect((await as.alice!.repos.listCollaborators({ ...repo, affiliation: 'direct' })).data.map((user) => user.login)).toEqual(['alice', 'bob', 'carol', 'dave']);
  });

  it('pages with the owner counted', async () => {
    const first = await as.alice!.repos.listCollaborators({ ...repo, per_page: 3 });
    expect(first.data.map((user) => user.login)).toEqual(['alice', 'bob', 'carol']);
    expect(first.headers.link).toContain('rel="next"');
    expect((await as.alice!.repos.listCollaborators({ ...repo, per_page: 3, page: 2 })).data.map((user) => user.login)).toEqual(['dave']);
    expect((await as.alice!.paginate(as.alice!.repos.listCollaborators, { ...repo, per_page: 1 })).map((user) => user.login)).toEqual(['alice', 'bob', 'carol', 'dave']);
    expect((await as.alice!.paginate(as.alice!.repos.listCollaborators, { ...repo, per_page: 2, affiliation: 'outside' })).map((user) => user.login)).toEqual(['bob', 'carol', 'dave']);
  });

  it('needs push access, and refuses what it cannot filter by', async () => {
    expect(await failure(as.dave!.repos.listCollaborators(repo))).toMatchObject({ status: 403, data: { message: 'Must have push access to view repository collaborators.' } });
    expect((await failure(as.erin!.repos.listCollaborators(repo))).status).toBe(403);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).repos.listCollaborators(repo))).status).toBe(401);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true });
    expect((await failure(as.erin!.repos.listCollaborators({ owner: 'alice', repo: 'hidden' }))).status).toBe(404);
    expect((await failure(as.alice!.repos.listCollaborators({ ...repo, affiliation: 'friends' as 'all' }))).status).toBe(422);
    expect((await failure(as.alice!.repos.listCollaborators({ ...repo, permission: 'push' }))).status).toBe(422);
  });
});
