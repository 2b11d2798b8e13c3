import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 20 (triage): assignees of issues and pull requests, the assignee filter, and who may be assigned.
describe('assignees', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'triaged' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob', 'carol']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'triage') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'triaged', auto_init: true });
    const token = await host.admin.createToken('alice', 'v1');
    expect((await http(`${host.url}/api/v1/repos/alice/triaged/collaborators/bob`, { method: 'PUT', headers: bearer(token), json: { permission: 'write' } })).status).toBeLessThan(300);
  });

  afterAll(async () => {
    await host?.close();
  });

  it('assigns on create and edit, adds and removes, and refuses accounts that may not be assigned', async () => {
    const heard: string[] = [];
    const stop = host.events.on('issues', (payload) => {
      if (payload.action === 'assigned' || payload.action === 'unassigned') heard.push(`${payload.action} ${payload.assignee?.login}`);
    });
    try {
      const issue = (await as.alice!.issues.create({ ...repo, title: 'Fix it', assignees: ['bob'] })).data;
      expect(issue.assignees?.map((user) => user.login)).toEqual(['bob']);
      expect(issue.assignee?.login).toBe('bob');
      // As on GitHub, assignees given by someone without push access are dropped.
      const stranger = (await as.carol!.issues.create({ ...repo, title: 'Mine', assignees: ['bob'] })).data;
      expect(stranger.assignees).toEqual([]);

      const added = await as.alice!.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: ['alice'] });
      expect(added.status).toBe(201);
      expect(added.data.assignees?.map((user) => user.login)).toEqual(['bob', 'alice']);
      expect((await failure(as.alice!.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: ['carol'] }))).status).toBe(422);
      expect((await failure(as.carol!.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: ['alice'] }))).status).toBe(403);
      const removed = await as.alice!.issues.removeAssignees({ ...repo, issue_number: issue.number, assignees: ['bob'] });
      expect(removed.data.assignees?.map((user) => user.login)).toEqual(['alice']);
      const replaced = await as.alice!.issues.update({ ...repo, issue_number: issue.number, assignees: ['bob'] });
      expect(replaced.data.assignees?.map((user) => user.login)).toEqual(['bob']);
      const cleared = await as.alice!.issues.update({ ...repo, issue_number: issue.number, assignee: null });
      expect(cleared.data.assignees).toEqual([]);
      await host.idle();
      expect(heard).toEqual(['assigned bob', 'assigned alice', 'unassigned bob', 'unassigned alice', 'assigned bob', 'unassigned bob']);
    } finally {
      stop();
    }
  });

  it('assigns pull requests by their number, and filters the issue list by assignee', async () => {
    const main = (await as.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await as.bob!.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await as.bob!.repos.createOrUpdateFileContents({ ...repo, path: 'a.txt', branch: 'topic', message: 'A', content: Buffer.from('a').toString('base64') });
    const pull = (await as.bob!.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    await as.alice!.issues.addAssignees({ ...repo, issue_number: pull.number, assignees: ['bob'] });
    expect((await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.assignees?.map((user) => user.login)).toEqual(['bob']);
    const assigned = (await as.alice!.issues.create({ ...repo, title: 'Assigned to alice', assignees: ['alice'] })).data;

    const titles = async (assignee: string) => (await as.carol!.issues.listForRepo({ ...repo, state: 'all', assignee })).data.map((issue) => issue.number).sort((a, b) => a - b);
    expect(await titles('bob')).toEqual([pull.number]);
    expect(await titles('alice')).toEqual([assigned.number]);
    expect(await titles('*')).toEqual([pull.number, assigned.number]);
    expect(await titles('none')).toHaveLength(2);
    expect(await titles('nobody-at-all')).toEqual([]);
  });

  it('refuses a bad assignee or milestone before creating or changing anything, and drops them for those who may not push', async () => {
    const count = async () => (await as.alice!.issues.listForRepo({ ...repo, state: 'all', per_page: 100 })).data.length;
    const before = await count();
    expect((await failure(as.alice!.issues.create({ ...repo, title: 'Nope', assignees: ['nobody-here'] }))).status).toBe(422);
    expect((await failure(as.alice!.issues.create({ ...repo, title: 'Nope', milestone: 99 }))).status).toBe(422);
    expect(await count()).toBe(before);
    const own = (await as.carol!.issues.create({ ...repo, title: 'Carol asks' })).data;
    const edited = await as.carol!.issues.update({ ...repo, issue_number: own.number, title: 'Carol asks again', assignees: ['alice'], milestone: 1 });
    expect(edited.data).toMatchObject({ title: 'Carol asks again', assignees: [], milestone: null });
    expect((await failure(as.alice!.issues.update({ ...repo, issue_number: own.number, title: 'Changed?', assignees: ['carol'] }))).status).toBe(422);
    expect((await as.alice!.issues.get({ ...repo, issue_number: own.number })).data.title).toBe('Carol asks again');
  });

  it('labels pull requests through the issue endpoints, shows and filters them, and announces it', async () => {
    await as.alice!.issues.createLabel({ ...repo, name: 'needs-review', color: 'fbca04' });
    const main = (await as.alice!.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await as.bob!.git.createRef({ ...repo, ref: 'refs/heads/labelled', sha: main });
    await as.bob!.repos.createOrUpdateFileContents({ ...repo, path: 'l.txt', branch: 'labelled', message: 'L', content: Buffer.from('l').toString('base64') });
    const pull = (await as.bob!.pulls.create({ ...repo, title: 'Labelled', head: 'labelled', base: 'main' })).data;
    const heard: string[] = [];
    const stop = host.events.on('pull_request', (payload) => {
      if (payload.action === 'labeled' || payload.action === 'unlabeled') heard.push(`${payload.action} ${payload.label?.name}`);
    });
    try {
      const labelled = await as.alice!.issues.addLabels({ ...repo, issue_number: pull.number, labels: ['needs-review'] });
      expect(labelled.data.map((label) => label.name)).toEqual(['needs-review']);
      expect((await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.labels.map((label) => label.name)).toEqual(['needs-review']);
      expect((await as.carol!.issues.listForRepo({ ...repo, labels: 'needs-review' })).data.map((each) => each.number)).toEqual([pull.number]);
      expect((await as.carol!.search.issuesAndPullRequests({ q: 'repo:alice/triaged label:needs-review' })).data.items.map((each) => each.number)).toEqual([pull.number]);
      await as.alice!.issues.removeLabel({ ...repo, issue_number: pull.number, name: 'needs-review' });
      expect((await as.alice!.pulls.get({ ...repo, pull_number: pull.number })).data.labels).toEqual([]);
      await host.idle();
      expect(heard).toEqual(['labeled needs-review', 'unlabeled needs-review']);
    } finally {
      stop();
    }
  });

  it('lists who may be assigned, and answers whether one may', async () => {
    expect((await as.carol!.issues.listAssignees(repo)).data.map((user) => user.login)).toEqual(['alice', 'bob']);
    expect((await as.carol!.issues.checkUserCanBeAssigned({ ...repo, assignee: 'bob' })).status).toBe(204);
    expect((await failure(as.carol!.issues.checkUserCanBeAssigned({ ...repo, assignee: 'carol' }))).status).toBe(404);
    // The same of one issue; an issue that does not exist is 404 too.
    const issue = (await as.alice!.issues.create({ ...repo, title: 'Who may take it' })).data;
    expect((await as.carol!.issues.checkUserCanBeAssignedToIssue({ ...repo, issue_number: issue.number, assignee: 'bob' })).status).toBe(204);
    expect((await failure(as.carol!.issues.checkUserCanBeAssignedToIssue({ ...repo, issue_number: issue.number, assignee: 'carol' }))).status).toBe(404);
    expect((await failure(as.carol!.issues.checkUserCanBeAssignedToIssue({ ...repo, issue_number: 9999, assignee: 'bob' }))).status).toBe(404);
  });

  it('lists assignees in the order they were assigned, those of one change by name, in lists as in one issue', async () => {
    const issue = (await as.alice!.issues.create({ ...repo, title: 'Ordered', assignees: ['bob', 'alice'] })).data;
    expect(issue.assignees?.map((user) => user.login)).toEqual(['alice', 'bob']);
    await as.alice!.issues.removeAssignees({ ...repo, issue_number: issue.number, assignees: ['alice'] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await as.alice!.issues.addAssignees({ ...repo, issue_number: issue.number, assignees: ['alice'] });
    expect((await as.alice!.issues.get({ ...repo, issue_number: issue.number })).data.assignees?.map((user) => user.login)).toEqual(['bob', 'alice']);
    const listed = (await as.alice!.issues.listForRepo({ ...repo, state: 'all' })).data.find((item) => item.number === issue.number)!;
    expect(listed.assignees?.map((user) => user.login)).toEqual(['bob', 'alice']);
  });
});
