import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// GitHub's repository topics (octokit's `repos.getAllTopics`, `repos.replaceAllTopics`), what repository settings
// bots keep, and the `topics` every repository object carries.
describe('repository topics', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'tagged' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'topics') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'tagged', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'push' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('replaces them whole, in order and each once, and every repository object carries them', async () => {
    expect((await as.bob!.repos.getAllTopics(repo)).data).toEqual({ names: [] });
    expect((await as.alice!.repos.replaceAllTopics({ ...repo, names: ['git', 'forge', 'git', 'self-hosted'] })).data).toEqual({ names: ['git', 'forge', 'self-hosted'] });
    expect((await as.bob!.repos.getAllTopics(repo)).data).toEqual({ names: ['git', 'forge', 'self-hosted'] });
    expect((await as.bob!.repos.get(repo)).data.topics).toEqual(['git', 'forge', 'self-hosted']);
    expect((await as.bob!.repos.listForUser({ username: 'alice' })).data[0]!.topics).toEqual(['git', 'forge', 'self-hosted']);
    expect((await as.alice!.repos.replaceAllTopics({ ...repo, names: [] })).data).toEqual({ names: [] });
    expect((await as.bob!.repos.get(repo)).data.topics).toEqual([]);
  });

  it('saves them in lower case, refuses topics GitHub refuses, in its words, and changes by anyone but an admin', async () => {
    // Saved in lower case, as GitHub saves them.
    expect((await as.alice!.repos.replaceAllTopics({ ...repo, names: ['Git', 'GIT', 'Forge'] })).data).toEqual({ names: ['git', 'forge'] });
    await as.alice!.repos.replaceAllTopics({ ...repo, names: [] });
    for (const names of [['-git'], ['x'.repeat(51)], ['a b'], ['é']]) {
      expect(await failure(as.alice!.repos.replaceAllTopics({ ...repo, names }))).toMatchObject({
        status: 422,
        data: { message: 'Validation Failed', errors: ['Topics must start with a lowercase letter or number, consist of 50 characters or less, and can include hyphens.'] },
      });
    }
    expect((await failure(as.alice!.repos.replaceAllTopics({ ...repo, names: Array.from({ length: 21 }, (_, i) => `topic-${i}`) }))).status).toBe(422);
    expect((await failure(as.alice!.request('PUT /repos/{owner}/{repo}/topics', repo as { owner: string; repo: string; names: string[] }))).status).toBe(422);
    expect((await failure(as.bob!.repos.replaceAllTopics({ ...repo, names: ['mine'] }))).status).toBe(403);
    expect((await as.bob!.repos.getAllTopics(repo)).data).toEqual({ names: [] });
  });
});
