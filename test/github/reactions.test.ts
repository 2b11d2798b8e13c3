import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Reactions (octokit's `reactions.*`, which bots use to acknowledge a command): on issues, pull requests, their
// comments, review comments and releases; GitHub's rollups in the objects, 201 then 200, own reactions taken back.
describe('reactions', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'reacted' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'reactions') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'reacted', auto_init: true });
    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('reacts to an issue and its comment: 201, then 200 for the same, counted in the rollups of lists and single objects', async () => {
    const issue = (await as.alice!.issues.create({ ...repo, title: 'Ship it' })).data;
    const ids = { ...repo, issue_number: issue.number };
    expect(issue.reactions).toMatchObject({ total_count: 0, '+1': 0 });

    const first = await as.bob!.reactions.createForIssue({ ...ids, content: '+1' });
    expect(first.status).toBe(201);
    expect(first.data).toMatchObject({ content: '+1', user: { login: 'bob' } });
    expect(typeof first.data.node_id).toBe('string');
    const again = await as.bob!.reactions.createForIssue({ ...ids, content: '+1' });
    expect(again.status).toBe(200);
    expect(again.data.id).toBe(first.data.id);
    await as.carol!.reactions.createForIssue({ ...ids, content: '+1' });
    await as.carol!.reactions.createForIssue({ ...ids, content: 'rocket' });

    const rollup = { total_count: 3, '+1': 2, rocket: 1, '-1': 0, heart: 0 };
    expect((await as.alice!.issues.get(ids)).data.reactions).toMatchObject(rollup);
    const listed = (await as.alice!.issues.listForRepo(repo)).data.find((item) => item.number === issue.number)!;
    expect(listed.reactions).toMatchObject(rollup);
    expect(listed.reactions!.url).toBe(`${host.url}/api/v3/repos/alice/reacted/issues/${issue.number}/reactions`);

    const all = (await as.alice!.reactions.listForIssue(ids)).data;
    expect(all.map((reaction) => [reaction.user?.login, reaction.content])).toEqual([['bob', '+1'], ['carol', '+1'], ['carol', 'rocket']]);
    expect((await as.alice!.reactions.listForIssue({ ...ids, content: 'rocket' })).data.map((reaction) => reaction.user?.login)).toEqual(['carol']);

    const comment = (await as.bob!.issues.createComment({ ...ids, body: '/deploy' })).data;
    expect(comment.reactions).toMatchObject({ total_count: 0 });
    expect((await as.alice!.reactions.createForIssueComment({ ...repo, comment_id: comment.id, content: 'eyes' })).status).toBe(201);
    expect((await as.bob!.issues.getComment({ ...repo, comment_id: comment.id })).data.reactions).toMatchObject({ total_count: 1, eyes: 1 });
    expect((await as.bob!.issues.listComments(ids)).data[0]!.reactions).toMatchObject({ total_count: 1, eyes: 1 });
    // The issue's own rollup is not the comment's.
    expect((await as.alice!.issues.get(ids)).data.reactions!.eyes).toBe(0);
  });

  it('takes back only one’s own reaction, and refuses what GitHub refuses', async () => {
    const issue = (await as.alice!.issues.create({ ...repo, title: 'Reactions come and go' })).data;
    const ids = { ...repo, issue_number: issue.number };
    const heart = (await as.bob!.reactions.createForIssue({ ...ids, content: 'heart' })).data;
    expect((await failure(as.carol!.reactions.deleteForIssue({ ...ids, reaction_id: heart.id }))).status).toBe(404);
    expect((await as.bob!.reactions.deleteForIssue({ ...ids, reaction_id: heart.id })).status).toBe(204);
    expect((await as.alice!.issues.get(ids)).data.reactions).toMatchObject({ total_count: 0, heart: 0 });
    expect((await failure(as.bob!.reactions.deleteForIssue({ ...ids, reaction_id: heart.id }))).status).toBe(404);

    const invalid = await failure(as.bob!.reactions.createForIssue({ ...ids, content: 'thumbsup' as '+1' }));
    expect(invalid.status).toBe(422);
    expect(invalid.data).toMatchObject({ message: 'Validation Failed', errors: [{ resource: 'Reaction', field: 'content', code: 'invalid' }] });
    expect((await failure(as.bob!.reactions.createForIssue({ ...repo, issue_number: 999, content: 'heart' }))).status).toBe(404);
    expect((await failure(as.bob!.reactions.createForIssueComment({ ...repo, comment_id: 987654, content: 'heart' }))).status).toBe(404);
    expect((await failure(as.bob!.reactions.listForIssue({ owner: 'alice', repo: 'hidden', issue_number: 1 }))).status).toBe(404);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).reactions.createForIssue({ ...ids, content: 'heart' }))).status).toBe(401);

    // A locked conversation takes reactions from writers only, as its comments.
    await as.alice!.issues.lock(ids);
    expect(await failure(as.bob!.reactions.createForIssue({ ...ids, content: 'laugh' }))).toMatchObject({ status: 403, data: { message: 'Unable to create reaction because issue is locked.' } });
    expect((await as.alice!.reactions.createForIssue({ ...ids, content: 'laugh' })).status).toBe(201);
  });

  it('reacts to a release (its six reactions) and to a review comment; a deleted comment has none to list', async () => {
    const release = (await as.alice!.repos.createRelease({ ...repo, tag_name: 'v1.0.0' })).data;
    expect(release).not.toHaveProperty('reactions');
    expect((await failure(as.bob!.reactions.createForRelease({ ...repo, release_id: release.id, content: '-1' as 'heart' }))).status).toBe(422);
    expect((await as.bob!.reactions.createForRelease({ ...repo, release_id: release.id, content: 'hooray' })).status).toBe(201);
    expect((await as.bob!.repos.getRelease({ ...repo, release_id: release.id })).data.reactions).toMatchObject({ total_count: 1, hooray: 1 });
    expect((await as.bob!.repos.listReleases(repo)).data[0]!.reactions).toMatchObject({ total_count: 1, hooray: 1 });
    expect((await as.bob!.reactions.listForRelease({ ...repo, release_id: release.id })).data.map((reaction) => reaction.content)).toEqual(['hooray']);

    const main = (await as.alice!.repos.getBranch({ ...repo, branch: 'main' })).data.commit.sha;
    await as.alice!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await as.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'notes.txt', message: 'Notes', content: Buffer.from('one\ntwo\n').toString('base64'), branch: 'topic' });
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Notes', head: 'topic', base: 'main' })).data;
    const comment = (await as.bob!.pulls.createReviewComment({ ...repo, pull_number: pull.number, body: 'Nice', commit_id: pull.head.sha, path: 'notes.txt', line: 2 })).data;
    expect(comment.reactions).toMatchObject({ total_count: 0 });
    expect((await as.alice!.reactions.createForPullRequestReviewComment({ ...repo, comment_id: comment.id, content: 'confused' })).status).toBe(201);
    expect((await as.alice!.pulls.getReviewComment({ ...repo, comment_id: comment.id })).data.reactions).toMatchObject({ total_count: 1, confused: 1 });
    expect((await as.alice!.pulls.listReviewComments({ ...repo, pull_number: pull.number })).data[0]!.reactions).toMatchObject({ confused: 1 });
    // A pull request is reacted to as an issue (its number), and its issue shape says so.
    await as.bob!.reactions.createForIssue({ ...repo, issue_number: pull.number, content: 'heart' });
    expect((await as.alice!.issues.get({ ...repo, issue_number: pull.number })).data.reactions).toMatchObject({ heart: 1 });

    await as.bob!.pulls.deleteReviewComment({ ...repo, comment_id: comment.id });
    expect((await failure(as.alice!.reactions.listForPullRequestReviewComment({ ...repo, comment_id: comment.id }))).status).toBe(404);
  });
});
