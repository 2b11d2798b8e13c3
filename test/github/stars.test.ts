import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';
import { HookReceiver } from '../helpers/receiver.js';

// GitHub's starring API (octokit's `activity.starRepoForAuthenticatedUser`, `unstarRepoForAuthenticatedUser`,
// `checkRepoIsStarredByAuthenticatedUser`, `listStargazersForRepo`, `listReposStarredByAuthenticatedUser`,
// `listReposStarredByUser`).
describe('stars', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'shiny' };

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    receiver = await HookReceiver.start();
    for (const username of ['alice', 'bob', 'carol']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'stars') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'shiny', auto_init: true });
    await as.alice!.repos.createForAuthenticatedUser({ name: 'dull', auto_init: true });
    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
    await as.alice!.repos.createWebhook({ ...repo, config: { url: receiver.url, content_type: 'json' }, events: ['star'] });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('stars and unstars, once each whatever is asked twice, with the star events', async () => {
    expect((await failure(as.bob!.activity.checkRepoIsStarredByAuthenticatedUser(repo))).status).toBe(404);
    expect((await as.bob!.activity.starRepoForAuthenticatedUser(repo)).status).toBe(204);
    expect((await as.bob!.activity.starRepoForAuthenticatedUser(repo)).status).toBe(204);
    expect((await as.bob!.activity.checkRepoIsStarredByAuthenticatedUser(repo)).status).toBe(204);
    expect((await as.carol!.activity.starRepoForAuthenticatedUser(repo)).status).toBe(204);
    expect((await as.alice!.repos.get(repo)).data.stargazers_count).toBe(2);

    expect((await as.bob!.activity.unstarRepoForAuthenticatedUser(repo)).status).toBe(204);
    expect((await as.bob!.activity.unstarRepoForAuthenticatedUser(repo)).status).toBe(204);
    expect((await as.alice!.repos.get(repo)).data.stargazers_count).toBe(1);
    const events = await receiver.waitForEvent('star', 3);
    expect(events.map((hook) => [hook.json.action, hook.json.sender.login])).toEqual([
      ['created', 'bob'],
      ['created', 'carol'],
      ['deleted', 'bob'],
    ]);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).activity.starRepoForAuthenticatedUser(repo))).status).toBe(401);
  });

  it('lists who starred a repository and what an account starred, with when on asking', async () => {
    await as.bob!.activity.starRepoForAuthenticatedUser(repo);
    await as.bob!.activity.starRepoForAuthenticatedUser({ owner: 'alice', repo: 'dull' });
    const gazers = await as.alice!.activity.listStargazersForRepo(repo);
    expect((gazers.data as Array<{ login: string }>).map((user) => user.login)).toEqual(['carol', 'bob']);
    expect(gazers.data[0]).toEqual((await as.carol!.issues.create({ ...repo, title: 'Me' })).data.user);
    const timed = await as.alice!.request('GET /repos/{owner}/{repo}/stargazers', { ...repo, headers: { accept: 'application/vnd.github.star+json' } });
    expect((timed.data as Array<{ starred_at: string; user: { login: string } }>).map((entry) => [entry.user.login, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(entry.starred_at)])).toEqual([
      ['carol', true],
      ['bob', true],
    ]);

    // Newest star first by default; oldest with direction asc; each the repository as the caller sees it.
    const mine = (await as.bob!.activity.listReposStarredByAuthenticatedUser()).data;
    expect(mine.map((starred) => starred.full_name)).toEqual(['alice/dull', 'alice/shiny']);
    expect(mine[1]).toEqual((await as.bob!.repos.listForUser({ username: 'alice' })).data.find((entry) => entry.name === 'shiny'));
    expect((await as.bob!.activity.listReposStarredByAuthenticatedUser({ direction: 'asc' })).data.map((starred) => starred.name)).toEqual(['shiny', 'dull']);
    expect(((await as.carol!.activity.listReposStarredByUser({ username: 'bob', per_page: 1 })).data as Array<{ name: string }>).map((starred) => starred.name)).toEqual(['dull']);
    const timedRepos = await as.bob!.request('GET /user/starred', { headers: { accept: 'application/vnd.github.v3.star+json' } });
    expect((timedRepos.data as unknown as Array<{ repo: { name: string } }>).map((entry) => entry.repo.name)).toEqual(['dull', 'shiny']);
    expect((await failure(as.bob!.activity.listReposStarredByAuthenticatedUser({ sort: 'stars' as 'created' }))).status).toBe(422);
  });

  it('keeps private repositories out of sight: not starrable by strangers, not listed to others', async () => {
    const hidden = { owner: 'alice', repo: 'hidden' };
    expect((await failure(as.bob!.activity.starRepoForAuthenticatedUser(hidden))).status).toBe(404);
    expect((await failure(as.bob!.activity.listStargazersForRepo(hidden))).status).toBe(404);
    await as.alice!.activity.starRepoForAuthenticatedUser(hidden);
    expect((await as.alice!.activity.listReposStarredByAuthenticatedUser()).data.map((starred) => starred.name)).toContain('hidden');
    expect(((await as.bob!.activity.listReposStarredByUser({ username: 'alice' })).data as Array<{ name: string }>).map((starred) => starred.name)).not.toContain('hidden');
    expect((await failure(as.bob!.activity.listReposStarredByUser({ username: 'nobody-here' }))).status).toBe(404);
  });
});
