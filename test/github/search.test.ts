import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 20 (triage): GET /search/issues with the qualifiers bots use most, over what the caller may read.
describe('GET /search/issues', () => {
  let host: RepoHost;
  const as: Record<string, Octokit> = {};
  const numbers: Record<string, number> = {};

  beforeAll(async () => {
    let tick = Date.parse('2026-01-01T00:00:00Z');
    host = await startHost({ now: () => new Date((tick += 60_000)) });
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'search') });
    }
    const alice = as.alice!;
    await alice.repos.createForAuthenticatedUser({ name: 'app', auto_init: true });
    await alice.repos.createForAuthenticatedUser({ name: 'secret', private: true, auto_init: true });
    const repo = { owner: 'alice', repo: 'app' };
    await alice.issues.createLabel({ ...repo, name: 'bug', color: 'd73a4a' });
    numbers.crash = (await alice.issues.create({ ...repo, title: 'Crash on start', body: 'It crashes at startup', labels: ['bug'], assignees: ['alice'] })).data.number;
    numbers.docs = (await as.bob!.issues.create({ ...repo, title: 'Docs typo', body: 'A word is wrong' })).data.number;
    numbers.closed = (await alice.issues.create({ ...repo, title: 'Old crash', body: 'gone' })).data.number;
    await alice.issues.update({ ...repo, issue_number: numbers.closed, state: 'closed' });
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.git.createRef({ ...repo, ref: 'refs/heads/fix', sha: main });
    await alice.repos.createOrUpdateFileContents({ ...repo, path: 'fix.txt', branch: 'fix', message: 'Fix', content: Buffer.from('fix').toString('base64') });
    numbers.pull = (await alice.pulls.create({ ...repo, title: 'Fix the crash', head: 'fix', base: 'main' })).data.number;
    await alice.pulls.merge({ ...repo, pull_number: numbers.pull });
    numbers.secret = (await alice.issues.create({ owner: 'alice', repo: 'secret', title: 'Secret crash' })).data.number;
  });

  afterAll(async () => {
    await host?.close();
  });

  const found = async (q: string, who: 'alice' | 'bob' = 'alice', extra: Record<string, string> = {}) => {
    const { data } = await as[who]!.search.issuesAndPullRequests({ q, ...extra });
    expect(data.incomplete_results).toBe(false);
    expect(data.total_count).toBe(data.items.length);
    return data.items.map((item) => `${item.repository_url.split('/').pop()}#${item.number}${item.pull_request ? ' pr' : ''}`);
  };

  it('finds by words, kind, state, author, assignee and label, in one repository or everywhere one may read', async () => {
    expect(await found('repo:alice/app crash')).toEqual([`app#${numbers.pull} pr`, `app#${numbers.closed}`, `app#${numbers.crash}`]);
    expect(await found('repo:alice/app crash is:issue is:open')).toEqual([`app#${numbers.crash}`]);
    expect(await found('repo:alice/app is:pr is:merged')).toEqual([`app#${numbers.pull} pr`]);
    expect(await found('repo:alice/app is:closed')).toEqual([`app#${numbers.pull} pr`, `app#${numbers.closed}`]);
    expect(await found('repo:alice/app author:bob')).toEqual([`app#${numbers.docs}`]);
    expect(await found('repo:alice/app assignee:alice')).toEqual([`app#${numbers.crash}`]);
    expect(await found('repo:alice/app label:bug')).toEqual([`app#${numbers.crash}`]);
    expect(await found('repo:alice/app no:label is:issue is:open')).toEqual([`app#${numbers.docs}`]);
    expect(await found('repo:alice/app startup in:body')).toEqual([`app#${numbers.crash}`]);
    expect(await found('repo:alice/app startup in:title')).toEqual([]);
    expect(await found('"on start" repo:alice/app')).toEqual([`app#${numbers.crash}`]);
    // Everywhere: alice sees her private repository, bob does not.
    expect(await found('crash user:alice is:open')).toEqual([`secret#${numbers.secret}`, `app#${numbers.crash}`]);
    expect(await found('crash user:alice is:open', 'bob')).toEqual([`app#${numbers.crash}`]);
    expect(await found('repo:alice/secret crash', 'bob')).toEqual([]);
  });

  it('sorts and filters by dates, and refuses what it does not support with 422', async () => {
    expect(await found('repo:alice/app is:issue', 'alice', { sort: 'created', order: 'asc' })).toEqual([`app#${numbers.crash}`, `app#${numbers.docs}`, `app#${numbers.closed}`]);
    expect(await found('repo:alice/app is:issue created:>2099-01-01')).toEqual([]);
    expect(await found('repo:alice/app is:issue created:2026-01-01..2026-01-02')).toHaveLength(3);
    expect((await failure(as.alice!.search.issuesAndPullRequests({ q: 'repo:alice/app reactions:>5' }))).status).toBe(422);
    expect((await failure(as.alice!.search.issuesAndPullRequests({ q: 'repo:alice/app created:yesterday' }))).status).toBe(422);
    expect((await failure(as.alice!.search.issuesAndPullRequests({ q: '' }))).status).toBe(422);
  });
});
