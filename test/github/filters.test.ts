import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fixtures, RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

const ALICE = 'ghp_filtersalice0123456789abcdef0';
const BOB = 'ghp_filtersbob0123456789abcdef012';

function fixtures(): Fixtures {
  return {
    users: [
      { username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 't', token: ALICE }] },
      { username: 'bob', email: 'bob@example.com', password: 'password123', tokens: [{ name: 't', token: BOB }] },
    ],
    repositories: [
      {
        owner: 'alice',
        name: 'app',
        collaborators: { bob: 'write' },
        branches: {
          main: {
            commits: [
              { message: 'first', author: 'alice', date: '2024-01-01T10:00:00Z', files: { 'a.txt': '1\n' } },
              { message: 'second', author: 'bob', date: '2024-02-01T10:00:00Z', files: { 'b.txt': '1\n' } },
              { message: 'third', author: 'alice', date: '2024-03-01T10:00:00Z', files: { 'a.txt': '2\n' } },
            ],
          },
          topic: { from: 'main', commits: [{ message: 'topic', files: { 't.txt': 't\n' } }] },
          other: { from: 'main', commits: [{ message: 'other', files: { 'o.txt': 'o\n' } }] },
        },
        issues: [{ title: 'by alice' }, { title: 'by bob', author: 'bob' }],
        pulls: [
          { title: 'topic into main', head: 'topic', base: 'main' },
          { title: 'other into topic', head: 'other', base: 'topic', author: 'bob' },
        ],
      },
    ],
  };
}

/** Issue 20: every documented filter of an implemented list works, or the list answers 422 naming it. */
describe('filters of the /api/v3 lists', () => {
  let host: RepoHost;
  let alice: Octokit;
  const repo = { owner: 'alice', repo: 'app' };
  let clock = Date.parse('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    host = await startHost({ fixtures: fixtures(), now: () => new Date(clock) });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ALICE });
  });

  afterAll(async () => {
    await host?.close();
  });

  const titles = async (query: Record<string, string>) => (await alice.issues.listForRepo({ ...repo, state: 'all', ...query })).data.map((issue) => issue.title).sort();

  it('issues: creator, since, assignee and milestone (none kept by repohost yet), and 422 for mentioned', async () => {
    expect(await titles({})).toEqual(['by alice', 'by bob', 'other into topic', 'topic into main']);
    expect(await titles({ creator: 'bob' })).toEqual(['by bob', 'other into topic']);
    expect(await titles({ creator: 'nobody' })).toEqual([]);
    clock += 3_600_000;
    await alice.issues.update({ ...repo, issue_number: 1, title: 'by alice, edited' });
    expect(await titles({ since: '2026-01-01T00:30:00Z' })).toEqual(['by alice, edited']);
    expect(await titles({ since: '2000-01-01T00:00:00Z' })).toHaveLength(4);
    for (const none of [{ assignee: 'none' }, { milestone: 'none' }] as Array<Record<string, string>>) expect(await titles(none)).toHaveLength(4);
    for (const any of [{ assignee: '*' }, { assignee: 'bob' }, { milestone: '*' }, { milestone: '1' }] as Array<Record<string, string>>) expect(await titles(any)).toEqual([]);
    expect((await failure(alice.issues.listForRepo({ ...repo, mentioned: 'bob' }))).status).toBe(422);
    expect((await failure(alice.issues.listForRepo({ ...repo, since: 'yesterday' }))).status).toBe(422);
  });

  it('pull requests: head (user:branch) and base', async () => {
    const pulls = async (query: Record<string, string>) => (await alice.pulls.list({ ...repo, state: 'all', ...query })).data.map((pull) => pull.title).sort();
    expect(await pulls({})).toEqual(['other into topic', 'topic into main']);
    expect(await pulls({ head: 'alice:topic' })).toEqual(['topic into main']);
    expect(await pulls({ head: 'bob:topic' })).toEqual([]);
    expect(await pulls({ base: 'topic' })).toEqual(['other into topic']);
    expect(await pulls({ head: 'alice:other', base: 'main' })).toEqual([]);
    const ordered = async (query: Record<string, string>) => (await alice.pulls.list({ ...repo, state: 'all', ...query })).data.map((pull) => pull.number);
    expect(await ordered({})).toEqual([4, 3]);
    expect(await ordered({ direction: 'asc' })).toEqual([3, 4]);
    clock += 3_600_000;
    await alice.pulls.update({ ...repo, pull_number: 3, title: 'topic into main, edited' });
    // `updated` sorts oldest first unless asked otherwise, as on GitHub.
    expect(await ordered({ sort: 'updated' })).toEqual([4, 3]);
    expect(await ordered({ sort: 'updated', direction: 'desc' })).toEqual([3, 4]);
    // `popularity`: by comments, fewest first unless asked otherwise; issues sort by comments too.
    await alice.issues.createComment({ ...repo, issue_number: 4, body: 'popular' });
    expect(await ordered({ sort: 'popularity' })).toEqual([3, 4]);
    expect(await ordered({ sort: 'popularity', direction: 'desc' })).toEqual([4, 3]);
    expect((await alice.issues.listForRepo({ ...repo, state: 'all', sort: 'comments', direction: 'desc' })).data[0]!.number).toBe(4);
    // `long-running`: open for over a month and active within it, oldest first.
    expect(await ordered({ sort: 'long-running' })).toEqual([]);
    clock += 31 * 24 * 3_600_000;
    await alice.pulls.update({ ...repo, pull_number: 3, body: 'still going' });
    expect(await ordered({ sort: 'long-running' })).toEqual([3]);
    expect((await failure(alice.pulls.list({ ...repo, sort: 'nonsense' as 'created' }))).status).toBe(422);
  });

  it('commits: since, until, author (username or address) and path', async () => {
    const messages = async (query: Record<string, string>) => (await alice.repos.listCommits({ ...repo, ...query })).data.map((commit) => commit.commit.message);
    expect(await messages({})).toEqual(['third', 'second', 'first']);
    expect(await messages({ since: '2024-01-15T00:00:00Z' })).toEqual(['third', 'second']);
    expect(await messages({ until: '2024-02-15T00:00:00Z' })).toEqual(['second', 'first']);
    expect(await messages({ since: '2024-01-15T00:00:00Z', until: '2024-02-15T00:00:00Z' })).toEqual(['second']);
    expect(await messages({ author: 'bob' })).toEqual(['second']);
    expect(await messages({ author: 'alice@example.com' })).toEqual(['third', 'first']);
    expect(await messages({ author: 'nobody' })).toEqual([]);
    expect(await messages({ committer: 'bob' })).toEqual(['second']);
    expect(await messages({ committer: 'nobody' })).toEqual([]);
    expect(await messages({ path: 'a.txt' })).toEqual(['third', 'first']);
    expect((await failure(alice.repos.listCommits({ ...repo, until: 'soon' }))).status).toBe(422);
  });
});
