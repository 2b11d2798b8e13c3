import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, historyOf } from '../helpers/octokit.js';

// GitHub's `PUT /repos/{owner}/{repo}/pulls/{number}/update-branch` (octokit's `pulls.updateBranch`): the base branch
// merged into the head branch, as bots that keep pull requests up to date ask for it.
describe('updating a pull request branch', () => {
  let host: RepoHost;
  let history: ReturnType<typeof historyOf>;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'updated' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'update') });
    }
    history = historyOf(as.alice!, repo);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'updated', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'pull' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('merges the base into the head as a merge commit of the one who asks, which the pull request follows', async () => {
    await as.alice!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: await history.tip('main') });
    await history.write('topic', 'topic.txt', 'topic\n');
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    await history.write('main', 'main.txt', 'main moved on\n');
    const [head, base] = [await history.tip('topic'), await history.tip('main')];

    expect((await failure(as.alice!.pulls.updateBranch({ ...repo, pull_number: pull.number, expected_head_sha: base }))).status).toBe(422);
    expect((await failure(as.bob!.pulls.updateBranch({ ...repo, pull_number: pull.number }))).status).toBe(403);
    expect(await history.tip('topic')).toBe(head);

    const answer = await as.alice!.pulls.updateBranch({ ...repo, pull_number: pull.number, expected_head_sha: head });
    expect(answer.status).toBe(202);
    expect(answer.data).toEqual({ message: 'Updating pull request branch.', url: `${host.url}/alice/updated/pulls/${pull.number}` });
    const merge = (await as.alice!.git.getCommit({ ...repo, commit_sha: await history.tip('topic') })).data;
    expect(merge.parents.map((parent) => parent.sha)).toEqual([head, base]);
    expect(merge.message).toBe("Merge branch 'main' into topic\n");
    expect(merge.author).toMatchObject({ name: 'alice' });
    expect((await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.head.sha).toBe(merge.sha);
    expect((await as.alice!.pulls.listFiles({ ...repo, pull_number: pull.number })).data.map((file) => file.filename)).toEqual(['topic.txt']);

    // Nothing new on the base: refused, the head left as it is.
    const again = await failure(as.alice!.pulls.updateBranch({ ...repo, pull_number: pull.number }));
    expect(again.status).toBe(422);
    expect(JSON.stringify(again.data)).toContain('There are no new commits on the base branch.');
  });

  it('refuses a base that conflicts with the head, moving nothing', async () => {
    await as.alice!.git.createRef({ ...repo, ref: 'refs/heads/clash', sha: await history.tip('main') });
    await history.write('clash', 'README.md', 'the head says this\n');
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Clash', head: 'clash', base: 'main' })).data;
    await history.write('main', 'README.md', 'the base says that\n');
    const head = await history.tip('clash');
    const refused = await failure(as.alice!.pulls.updateBranch({ ...repo, pull_number: pull.number }));
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.data)).toContain('merge conflict between base and head');
    expect(await history.tip('clash')).toBe(head);
  });
});
