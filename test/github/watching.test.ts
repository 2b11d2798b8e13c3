import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// GitHub's watching API (octokit's `activity.setRepoSubscription`, `getRepoSubscription`, `deleteRepoSubscription`,
// `listWatchersForRepo`, `listWatchedReposForAuthenticatedUser`, `listReposWatchedByUser`).
describe('watching', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'watched' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'watching') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'watched', auto_init: true });
    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('subscribes, answers the subscription, lists watchers and watched repositories, and unsubscribes', async () => {
    expect((await failure(as.bob!.activity.getRepoSubscription(repo))).status).toBe(404);
    const set = await as.bob!.activity.setRepoSubscription({ ...repo, subscribed: true });
    expect(set.data).toMatchObject({ subscribed: true, ignored: false, reason: null, url: `${host.url}/api/v3/repos/alice/watched/subscription`, repository_url: `${host.url}/api/v3/repos/alice/watched` });
    expect((await as.bob!.activity.getRepoSubscription(repo)).data).toEqual(set.data);
    // Asked again: the same subscription, from the same time.
    expect((await as.bob!.activity.setRepoSubscription(repo)).data).toEqual(set.data);
    await as.carol!.activity.setRepoSubscription(repo);

    expect((await as.alice!.activity.listWatchersForRepo(repo)).data.map((user) => user.login)).toEqual(['bob', 'carol']);
    // GitHub's `watchers_count` counts stars; who watches is `subscribers_count`.
    await as.carol!.activity.starRepoForAuthenticatedUser(repo);
    expect((await as.alice!.repos.get(repo)).data).toMatchObject({ subscribers_count: 2, watchers_count: 1, watchers: 1, stargazers_count: 1, network_count: 0 });
    const watched = (await as.bob!.activity.listWatchedReposForAuthenticatedUser()).data;
    expect(watched.map((entry) => entry.full_name)).toEqual(['alice/watched']);
    // As the repository list shows it (the repository's own answer has more).
    expect(watched[0]).toEqual((await as.bob!.repos.listForUser({ username: 'alice' })).data.find((entry) => entry.name === 'watched'));
    expect((await as.carol!.activity.listReposWatchedByUser({ username: 'bob' })).data.map((entry) => entry.name)).toEqual(['watched']);

    expect((await as.bob!.activity.deleteRepoSubscription(repo)).status).toBe(204);
    expect((await failure(as.bob!.activity.getRepoSubscription(repo))).status).toBe(404);
    expect((await as.alice!.activity.listWatchersForRepo(repo)).data.map((user) => user.login)).toEqual(['carol']);
  });

  it('refuses what it has no counterpart for, and keeps private repositories hidden', async () => {
    expect((await failure(as.bob!.activity.setRepoSubscription({ ...repo, ignored: true }))).status).toBe(422);
    expect((await failure(as.bob!.activity.setRepoSubscription({ ...repo, subscribed: false }))).status).toBe(422);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).activity.setRepoSubscription(repo))).status).toBe(401);
    const hidden = { owner: 'alice', repo: 'hidden' };
    expect((await failure(as.bob!.activity.setRepoSubscription(hidden))).status).toBe(404);
    expect((await failure(as.bob!.activity.listWatchersForRepo(hidden))).status).toBe(404);
    await as.alice!.activity.setRepoSubscription(hidden);
    expect((await as.alice!.activity.listWatchedReposForAuthenticatedUser()).data.map((entry) => entry.name)).toEqual(['hidden']);
    expect((await as.bob!.activity.listReposWatchedByUser({ username: 'alice' })).data).toEqual([]);
  });
});
