import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, historyOf } from '../helpers/octokit.js';

// GitHub's commit comments (octokit's `repos.createCommitComment`, `listCommentsForCommit`,
// `listCommitCommentsForRepo`, `getCommitComment`, `updateCommitComment`, `deleteCommitComment`), what deploy and CI
// bots post where a commit has no pull request, with their reactions and the commits' `comment_count`.
describe('commit comments', () => {
  let host: RepoHost;
  let history: ReturnType<typeof historyOf>;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'discussed' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol', 'erin']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'comments') });
    }
    history = historyOf(as.alice!, repo);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'discussed', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'carol', permission: 'push' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('comments on a commit and on a line of a file it changed, lists them oldest first, and counts them', async () => {
    const sha = await history.write('main', 'notes.txt', 'one\ntwo\nthree\n');
    const made = await as.bob!.repos.createCommitComment({ ...repo, commit_sha: sha, body: 'Deployed to staging' });
    expect(made.status).toBe(201);
    expect(made.data).toMatchObject({
      body: 'Deployed to staging',
      commit_id: sha,
      path: null,
      position: null,
      line: null,
      user: { login: 'bob' },
      author_association: 'NONE',
      url: `${host.url}/api/v3/repos/alice/discussed/comments/${made.data.id}`,
      html_url: `${host.url}/alice/discussed/commit/${sha}#commitcomment-${made.data.id}`,
      reactions: { total_count: 0, url: `${host.url}/api/v3/repos/alice/discussed/comments/${made.data.id}/reactions` },
    });
    expect(made.headers.location).toBe(made.data.url);
    const onLine = (await as.alice!.repos.createCommitComment({ ...repo, commit_sha: sha, body: 'Why three?', path: 'notes.txt', position: 3 })).data;
    expect(onLine).toMatchObject({ path: 'notes.txt', position: 3, author_association: 'OWNER' });

    const listed = (await as.erin!.repos.listCommentsForCommit({ ...repo, commit_sha: sha })).data;
    expect(listed.map((comment) => comment.id)).toEqual([made.data.id, onLine.id]);
    expect(listed[0]).toEqual(made.data);
    expect((await as.erin!.repos.getCommitComment({ ...repo, comment_id: onLine.id })).data).toEqual(onLine);
    // A branch name stands for its tip, as for the other commit endpoints.
    expect((await as.erin!.repos.listCommentsForCommit({ ...repo, commit_sha: 'main' })).data.map((comment) => comment.id)).toEqual([made.data.id, onLine.id]);

    // The commit counts them, alone and in lists.
    expect((await as.erin!.repos.getCommit({ ...repo, ref: sha })).data.commit.comment_count).toBe(2);
    const commits = (await as.erin!.repos.listCommits(repo)).data;
    expect(commits.map((commit) => commit.commit.comment_count)).toEqual([2, 0]);

    // Every commit's comments of the repository, oldest first.
    const other = await history.write('main', 'more.txt', 'more\n');
    const third = (await as.carol!.repos.createCommitComment({ ...repo, commit_sha: other, body: 'And this one' })).data;
    expect(third.author_association).toBe('COLLABORATOR');
    const all = await as.erin!.paginate(as.erin!.repos.listCommitCommentsForRepo, { ...repo, per_page: 2 });
    expect(all.map((comment) => comment.id)).toEqual([made.data.id, onLine.id, third.id]);
  });

  it('lets the author edit, the author or a writer delete, with reactions going with the comment', async () => {
    const sha = await history.write('main', 'edited.txt', 'edited\n');
    const comment = (await as.bob!.repos.createCommitComment({ ...repo, commit_sha: sha, body: 'First words' })).data;
    expect((await as.bob!.repos.updateCommitComment({ ...repo, comment_id: comment.id, body: 'Better words' })).data).toMatchObject({ id: comment.id, body: 'Better words' });
    expect((await failure(as.erin!.repos.updateCommitComment({ ...repo, comment_id: comment.id, body: 'Mine now' }))).status).toBe(403);

    expect((await as.erin!.reactions.createForCommitComment({ ...repo, comment_id: comment.id, content: 'rocket' })).status).toBe(201);
    expect((await as.alice!.repos.getCommitComment({ ...repo, comment_id: comment.id })).data.reactions).toMatchObject({ total_count: 1, rocket: 1 });
    expect((await as.alice!.reactions.listForCommitComment({ ...repo, comment_id: comment.id })).data.map((reaction) => reaction.user?.login)).toEqual(['erin']);

    expect((await failure(as.erin!.repos.deleteCommitComment({ ...repo, comment_id: comment.id }))).status).toBe(403);
    expect((await as.carol!.repos.deleteCommitComment({ ...repo, comment_id: comment.id })).status).toBe(204);
    expect((await failure(as.alice!.repos.getCommitComment({ ...repo, comment_id: comment.id }))).status).toBe(404);
    expect((await failure(as.alice!.reactions.listForCommitComment({ ...repo, comment_id: comment.id }))).status).toBe(404);
    expect((await as.alice!.repos.getCommit({ ...repo, ref: sha })).data.commit.comment_count).toBe(0);
  });

  it('refuses what it cannot place, and keeps private repositories hidden', async () => {
    const sha = await history.write('main', 'placed.txt', 'a\nb\n');
    const refused = async (extra: Record<string, unknown>) => (await failure(as.alice!.repos.createCommitComment({ ...repo, commit_sha: sha, body: 'x', ...extra }))).status;
    expect(await refused({ path: 'README.md', position: 1 })).toBe(422);
    expect(await refused({ path: 'placed.txt', position: 99 })).toBe(422);
    expect(await refused({ position: 1 })).toBe(422);
    expect(await refused({ body: '' })).toBe(422);
    expect(await failure(as.alice!.repos.createCommitComment({ ...repo, commit_sha: 'f'.repeat(40), body: 'x' }))).toMatchObject({ status: 422, data: { message: `No commit found for SHA: ${'f'.repeat(40)}` } });
    const missing = await failure(as.alice!.request('POST /repos/{owner}/{repo}/commits/{commit_sha}/comments', { ...repo, commit_sha: sha } as { owner: string; repo: string; commit_sha: string; body: string }));
    expect(missing).toMatchObject({ status: 422, data: { errors: [{ resource: 'CommitComment', field: 'body', code: 'missing_field' }] } });
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).repos.createCommitComment({ ...repo, commit_sha: sha, body: 'x' }))).status).toBe(401);

    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
    const hidden = { owner: 'alice', repo: 'hidden' };
    const secret = (await as.alice!.repos.createCommitComment({ ...hidden, commit_sha: 'main', body: 'Only us' })).data;
    expect((await failure(as.erin!.repos.listCommitCommentsForRepo(hidden))).status).toBe(404);
    expect((await failure(as.erin!.repos.getCommitComment({ ...hidden, comment_id: secret.id }))).status).toBe(404);
    expect((await failure(as.erin!.repos.createCommitComment({ ...hidden, commit_sha: 'main', body: 'Let me in' }))).status).toBe(404);
    // A comment of one repository is not found through another.
    expect((await failure(as.alice!.repos.getCommitComment({ ...repo, comment_id: secret.id }))).status).toBe(404);
  });
});
