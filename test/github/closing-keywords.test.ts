import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { closedIssueNumbers } from '../../lib/services/closing-keywords.js';
import { git } from '../helpers/git-cli.js';
import { startHost, tempDir } from '../helpers/host.js';

// Issue 21: closing keywords. "Fixes #2" in a pull request's description or in a commit closes issue #2 when the
// change reaches the default branch (a merge, or a push), with its `issues` `closed` event, as GitHub does.

describe('closing keywords', () => {
  let host: RepoHost;
  let octokit: Octokit;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let dir: string;
  let remote: string;
  const owner = 'alice';
  const repo = 'tracker';

  beforeAll(async () => {
    host = await startHost();
    await host.admin.createUser({ username: owner, email: 'alice@example.com', password: 'password123' });
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(owner) });
    await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
    for (const title of ['one', 'two', 'three', 'four', 'five']) await octokit.issues.create({ owner, repo, title });
    work = await tempDir('repohost-closing-');
    dir = join(work.path, 'copy');
    const url = new URL(`${host.url}/${owner}/${repo}.git`);
    url.username = owner;
    url.password = await host.admin.createToken(owner);
    remote = url.toString();
    await git(work.path, ['clone', '-q', remote, dir], work.path);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  const state = async (number: number) => (await octokit.issues.get({ owner, repo, issue_number: number })).data;
  const commitOn = async (branch: string, message: string) => {
    await git(dir, ['checkout', '-q', '-B', branch, 'origin/main'], work.path);
    await writeFile(join(dir, `${branch}.txt`), `${message}\n`);
    await git(dir, ['add', '.'], work.path);
    await git(dir, ['commit', '-q', '-m', message], work.path);
    await git(dir, ['push', '-q', 'origin', branch], work.path);
  };

  it('reads the keywords as GitHub does', () => {
    const repository = { owner_name: 'alice', name: 'tracker' };
    expect(closedIssueNumbers(['Fixes #1, closes: #2 and Resolved #3', 'fix #1'], repository)).toEqual([1, 2, 3]);
    expect(closedIssueNumbers(['This closes alice/tracker#4 but not bob/other#5', 'prefix#6 fixes#7 unfixes #8'], repository)).toEqual([4]);
  });

  it('closes the issues a merged pull request names when it reaches the default branch, and no others', async () => {
    await commitOn('fix-one', 'Work on the first two');
    const pull = await octokit.pulls.create({ owner, repo, head: 'fix-one', base: 'main', title: 'Fix the first two', body: 'Fixes #1 and resolves: #2.\n\nSee #3 too.' });
    const closed = host.events.waitFor('issues', (event) => event.action === 'closed' && event.issue.number === 2);
    await octokit.pulls.merge({ owner, repo, pull_number: pull.data.number });
    const event = await closed;
    expect(event.sender.login).toBe(owner);
    expect(await state(1)).toMatchObject({ state: 'closed', state_reason: 'completed' });
    expect((await state(2)).state).toBe('closed');
    expect((await state(3)).state).toBe('open');
    // Into another branch: nothing closes until that reaches the default branch.
    await commitOn('next', 'Base of a side branch');
    await commitOn('side', 'Side work');
    const side = await octokit.pulls.create({ owner, repo, head: 'side', base: 'next', title: 'Side', body: 'Fixes #3' });
    await octokit.pulls.merge({ owner, repo, pull_number: side.data.number });
    expect((await state(3)).state).toBe('open');
  });

  it('closes the issues named by commits pushed to the default branch, leaving pull requests and others alone', async () => {
    await git(dir, ['checkout', '-q', '-B', 'main', 'origin/main'], work.path);
    await git(dir, ['pull', '-q', 'origin', 'main'], work.path);
    await writeFile(join(dir, 'direct.txt'), 'direct\n');
    await git(dir, ['add', '.'], work.path);
    // #6 is the first pull request: keywords never close pull requests.
    await git(dir, ['commit', '-q', '-m', 'Direct fix\n\nCloses #3, fixes #6, fixes bob/other#4'], work.path);
    await git(dir, ['push', '-q', 'origin', 'main'], work.path);
    expect((await state(3)).state).toBe('closed');
    expect((await state(4)).state).toBe('open');
    expect((await octokit.pulls.get({ owner, repo, pull_number: 6 })).data.state).toBe('closed');
    expect((await octokit.pulls.get({ owner, repo, pull_number: 6 })).data.merged).toBe(true);
    expect((await state(5)).state).toBe('open');
  });
});
