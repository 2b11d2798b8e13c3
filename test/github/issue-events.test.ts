import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';
import { tokenCookie } from '../helpers/api.js';

// Issues 20 and 21: what happened to an issue or pull request besides its comments, through GitHub's issue events and
// timeline endpoints (the pages' timeline reads the same rows).
describe('issue events and the timeline', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'history' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'events') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'history', auto_init: true });
    const token = await host.admin.createToken('alice', 'v1');
    expect((await http(`${host.url}/api/v1/repos/alice/history/collaborators/bob`, { method: 'PUT', headers: bearer(token), json: { permission: 'write' } })).status).toBeLessThan(300);
    await as.alice!.issues.createLabel({ ...repo, name: 'bug', color: 'd73a4a' });
    await as.alice!.issues.createMilestone({ ...repo, title: 'v1.0' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it("lists an issue's labels, assignees, milestone, rename, closing and reopening in order, in GitHub's shape", async () => {
    const issue = (await as.bob!.issues.create({ ...repo, title: 'Crash on start' })).data;
    const at = { ...repo, issue_number: issue.number };
    await as.alice!.issues.addLabels({ ...at, labels: ['bug'] });
    await as.alice!.issues.addAssignees({ ...at, assignees: ['bob'] });
    await as.alice!.issues.update({ ...at, milestone: 1 });
    await as.bob!.issues.update({ ...at, title: 'Crash on first start' });
    await as.alice!.issues.createComment({ ...at, body: 'Looking into it' });
    await as.alice!.issues.update({ ...at, state: 'closed', state_reason: 'not_planned' });
    await as.alice!.issues.update({ ...at, state: 'open' });
    await as.alice!.issues.removeLabel({ ...at, name: 'bug' });
    await as.alice!.issues.update({ ...at, milestone: null });
    await as.alice!.issues.removeAssignees({ ...at, assignees: ['bob'] });

    expect((await as.bob!.issues.get(at)).data.closed_by).toBeNull();
    await as.bob!.issues.update({ ...at, state: 'closed' });
    expect((await as.alice!.issues.get(at)).data.closed_by?.login).toBe('bob');
    await as.bob!.issues.update({ ...at, state: 'open' });
    const events = (await as.bob!.issues.listEvents(at)).data.slice(0, -2);
    expect(events.map((event) => `${event.event} ${event.actor?.login}`)).toEqual([
      'labeled alice',
      'assigned alice',
      'milestoned alice',
      'renamed bob',
      'closed alice',
      'reopened alice',
      'unlabeled alice',
      'demilestoned alice',
      'unassigned alice',
    ]);
    const [labeled, assigned, milestoned, renamed, closed, reopened] = events as Array<Record<string, unknown>>;
    expect(labeled).toMatchObject({ label: { name: 'bug', color: 'd73a4a' }, commit_id: null, commit_url: null, performed_via_github_app: null });
    expect(assigned).toMatchObject({ assignee: { login: 'bob' }, assigner: { login: 'alice' } });
    expect(milestoned).toMatchObject({ milestone: { title: 'v1.0' } });
    expect(renamed).toMatchObject({ rename: { from: 'Crash on start', to: 'Crash on first start' } });
    expect(closed).toMatchObject({ state_reason: 'not_planned' });
    expect(reopened).toMatchObject({ state_reason: 'reopened' });
    expect(labeled!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(labeled!.url).toBe(`${host.url}/api/v3/repos/alice/history/issues/events/${labeled!.id as number}`);

    // One event by its id; another repository's or an unknown id is 404.
    expect((await as.bob!.issues.getEvent({ ...repo, event_id: labeled!.id as number })).data).toMatchObject({ event: 'labeled', label: { name: 'bug' } });
    expect((await failure(as.bob!.issues.getEvent({ ...repo, event_id: 999_999 }))).status).toBe(404);

    // The timeline puts the comment between the rename and the closing, as it happened.
    const timeline = (await as.bob!.issues.listEventsForTimeline(at)).data as Array<{ event?: string; body?: string; actor?: { login: string } | null }>;
    expect(timeline.map((item) => item.event)).toEqual(['labeled', 'assigned', 'milestoned', 'renamed', 'commented', 'closed', 'reopened', 'unlabeled', 'demilestoned', 'unassigned', 'closed', 'reopened']);
    expect(timeline[4]).toMatchObject({ body: 'Looking into it', actor: { login: 'alice' } });

    // Pages of both lists, with GitHub's Link header.
    const first = await as.bob!.issues.listEventsForTimeline({ ...at, per_page: 4 });
    expect(first.data.map((item) => (item as { event?: string }).event)).toEqual(['labeled', 'assigned', 'milestoned', 'renamed']);
    expect(first.headers.link).toContain('rel="next"');
    const second = await as.bob!.issues.listEventsForTimeline({ ...at, per_page: 4, page: 2 });
    expect(second.data.map((item) => (item as { event?: string }).event)).toEqual(['commented', 'closed', 'reopened', 'unlabeled']);
    expect((await as.bob!.issues.listEvents({ ...at, per_page: 2, page: 6 })).data.map((event) => event.event)).toEqual(['reopened']);
  });

  it('lists review requests, the merge and the closing of a pull request', async () => {
    const main = (await as.alice!.repos.getBranch({ ...repo, branch: 'main' })).data.commit.sha;
    await as.alice!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await as.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'topic.txt', message: 'Topic', content: Buffer.from('topic\n').toString('base64'), branch: 'topic' });
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    await as.alice!.pulls.requestReviewers({ ...repo, pull_number: pull.number, reviewers: ['bob'] });
    await as.alice!.pulls.removeRequestedReviewers({ ...repo, pull_number: pull.number, reviewers: ['bob'] });
    const merged = (await as.alice!.pulls.merge({ ...repo, pull_number: pull.number })).data;

    // The one issue says who closed it; lists leave it out, as GitHub's do.
    expect((await as.bob!.issues.get({ ...repo, issue_number: pull.number })).data.closed_by?.login).toBe('alice');
    expect((await as.bob!.issues.listForRepo({ ...repo, state: 'closed' })).data.every((issue) => !('closed_by' in issue))).toBe(true);
    const events = (await as.bob!.issues.listEvents({ ...repo, issue_number: pull.number })).data as Array<Record<string, unknown>>;
    expect(events.map((event) => event.event)).toEqual(['review_requested', 'review_request_removed', 'merged', 'closed']);
    expect(events[0]).toMatchObject({ actor: { login: 'alice' }, review_requester: { login: 'alice' }, requested_reviewer: { login: 'bob' } });
    expect(events[2]).toMatchObject({ commit_id: merged.sha, commit_url: `${host.url}/api/v3/repos/alice/history/commits/${merged.sha}` });
  });

  it('keeps the events of a private repository from those who may not read it', async () => {
    await as.alice!.repos.createForAuthenticatedUser({ name: 'secret', private: true });
    const issue = (await as.alice!.issues.create({ owner: 'alice', repo: 'secret', title: 'Hidden' })).data;
    await as.alice!.issues.update({ owner: 'alice', repo: 'secret', issue_number: issue.number, state: 'closed' });
    expect((await as.alice!.issues.listEvents({ owner: 'alice', repo: 'secret', issue_number: issue.number })).data.map((event) => event.event)).toEqual(['closed']);
    for (const path of [`issues/${issue.number}/events`, `issues/${issue.number}/timeline`]) {
      expect((await http(`${host.url}/api/v3/repos/alice/secret/${path}`)).status).toBe(404);
      expect((await failure(as.bob!.request(`GET /repos/alice/secret/${path}`))).status).toBe(404);
    }
  });

  it('shows cross-references on the timeline of the issue mentioned, only to those who may read where they came from', async () => {
    const target = (await as.alice!.issues.create({ ...repo, title: 'Target' })).data;
    const mentioning = (await as.bob!.issues.create({ ...repo, title: 'Related work', body: `Follows #${target.number}; not \`#${target.number + 100}\`` })).data;
    // Mentioned again: one cross-reference per source. A mention in code is none.
    await as.bob!.issues.createComment({ ...repo, issue_number: mentioning.number, body: `Again alice/history#${target.number}\n\n\`\`\`\n#${mentioning.number}\n\`\`\`` });
    await as.alice!.repos.createForAuthenticatedUser({ name: 'vault', private: true });
    await as.alice!.issues.create({ owner: 'alice', repo: 'vault', title: 'Private plans', body: `Blocks alice/history#${target.number}` });

    const timeline = async (who: Octokit) => (await who.issues.listEventsForTimeline({ ...repo, issue_number: target.number })).data as Array<{ event?: string; source?: { type: string; issue: { number: number; title: string; repository: { full_name: string } } } }>;
    const fromAlice = (await timeline(as.alice!)).filter((item) => item.event === 'cross-referenced');
    expect(fromAlice.map((item) => `${item.source!.issue.repository.full_name}#${item.source!.issue.number} ${item.source!.issue.title}`)).toEqual([
      `alice/history#${mentioning.number} Related work`,
      'alice/vault#1 Private plans',
    ]);
    expect(fromAlice[0]).toMatchObject({ source: { type: 'issue' }, actor: { login: 'bob' } });
    // Bob may not read the private repository: its mention is not his to see, nor to count.
    expect((await timeline(as.bob!)).filter((item) => item.event === 'cross-referenced').map((item) => item.source!.issue.repository.full_name)).toEqual(['alice/history']);
    const bobs = await as.bob!.issues.listEventsForTimeline({ ...repo, issue_number: target.number });
    expect(Number(bobs.headers['x-total-count'])).toBe(bobs.data.length);
    const alices = await as.alice!.issues.listEventsForTimeline({ ...repo, issue_number: target.number });
    expect(Number(alices.headers['x-total-count'])).toBe(bobs.data.length + 1);
    // Nor may he write onto its timeline by mentioning it.
    await as.bob!.issues.createComment({ ...repo, issue_number: target.number, body: 'Is this alice/vault#1?' });
    expect((await as.alice!.issues.listEventsForTimeline({ owner: 'alice', repo: 'vault', issue_number: 1 })).data).toEqual([]);
    // The issue events list has no cross-references (GitHub's has them on the timeline only); nothing was noted on the code's numbers.
    expect((await as.alice!.issues.listEvents({ ...repo, issue_number: target.number })).data).toEqual([]);
    expect((await as.alice!.issues.listEventsForTimeline({ ...repo, issue_number: mentioning.number })).data.filter((item) => (item as { event?: string }).event === 'cross-referenced')).toEqual([]);

    // The page shows them the same way.
    const page = async (headers: Record<string, string> = {}) => (await http(`${host.url}/alice/history/issues/${target.number}`, { headers })).text;
    const anonymous = await page();
    expect(anonymous).toContain(`mentioned this in <a href="/alice/history/issues/${mentioning.number}">Related work <span class="muted">#${mentioning.number}</span></a>`);
    expect(anonymous).not.toContain('Private plans');
    const alice = tokenCookie(await http(`${host.url}/login`, { form: { username: 'alice', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    expect(await page({ cookie: alice })).toContain('Private plans <span class="muted">alice/vault#1</span>');
  });

  it("notes a pull request's head branch force-pushed and deleted", async () => {
    const main = (await as.alice!.repos.getBranch({ ...repo, branch: 'main' })).data.commit.sha;
    await as.alice!.git.createRef({ ...repo, ref: 'refs/heads/rewrite', sha: main });
    const first = (await as.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'rewrite.txt', message: 'First try', content: Buffer.from('one\n').toString('base64'), branch: 'rewrite' })).data.commit.sha!;
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Rewrite', head: 'rewrite', base: 'main' })).data;
    // A fast-forward is no force push.
    const second = (await as.alice!.repos.createOrUpdateFileContents({ ...repo, path: 'rewrite2.txt', message: 'More', content: Buffer.from('two\n').toString('base64'), branch: 'rewrite' })).data.commit.sha!;
    expect(second).not.toBe(first);
    // Back to another commit that is not a descendant: forced.
    const tree = (await as.alice!.git.getCommit({ ...repo, commit_sha: first })).data.tree.sha;
    const other = (await as.alice!.git.createCommit({ ...repo, message: 'Second try', tree, parents: [main] })).data.sha;
    await as.alice!.git.updateRef({ ...repo, ref: 'heads/rewrite', sha: other, force: true });
    await as.alice!.git.deleteRef({ ...repo, ref: 'heads/rewrite' });
    const events = (await as.bob!.issues.listEvents({ ...repo, issue_number: pull.number })).data as Array<Record<string, unknown>>;
    expect(events.map((event) => event.event)).toEqual(['head_ref_force_pushed', 'head_ref_deleted']);
    expect(events[0]).toMatchObject({ actor: { login: 'alice' }, commit_id: other });
    // The commits pushed in between are on the page's timeline (GitHub's events API has no event for them).
    const page = (await http(`${host.url}/${repo.owner}/${repo.repo}/pulls/${pull.number}`)).text;
    expect(page).toContain(`pushed <a href="/${repo.owner}/${repo.repo}/compare/${first}...${second}">1 commit</a>, up to <a href="/${repo.owner}/${repo.repo}/commit/${second}"><code>${second.slice(0, 7)}</code></a>`);
  });

  it("lists every issue's and pull request's events of the repository, newest first, each with its issue", async () => {
    const issue = (await as.alice!.issues.create({ ...repo, title: 'Last one' })).data;
    await as.alice!.issues.addLabels({ ...repo, issue_number: issue.number, labels: ['bug'] });
    await as.alice!.issues.update({ ...repo, issue_number: issue.number, state: 'closed' });
    const first = await as.bob!.issues.listEventsForRepo({ ...repo, per_page: 2 });
    expect(first.data.map((event) => [event.event, event.issue?.number, event.issue?.title])).toEqual([
      ['closed', issue.number, 'Last one'],
      ['labeled', issue.number, 'Last one'],
    ]);
    const all = await as.bob!.paginate(as.bob!.issues.listEventsForRepo, { ...repo, per_page: 100 });
    expect(Number(first.headers['x-total-count'])).toBe(all.length);
    // Pull requests' events carry the pull request as an issue; cross-references are the timelines' alone.
    expect(all.some((event) => event.event === 'merged' && event.issue?.pull_request !== undefined)).toBe(true);
    expect(all.some((event) => (event.event as string) === 'cross-referenced')).toBe(false);
    expect((await http(`${host.url}/api/v3/repos/alice/vault/issues/events`)).status).toBe(404);
  });
});
