import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { http, startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';
import { HookReceiver } from '../helpers/receiver.js';

// Locked conversations (octokit's `issues.lock` / `issues.unlock`, as lock-threads bots call them): GitHub's `locked`
// and `active_lock_reason`, its `locked`/`unlocked` events, and comments from writers only while locked.
describe('locking conversations', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'locked' };

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    receiver = await HookReceiver.start();
    for (const username of ['alice', 'bob', 'carol']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'locks') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'locked', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'pull' });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'carol', permission: 'push' });
    await as.alice!.repos.createWebhook({ ...repo, config: { url: receiver.url, content_type: 'json' }, events: ['issues', 'pull_request'] });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('locks an issue with a reason: only writers comment, its events and webhooks say so, and unlocking undoes it', async () => {
    const issue = (await as.bob!.issues.create({ ...repo, title: 'A long thread' })).data;
    const ids = { ...repo, issue_number: issue.number };
    expect(issue).toMatchObject({ locked: false, active_lock_reason: null });
    expect((await as.alice!.issues.lock({ ...ids, lock_reason: 'resolved' })).status).toBe(204);
    expect((await as.bob!.issues.get(ids)).data).toMatchObject({ locked: true, active_lock_reason: 'resolved' });

    const refused = await failure(as.bob!.issues.createComment({ ...ids, body: 'One more thing' }));
    expect(refused.status).toBe(403);
    expect(refused.data.message).toBe('Unable to create comment because issue is locked.');
    expect((await as.carol!.issues.createComment({ ...ids, body: 'Writers still may' })).status).toBe(201);
    expect((await failure(as.bob!.issues.lock(ids))).status).toBe(403);
    expect((await failure(as.alice!.issues.lock({ ...ids, lock_reason: 'boring' as 'spam' }))).status).toBe(422);

    // The page says so, and offers no comment form to those who may not comment.
    const page = await http(`${host.url}/alice/locked/issues/${issue.number}`);
    expect(page.text).toContain('This conversation has been locked as <strong>resolved</strong> and limited to collaborators.');
    expect(page.text).not.toContain('Sign in</a> to join this conversation');
    const [hook] = await receiver.waitFor((received) => received.json?.action === 'locked');
    expect(hook!.json).toMatchObject({ action: 'locked', issue: { number: issue.number, locked: true, active_lock_reason: 'resolved' } });

    expect((await as.alice!.issues.unlock(ids)).status).toBe(204);
    expect((await as.bob!.issues.get(ids)).data).toMatchObject({ locked: false, active_lock_reason: null });
    expect((await as.bob!.issues.createComment({ ...ids, body: 'Open again' })).status).toBe(201);
    await receiver.waitFor((received) => received.json?.action === 'unlocked');
    const events = (await as.alice!.issues.listEvents(ids)).data.filter((event) => event.event === 'locked' || event.event === 'unlocked');
    // octokit's union of issue events types `lock_reason` on the locked event alone.
    expect(events.map((event) => [event.event, (event as { lock_reason?: string }).lock_reason, event.actor?.login])).toEqual([
      ['locked', 'resolved', 'alice'],
      ['unlocked', undefined, 'alice'],
    ]);
  });

  it('locks a pull request through its issue number, without a reason', async () => {
    const main = (await as.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await as.alice!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await as.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'topic.txt', branch: 'topic', message: 'Topic', content: Buffer.from('topic\n').toString('base64') });
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    await as.alice!.issues.lock({ ...repo, issue_number: pull.number });
    expect((await as.bob!.pulls.get({ ...repo, pull_number: pull.number })).data).toMatchObject({ locked: true, active_lock_reason: null });
    expect((await as.bob!.issues.get({ ...repo, issue_number: pull.number })).data).toMatchObject({ locked: true });
    expect((await failure(as.bob!.issues.createComment({ ...repo, issue_number: pull.number, body: 'x' }))).status).toBe(403);
    // Nor a review, or a comment on its diff.
    expect((await failure(as.bob!.pulls.createReview({ ...repo, pull_number: pull.number, event: 'COMMENT', body: 'x' }))).status).toBe(403);
    expect((await failure(as.bob!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'topic.txt', line: 1, body: 'x' }))).status).toBe(403);
    expect((await as.carol!.pulls.createReviewComment({ ...repo, pull_number: pull.number, commit_id: pull.head.sha, path: 'topic.txt', line: 1, body: 'A writer may' })).status).toBe(201);
    const [hook] = await receiver.waitFor((received) => received.headers['x-github-event'] === 'pull_request' && received.json?.action === 'locked');
    expect(hook!.json).toMatchObject({ number: pull.number, pull_request: { locked: true, active_lock_reason: null } });
  });
});
