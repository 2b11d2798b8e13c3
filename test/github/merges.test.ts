import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, historyOf } from '../helpers/octokit.js';

// GitHub's `POST /repos/{owner}/{repo}/merges` (octokit's `repos.merge`): a branch or commit merged into a branch as a
// merge commit, as release tools that merge `main` back into `develop` ask for it.
describe('merging into a branch', () => {
  let host: RepoHost;
  let history: ReturnType<typeof historyOf>;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'merged' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'merges') });
    }
    history = historyOf(as.alice!, repo);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'merged', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'pull' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('merges a branch as a merge commit of the one who asks, then has nothing more to merge', async () => {
    await history.branchFrom('topic', 'main');
    const topic = await history.write('topic', 'topic.txt', 'topic\n');
    const main = await history.write('main', 'main.txt', 'main moved on\n');

    const answer = await as.alice!.repos.merge({ ...repo, base: 'main', head: 'topic' });
    expect(answer.status).toBe(201);
    expect(answer.data.parents.map((parent) => parent.sha)).toEqual([main, topic]);
    expect(answer.data.commit.message).toBe('Merge topic into main');
    expect(answer.data.commit.author).toMatchObject({ name: 'alice' });
    expect(answer.data.files?.map((file) => file.filename)).toEqual(['topic.txt']);
    // The answer is the commit as GitHub's commit endpoint shows it, and the branch moved to it.
    expect(answer.data).toEqual((await as.alice!.repos.getCommit({ ...repo, ref: answer.data.sha })).data);
    expect(await history.tip('main')).toBe(answer.data.sha);

    expect((await as.alice!.repos.merge({ ...repo, base: 'main', head: 'topic' })).status).toBe(204);
    expect(await history.tip('main')).toBe(answer.data.sha);
  });

  it('merges a commit with the message given, and makes a merge commit where a fast-forward would do', async () => {
    await history.branchFrom('ahead', 'main');
    const ahead = await history.write('ahead', 'ahead.txt', 'ahead\n');
    const main = await history.tip('main');
    const answer = await as.alice!.repos.merge({ ...repo, base: 'main', head: ahead, commit_message: 'Bring ahead in' });
    expect(answer.status).toBe(201);
    expect(answer.data.commit.message).toBe('Bring ahead in');
    expect(answer.data.parents.map((parent) => parent.sha)).toEqual([main, ahead]);
  });

  it("answers GitHub's 409 for a conflict, its 404s, and refuses readers", async () => {
    await history.branchFrom('clash', 'main');
    await history.write('clash', 'shared.txt', 'one side\n');
    await history.write('main', 'shared.txt', 'the other side\n');
    const main = await history.tip('main');
    expect(await failure(as.alice!.repos.merge({ ...repo, base: 'main', head: 'clash' }))).toMatchObject({ status: 409, data: { message: 'Merge conflict' } });
    expect(await history.tip('main')).toBe(main);

    expect(await failure(as.alice!.repos.merge({ ...repo, base: 'nowhere', head: 'clash' }))).toMatchObject({ status: 404, data: { message: 'Base does not exist' } });
    expect(await failure(as.alice!.repos.merge({ ...repo, base: 'main', head: 'nowhere' }))).toMatchObject({ status: 404, data: { message: 'Head does not exist' } });
    expect(await failure(as.alice!.repos.merge({ ...repo, base: 'main', head: 'f'.repeat(40) }))).toMatchObject({ status: 404, data: { message: 'Head does not exist' } });
    const missing = await failure(as.alice!.request('POST /repos/{owner}/{repo}/merges', { ...repo, base: 'main' } as { owner: string; repo: string; base: string; head: string }));
    expect(missing).toMatchObject({ status: 422, data: { message: 'Validation Failed', errors: [{ resource: 'Merge', field: 'head', code: 'missing_field' }] } });
    expect((await failure(as.bob!.repos.merge({ ...repo, base: 'main', head: 'clash' }))).status).toBe(403);
    expect(await history.tip('main')).toBe(main);
  });
});
