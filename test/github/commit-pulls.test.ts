import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, historyOf } from '../helpers/octokit.js';

// GitHub's `GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls` (octokit's
// `repos.listPullRequestsAssociatedWithCommit`), which release tools and CI actions ask to find the pull request a
// commit came from: the merged one that brought it, and while it is off the default branch the open ones too.
describe('pull requests associated with a commit', () => {
  let host: RepoHost;
  let history: ReturnType<typeof historyOf>;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'associated' };
  const associated = async (commit_sha: string, who = 'alice') => (await as[who]!.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha })).data.map((pull) => pull.number);

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'associated') });
    }
    history = historyOf(as.alice!, repo);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'associated', auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('lists the open pull requests of a commit off the default branch, then only the merged one that brought it', async () => {
    const root = await history.tip('main');
    await history.branchFrom('feature', 'main');
    const first = await history.write('feature', 'one.txt');
    const second = await history.write('feature', 'two.txt');
    const feature = (await as.alice!.pulls.create({ ...repo, title: 'Feature', head: 'feature', base: 'main' })).data;
    // A second pull request stacked on the first's branch holds its commits too.
    await history.branchFrom('stacked', 'feature');
    const stackedOnly = await history.write('stacked', 'three.txt');
    const stacked = (await as.alice!.pulls.create({ ...repo, title: 'Stacked', head: 'stacked', base: 'main' })).data;

    const listed = await as.alice!.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha: first });
    expect(listed.data.map((pull) => pull.number)).toEqual([stacked.number, feature.number]);
    // The list's objects are the pull request list's.
    expect(listed.data[1]).toEqual((await as.alice!.pulls.list({ ...repo })).data.find((pull) => pull.number === feature.number));
    expect(await associated(stackedOnly)).toEqual([stacked.number]);
    // A branch name stands for its tip (GitHub's documented use).
    expect(await associated('feature')).toEqual([stacked.number, feature.number]);
    // The default branch's own commits came from no pull request; anyone who can read the repository asks.
    expect(await associated(root, 'bob')).toEqual([]);

    await as.alice!.pulls.merge({ ...repo, pull_number: feature.number, merge_method: 'merge' });
    const merge = await history.tip('main');
    // On the default branch now: only the merged pull request, for its commits and for its merge commit.
    expect(await associated(first)).toEqual([feature.number]);
    expect(await associated(second, 'bob')).toEqual([feature.number]);
    expect(await associated(merge)).toEqual([feature.number]);
    // The stacked one still brings what the default branch lacks, and no more.
    expect(await associated(stackedOnly)).toEqual([stacked.number]);
  });

  it('follows squashed and rebased merges to the commits they made, and leaves closed pull requests out', async () => {
    await history.branchFrom('squashed', 'main');
    const squashedOnly = await history.write('squashed', 'squash.txt');
    const squashed = (await as.alice!.pulls.create({ ...repo, title: 'Squashed', head: 'squashed', base: 'main' })).data;
    const { sha: squashCommit } = (await as.alice!.pulls.merge({ ...repo, pull_number: squashed.number, merge_method: 'squash' })).data;
    expect(await associated(squashCommit)).toEqual([squashed.number]);
    // Its own commit never reached the default branch: the merged pull request still holds it.
    expect(await associated(squashedOnly)).toEqual([squashed.number]);

    await history.branchFrom('rebased', 'main');
    await history.write('main', 'moved-on.txt');
    const rebasedOnly = await history.write('rebased', 'rebase-a.txt');
    await history.write('rebased', 'rebase-b.txt');
    const rebased = (await as.alice!.pulls.create({ ...repo, title: 'Rebased', head: 'rebased', base: 'main' })).data;
    await as.alice!.pulls.merge({ ...repo, pull_number: rebased.number, merge_method: 'rebase' });
    const [last, previous] = (await as.alice!.repos.listCommits({ ...repo, per_page: 2 })).data.map((entry) => entry.sha);
    expect(previous).not.toBe(rebasedOnly);
    expect(await associated(last!)).toEqual([rebased.number]);
    expect(await associated(previous!)).toEqual([rebased.number]);
    expect(await associated(rebasedOnly)).toEqual([rebased.number]);

    await history.branchFrom('dropped', 'main');
    const droppedOnly = await history.write('dropped', 'dropped.txt');
    const dropped = (await as.alice!.pulls.create({ ...repo, title: 'Dropped', head: 'dropped', base: 'main' })).data;
    expect(await associated(droppedOnly)).toEqual([dropped.number]);
    await as.alice!.pulls.update({ ...repo, pull_number: dropped.number, state: 'closed' });
    expect(await associated(droppedOnly)).toEqual([]);
  });

  it('pages, and answers GitHub’s errors for an unknown commit, a hidden repository and an empty one', async () => {
    const first = await associated('stacked');
    expect(first.length).toBe(1);
    await history.branchFrom('again', 'stacked');
    const again = (await as.alice!.pulls.create({ ...repo, title: 'Again', head: 'again', base: 'main' })).data;
    const page = await as.alice!.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha: 'stacked', per_page: 1 });
    expect(page.data.map((pull) => pull.number)).toEqual([again.number]);
    expect(page.headers.link).toContain('rel="next"');
    const all = await as.alice!.paginate(as.alice!.repos.listPullRequestsAssociatedWithCommit, { ...repo, commit_sha: 'stacked', per_page: 1 });
    expect(all.map((pull) => pull.number)).toEqual([again.number, ...first]);

    // The branches whose tip a commit is (GitHub's branches-where-head), by name.
    const tip = await history.tip('stacked');
    await as.alice!.repos.updateBranchProtection({ ...repo, branch: 'again', required_status_checks: null, enforce_admins: false, required_pull_request_reviews: null, restrictions: null });
    expect((await as.alice!.repos.listBranchesForHeadCommit({ ...repo, commit_sha: tip })).data).toEqual([
      { name: 'again', commit: { sha: tip, url: `${host.url}/api/v3/repos/alice/associated/commits/${tip}` }, protected: true },
      { name: 'stacked', commit: { sha: tip, url: `${host.url}/api/v3/repos/alice/associated/commits/${tip}` }, protected: false },
    ]);
    expect((await as.alice!.repos.listBranchesForHeadCommit({ ...repo, commit_sha: await history.tip('main') })).data.map((branch) => branch.name)).toEqual(['main']);
    expect((await failure(as.alice!.repos.listBranchesForHeadCommit({ ...repo, commit_sha: 'e'.repeat(40) }))).status).toBe(422);

    const unknown = await failure(as.alice!.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha: 'f'.repeat(40) }));
    expect(unknown).toMatchObject({ status: 422, data: { message: `No commit found for SHA: ${'f'.repeat(40)}` } });
    await as.alice!.repos.createForAuthenticatedUser({ name: 'hidden', private: true, auto_init: true });
    const hidden = { owner: 'alice', repo: 'hidden', commit_sha: 'main' };
    expect((await as.alice!.repos.listPullRequestsAssociatedWithCommit(hidden)).data).toEqual([]);
    expect((await failure(as.bob!.repos.listPullRequestsAssociatedWithCommit(hidden))).status).toBe(404);
    await as.alice!.repos.createForAuthenticatedUser({ name: 'empty' });
    expect(await failure(as.alice!.repos.listPullRequestsAssociatedWithCommit({ owner: 'alice', repo: 'empty', commit_sha: 'main' }))).toMatchObject({ status: 409, data: { message: 'Git Repository is empty.' } });
  });

  it('a pull request merged by a push brings its own commits and its merge commit, not what the same push added after', async () => {
    const commitOn = async (message: string, parents: string[]) => {
      const { tree } = (await as.alice!.git.getCommit({ ...repo, commit_sha: parents.at(-1)! })).data;
      return (await as.alice!.git.createCommit({ ...repo, message, tree: tree.sha, parents })).data.sha;
    };
    // Fast-forwarded to a commit past the head: the head is what merged it.
    await history.branchFrom('pushed', 'main');
    const head = await history.write('pushed', 'pushed.txt');
    const pushed = (await as.alice!.pulls.create({ ...repo, title: 'Pushed', head: 'pushed', base: 'main' })).data;
    const after = await commitOn('After the head', [head]);
    await as.alice!.git.updateRef({ ...repo, ref: 'heads/main', sha: after });
    expect((await as.alice!.pulls.get({ ...repo, pull_number: pushed.number })).data).toMatchObject({ merged: true, merge_commit_sha: head });
    expect(await associated(head)).toEqual([pushed.number]);
    expect(await associated(after)).toEqual([]);

    // Merged with a merge commit made elsewhere, and a commit after it.
    await history.branchFrom('joined', 'main');
    const joinedOnly = await history.write('joined', 'joined.txt');
    const joined = (await as.alice!.pulls.create({ ...repo, title: 'Joined', head: 'joined', base: 'main' })).data;
    const mainTip = await history.write('main', 'meanwhile.txt');
    const merge = await commitOn('Merge joined', [mainTip, joinedOnly]);
    const later = await commitOn('After the merge', [merge]);
    await as.alice!.git.updateRef({ ...repo, ref: 'heads/main', sha: later });
    expect((await as.alice!.pulls.get({ ...repo, pull_number: joined.number })).data).toMatchObject({ merged: true, merge_commit_sha: merge });
    expect(await associated(joinedOnly)).toEqual([joined.number]);
    expect(await associated(merge)).toEqual([joined.number]);
    expect(await associated(later)).toEqual([]);
  });
});
