import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 21 (and GitHub's notifications API, issue 20): each account's inbox of threads, filled in the write that
// makes the news, for the reasons GitHub gives: mentioned, assigned, review requested, author, commenter, watcher.
describe('notifications', () => {
  let host: RepoHost;
  const tokens: Record<string, string> = {};
  const as = (user: string) => new Octokit({ baseUrl: `${host.url}/api/v3`, auth: tokens[user] });
  /** user's threads as `owner/repo#number reason unread`. */
  const inbox = async (user: string, params: { all?: boolean; participating?: boolean } = {}) =>
    (await as(user).activity.listNotificationsForAuthenticatedUser(params)).data.map((thread) => `${thread.repository.full_name}#${thread.subject.url.split('/').pop()} ${thread.reason}${thread.unread ? ' unread' : ''}`);

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: ['alice', 'bob', 'carol', 'dave'].map((username) => ({ username, email: `${username}@example.com`, password: 'password123' })),
        repositories: [
          { owner: 'alice', name: 'pub', collaborators: { bob: 'write' }, branches: { main: { commits: [{ message: 'one', files: { 'a.txt': 'a\n' } }] }, topic: { from: 'main', commits: [{ message: 'two', files: { 'b.txt': 'b\n' } }] } } },
          { owner: 'alice', name: 'priv', private: true, collaborators: { bob: 'write' } },
        ],
      },
    });
    for (const user of ['alice', 'bob', 'carol', 'dave']) tokens[user] = await host.admin.createToken(user, 'inbox');
    const pub = (await as('alice').repos.get({ owner: 'alice', repo: 'pub' })).data.id;
    expect((await http(`${host.url}/api/v1/repos/${pub}/watch`, { method: 'POST', headers: bearer(tokens.carol!) })).status).toBe(200);
  });

  afterAll(async () => {
    await host?.close();
  });

  it('tells the mentioned, the author, commenters and watchers, never the one who acted nor who may not read', async () => {
    const issue = (await as('bob').issues.create({ owner: 'alice', repo: 'pub', title: 'Broken', body: 'cc @alice and @nobody' })).data;
    expect(await inbox('bob')).toEqual([]);
    expect(await inbox('alice')).toEqual([`alice/pub#${issue.number} mention unread`]);
    expect(await inbox('carol')).toEqual([`alice/pub#${issue.number} subscribed unread`]);
    expect(await inbox('dave')).toEqual([]);
    await as('dave').issues.createComment({ owner: 'alice', repo: 'pub', issue_number: issue.number, body: 'Me too' });
    expect(await inbox('bob')).toEqual([`alice/pub#${issue.number} author unread`]);
    expect(await inbox('dave')).toEqual([]);
    // A private repository: only those who may read it hear of it, whatever the text says.
    const secret = (await as('bob').issues.create({ owner: 'alice', repo: 'priv', title: 'Hush', body: '@dave @carol look' })).data;
    expect(await inbox('dave')).toEqual([]);
    expect(await inbox('carol')).toEqual([`alice/pub#${issue.number} subscribed unread`]);
    expect(await inbox('alice')).toEqual([`alice/pub#${issue.number} mention unread`]);
  });

  it('tells the assignee and the requested reviewer, with their reasons', async () => {
    const pull = (await as('alice').pulls.create({ owner: 'alice', repo: 'pub', head: 'topic', base: 'main', title: 'Topic' })).data;
    await as('alice').pulls.requestReviewers({ owner: 'alice', repo: 'pub', pull_number: pull.number, reviewers: ['bob'] });
    expect(await inbox('bob')).toContain(`alice/pub#${pull.number} review_requested unread`);
    // A review's summary and line comments call on people too.
    await as('bob').pulls.createReview({ owner: 'alice', repo: 'pub', pull_number: pull.number, event: 'COMMENT', body: 'Looks fine; @carol may know more' });
    expect(await inbox('carol')).toContain(`alice/pub#${pull.number} mention unread`);
    const issue = (await as('alice').issues.create({ owner: 'alice', repo: 'pub', title: 'For dave' })).data;
    await as('alice').issues.addAssignees({ owner: 'alice', repo: 'pub', issue_number: issue.number, assignees: ['bob'] });
    expect(await inbox('bob')).toContain(`alice/pub#${issue.number} assign unread`);
    // Participating: the mention, not the threads carol only watches.
    expect(await inbox('carol', { participating: true })).toEqual([`alice/pub#${pull.number} mention unread`]);
    expect((await inbox('carol')).length).toBeGreaterThan(1);
    const threads = (await as('bob').activity.listNotificationsForAuthenticatedUser()).data;
    const thread = threads.find((entry) => entry.subject.type === 'PullRequest')!;
    expect(thread).toMatchObject({ reason: 'review_requested', unread: true, subject: { title: 'Topic', type: 'PullRequest', url: `${host.url}/api/v3/repos/alice/pub/pulls/${pull.number}` }, repository: { full_name: 'alice/pub' }, url: `${host.url}/api/v3/notifications/threads/${thread.id}` });
    expect(thread.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('marks threads read one by one, per repository or all, and done; reading stays until news comes', async () => {
    const bob = as('bob');
    const [first] = (await bob.activity.listNotificationsForAuthenticatedUser()).data;
    expect((await bob.activity.markThreadAsRead({ thread_id: Number(first!.id) })).status).toBe(205);
    expect((await bob.activity.getThread({ thread_id: Number(first!.id) })).data).toMatchObject({ unread: false, last_read_at: expect.stringMatching(/Z$/) });
    expect((await bob.activity.listNotificationsForAuthenticatedUser({ all: true })).data.some((thread) => thread.id === first!.id)).toBe(true);
    expect((await bob.activity.listNotificationsForAuthenticatedUser()).data.some((thread) => thread.id === first!.id)).toBe(false);
    // News on bob's private issue, then one repository marked read: the other's thread stays unread.
    await as('alice').issues.createComment({ owner: 'alice', repo: 'priv', issue_number: 1, body: 'Seen' });
    expect((await bob.activity.markRepoNotificationsAsRead({ owner: 'alice', repo: 'pub' })).status).toBe(205);
    expect(await inbox('bob')).toEqual(['alice/priv#1 author unread']);
    expect((await bob.activity.listRepoNotificationsForAuthenticatedUser({ owner: 'alice', repo: 'pub' })).data).toEqual([]);
    expect((await bob.activity.markNotificationsAsRead()).status).toBe(205);
    expect(await inbox('bob')).toEqual([]);
    // News makes a read thread unread again.
    const issueNumber = Number(first!.subject.url.split('/').pop());
    await as('alice').issues.createComment({ owner: 'alice', repo: 'pub', issue_number: issueNumber, body: 'Another' });
    expect((await bob.activity.getThread({ thread_id: Number(first!.id) })).data.unread).toBe(true);
    expect((await bob.activity.markThreadAsDone({ thread_id: Number(first!.id) })).status).toBe(204);
    expect((await failure(bob.activity.getThread({ thread_id: Number(first!.id) }))).status).toBe(404);
    // Done is not unsubscribed: news brings the same thread back, unread.
    await as('alice').issues.createComment({ owner: 'alice', repo: 'pub', issue_number: issueNumber, body: 'And again' });
    expect((await bob.activity.getThread({ thread_id: Number(first!.id) })).data.unread).toBe(true);
    expect((await bob.activity.getThreadSubscriptionForAuthenticatedUser({ thread_id: Number(first!.id) })).data).toMatchObject({ subscribed: true, ignored: false });
    // Someone else's thread is not found; no credentials are asked for.
    const [aliceThread] = (await as('alice').activity.listNotificationsForAuthenticatedUser({ all: true })).data;
    expect((await failure(bob.activity.getThread({ thread_id: Number(aliceThread!.id) }))).status).toBe(404);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).activity.listNotificationsForAuthenticatedUser())).status).toBe(401);
    expect((await failure(bob.request('GET /notifications', { all: 'yes' as unknown as boolean }))).status).toBe(422);
    expect((await failure(bob.request('GET /notifications', { since: 'yesterday' }))).status).toBe(422);
    expect((await failure(bob.request('PUT /notifications', { last_read_at: 5 as unknown as string }))).status).toBe(422);
  });

  it("hides a private repository's threads, and leaves them out of the counts, once the account may not read it", async () => {
    const bob = as('bob');
    await bob.activity.markNotificationsAsRead();
    await as('alice').issues.createComment({ owner: 'alice', repo: 'priv', issue_number: 1, body: 'Still there?' });
    expect(await inbox('bob')).toEqual(['alice/priv#1 author unread']);
    await as('alice').repos.removeCollaborator({ owner: 'alice', repo: 'priv', username: 'bob' });
    expect(await inbox('bob')).toEqual([]);
    const listed = await bob.activity.listNotificationsForAuthenticatedUser({ all: true });
    expect(listed.data.some((thread) => thread.repository.full_name === 'alice/priv')).toBe(false);
    expect(listed.headers['x-total-count']).toBe(String(listed.data.length));
  });
});
