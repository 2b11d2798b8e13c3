import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 20 (triage): milestones, the milestone of issues and pull requests, and the milestone filter.
describe('milestones', () => {
  let host: RepoHost;
  let alice: Octokit;
  let bob: Octokit;
  const repo = { owner: 'alice', repo: 'planned' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice', 'plan') });
    bob = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('bob', 'plan') });
    await alice.repos.createForAuthenticatedUser({ name: 'planned', auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('creates, lists, edits, closes and deletes milestones, numbered per repository', async () => {
    const v1 = (await alice.issues.createMilestone({ ...repo, title: 'v1', description: 'First', due_on: '2026-12-01T00:00:00Z' })).data;
    expect(v1).toMatchObject({ number: 1, title: 'v1', description: 'First', state: 'open', due_on: '2026-12-01T00:00:00Z', open_issues: 0, closed_issues: 0, creator: { login: 'alice' } });
    expect(v1.url).toBe(`${host.url}/api/v3/repos/alice/planned/milestones/1`);
    const v2 = (await alice.issues.createMilestone({ ...repo, title: 'v2' })).data;
    expect(v2.number).toBe(2);
    expect((await failure(alice.issues.createMilestone({ ...repo, title: 'V1' }))).data.errors).toEqual([{ resource: 'Milestone', code: 'already_exists', field: 'title' }]);
    expect((await failure(bob.issues.createMilestone({ ...repo, title: 'mine' }))).status).toBe(403);
    // Due dates first (soonest first), those without one last.
    expect((await bob.issues.listMilestones(repo)).data.map((milestone) => milestone.title)).toEqual(['v1', 'v2']);
    const closed = await alice.issues.updateMilestone({ ...repo, milestone_number: 2, state: 'closed', title: 'v2.0' });
    expect(closed.data).toMatchObject({ title: 'v2.0', state: 'closed' });
    expect(closed.data.closed_at).toMatch(/Z$/);
    expect((await bob.issues.listMilestones(repo)).data.map((milestone) => milestone.title)).toEqual(['v1']);
    expect((await bob.issues.listMilestones({ ...repo, state: 'all' })).data).toHaveLength(2);
    expect((await alice.issues.deleteMilestone({ ...repo, milestone_number: 2 })).status).toBe(204);
    expect((await failure(bob.issues.getMilestone({ ...repo, milestone_number: 2 }))).status).toBe(404);
  });

  it('sets the milestone of issues and pull requests, counts them, and filters the issue list by it', async () => {
    const issue = (await alice.issues.create({ ...repo, title: 'Planned', milestone: 1 })).data;
    expect(issue.milestone).toMatchObject({ number: 1, title: 'v1', open_issues: 1 });
    const other = (await alice.issues.create({ ...repo, title: 'Unplanned' })).data;
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/topic', sha: main });
    await alice.repos.createOrUpdateFileContents({ ...repo, path: 't.txt', branch: 'topic', message: 'T', content: Buffer.from('t').toString('base64') });
    const pull = (await alice.pulls.create({ ...repo, title: 'Topic', head: 'topic', base: 'main' })).data;
    await alice.issues.update({ ...repo, issue_number: pull.number, milestone: 1 });
    expect((await alice.pulls.get({ ...repo, pull_number: pull.number })).data.milestone?.number).toBe(1);
    await alice.pulls.merge({ ...repo, pull_number: pull.number });
    expect((await alice.issues.getMilestone({ ...repo, milestone_number: 1 })).data).toMatchObject({ open_issues: 1, closed_issues: 1 });

    const numbers = async (milestone: string) => (await bob.issues.listForRepo({ ...repo, state: 'all', milestone })).data.map((each) => each.number).sort((a, b) => a - b);
    expect(await numbers('1')).toEqual([issue.number, pull.number]);
    expect(await numbers('none')).toEqual([other.number]);
    expect(await numbers('*')).toEqual([issue.number, pull.number]);
    expect((await failure(bob.issues.listForRepo({ ...repo, milestone: 'soon' }))).status).toBe(422);

    const heard: string[] = [];
    const stop = host.events.on('issues', (payload) => void heard.push(payload.action));
    try {
      expect((await alice.issues.update({ ...repo, issue_number: issue.number, milestone: null })).data.milestone).toBeNull();
      expect((await failure(alice.issues.update({ ...repo, issue_number: issue.number, milestone: 99 }))).status).toBe(422);
      await host.idle();
      expect(heard).toEqual(['demilestoned']);
    } finally {
      stop();
    }
  });
});
