import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, historyOf } from '../helpers/octokit.js';

// GitHub's `GET /repos/{owner}/{repo}/contributors` (octokit's `repos.listContributors`), what contributor lists and
// changelog tools read: the default branch's authors by address, most commits first.
describe('contributors', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'crowd' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'erin']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'crowd') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'crowd', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'push' });
  });

  afterAll(async () => {
    await host?.close();
  });

  /** A commit on main by an author with an address no account stands behind (as a push from elsewhere brings). */
  const outsideCommit = async (name: string, email: string) => {
    const history = historyOf(as.alice!, repo);
    const parent = await history.tip('main');
    const tree = (await as.alice!.git.getCommit({ ...repo, commit_sha: parent })).data.tree.sha;
    const commit = (await as.alice!.git.createCommit({ ...repo, message: `By ${name}`, tree, parents: [parent], author: { name, email, date: '2024-01-01T00:00:00Z' } })).data;
    await as.alice!.git.updateRef({ ...repo, ref: 'heads/main', sha: commit.sha });
  };

  it('lists the accounts behind the default branch’s commits, most commits first, and anonymous authors when asked', async () => {
    await historyOf(as.alice!, repo).write('main', 'a.txt');
    await historyOf(as.alice!, repo).write('main', 'b.txt');
    await historyOf(as.bob!, repo).write('main', 'c.txt');
    await outsideCommit('Outside Dev', 'dev@example.com');
    await outsideCommit('Outside Dev', 'DEV@example.com');
    // A branch other than the default is not counted.
    await historyOf(as.alice!, repo).branchFrom('side', 'main');
    await historyOf(as.bob!, repo).write('side', 'side.txt');

    const listed = (await as.erin!.repos.listContributors(repo)).data;
    expect(listed.map((contributor) => [contributor.login, contributor.contributions])).toEqual([
      ['alice', 3],
      ['bob', 1],
    ]);
    const { contributions: _contributions, ...alice } = listed[0]!;
    // The account as GitHub shows users elsewhere (here: the author of an issue).
    expect(alice).toEqual((await as.alice!.issues.create({ ...repo, title: 'Who' })).data.user);

    const withAnonymous = (await as.erin!.repos.listContributors({ ...repo, anon: 'true' })).data;
    expect(withAnonymous.map((contributor) => [contributor.login ?? contributor.name, contributor.contributions, contributor.type])).toEqual([
      ['alice', 3, 'User'],
      ['Outside Dev', 2, 'Anonymous'],
      ['bob', 1, 'User'],
    ]);
    // One address whatever its case, as the newest commit spells it.
    expect(withAnonymous[1]).toEqual({ email: 'DEV@example.com', name: 'Outside Dev', type: 'Anonymous', contributions: 2 });
    const paged = await as.erin!.paginate(as.erin!.repos.listContributors, { ...repo, anon: '1', per_page: 1 });
    expect(paged.map((contributor) => contributor.contributions)).toEqual([3, 2, 1]);

    // A new commit on the default branch counts at once.
    await historyOf(as.bob!, repo).write('main', 'd.txt');
    expect((await as.erin!.repos.listContributors(repo)).data.map((contributor) => [contributor.login, contributor.contributions])).toEqual([
      ['alice', 3],
      ['bob', 2],
    ]);
  });

  it('answers 204 for an empty repository, no anonymous authors for another `anon`, 404 where the repository is hidden', async () => {
    await as.alice!.repos.createForAuthenticatedUser({ name: 'empty' });
    expect((await as.alice!.repos.listContributors({ owner: 'alice', repo: 'empty' })).status).toBe(204);
    // As GitHub: only `1` or `true` add anonymous contributors.
    expect((await as.alice!.repos.listContributors({ ...repo, anon: 'maybe' })).data.every((contributor) => contributor.type === 'User')).toBe(true);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
    expect((await as.alice!.repos.listContributors({ owner: 'alice', repo: 'hidden' })).data.map((contributor) => contributor.login)).toEqual(['alice']);
    expect((await failure(as.erin!.repos.listContributors({ owner: 'alice', repo: 'hidden' }))).status).toBe(404);
  });
});
