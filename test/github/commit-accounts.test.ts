import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git, remoteUrl } from '../helpers/git-cli.js';
import { startHost, tempDir } from '../helpers/host.js';

const TOKENS = { alice: 'ghp_aliceaccounts0123456789abcdef01', bob: 'ghp_bobaccounts0123456789abcdef0123' };

/**
 * Issue 41: commits pushed with an account's own address are the account's (GitHub links commits by verified
 * addresses): an address is confirmed offline, by the admin (command line or host.admin) or in fixtures.
 */
describe('commits linked to the accounts whose confirmed addresses wrote them', () => {
  let host: RepoHost;
  let work: { path: string; cleanup: () => Promise<void> };
  let alice: Octokit;
  const repo = { owner: 'alice', repo: 'linked' };

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [
          { username: 'alice', email: 'Alice@Example.com', password: 'password123', tokens: [{ name: 't', token: TOKENS.alice }] },
          { username: 'bob', email: 'bob@example.com', password: 'password123', tokens: [{ name: 't', token: TOKENS.bob }], emailVerified: true },
        ],
        repositories: [{ owner: 'alice', name: 'linked', collaborators: { bob: 'write' } }],
      },
    });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: TOKENS.alice });
    work = await tempDir('repohost-accounts-');
    const dir = work.path;
    await git(dir, ['init', '-q', '-b', 'main', '.'], dir);
    // Two commits by alice (her address in another case), one by bob, one by somebody with no account.
    for (const [n, email] of [[1, 'alice@example.com'], [2, 'ALICE@example.com'], [3, 'bob@example.com'], [4, 'stranger@example.com']] as const) {
      await writeFile(join(dir, `f${n}.txt`), `${n}\n`);
      await git(dir, ['add', '.'], dir);
      await git(dir, ['-c', `user.email=${email}`, '-c', `user.name=Writer ${n}`, 'commit', '-q', '-m', `Commit ${n}`], dir);
    }
    await git(dir, ['push', '-q', remoteUrl(host, 'alice', TOKENS.alice, 'linked'), 'main'], dir);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  const authors = async () => (await alice.repos.listCommits({ ...repo, per_page: 10 })).data.map((commit) => [commit.commit.message.trim(), commit.author?.login ?? null, commit.committer?.login ?? null]);

  it('names only accounts whose address is confirmed: fixtures confirmed bob, nobody confirmed alice yet', async () => {
    expect(await authors()).toEqual([
      ['Commit 4', null, null],
      ['Commit 3', 'bob', 'bob'],
      ['Commit 2', null, null],
      ['Commit 1', null, null],
    ]);
    const contributors = (await alice.repos.listContributors({ ...repo, anon: 'true' })).data;
    // Most commits first: alice's two addresses (one, whatever the case) with no account behind them yet.
    expect(contributors.map((contributor) => [contributor.login ?? contributor.email!.toLowerCase(), contributor.contributions])).toEqual([
      ['alice@example.com', 2],
      ['bob', 1],
      ['stranger@example.com', 1],
    ]);
    expect((await alice.users.listEmailsForAuthenticatedUser()).data).toEqual([{ email: 'Alice@Example.com', primary: true, verified: false, visibility: 'private' }]);
  });

  it('links alice\'s commits once the admin confirms her address, whatever its case', async () => {
    await host.admin.verifyEmail('alice');
    expect(await authors()).toEqual([
      ['Commit 4', null, null],
      ['Commit 3', 'bob', 'bob'],
      ['Commit 2', 'alice', 'alice'],
      ['Commit 1', 'alice', 'alice'],
    ]);
    const first = (await alice.repos.listCommits({ ...repo, per_page: 10 })).data.at(-1)!.sha;
    const single = (await alice.repos.getCommit({ ...repo, ref: first })).data;
    expect(single.author).toMatchObject({ login: 'alice', type: 'User' });
    const contributors = (await alice.repos.listContributors(repo)).data;
    expect(contributors.map((contributor) => [contributor.login, contributor.contributions])).toEqual([
      ['alice', 2],
      ['bob', 1],
    ]);
    expect((await alice.users.listEmailsForAuthenticatedUser()).data[0]!.verified).toBe(true);
    await expect(host.admin.verifyEmail('nobody')).rejects.toThrow(/User not found/);
  });

  it('lists the contributors of a history with more authors than a statement takes parameters', async () => {
    // 33,000 authors, one commit each (git fast-import), pushed as a repository of its own.
    const AUTHORS = 33_000;
    const dir = join(work.path, 'many');
    await git(work.path, ['init', '-q', '-b', 'main', dir], work.path);
    const stream = ['blob', 'mark :1', 'data 2', 'x', ''];
    for (let i = 0; i < AUTHORS; i++) {
      stream.push('commit refs/heads/main', `author Author ${i} <author${i}@example.com> ${1_700_000_000 + i} +0000`, `committer Author ${i} <author${i}@example.com> ${1_700_000_000 + i} +0000`, 'data 1', 'c');
      if (i === 0) stream.push('M 100644 :1 x.txt');
      stream.push('');
    }
    // Synchronous: nothing else is asked of the host meanwhile.
    execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: `${stream.join('\n')}\n`, env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1' } });
    await alice.repos.createForAuthenticatedUser({ name: 'many' });
    await git(dir, ['push', '-q', remoteUrl(host, 'alice', TOKENS.alice, 'many'), 'main'], work.path);
    const first = await alice.repos.listContributors({ owner: 'alice', repo: 'many', anon: 'true', per_page: 100 });
    expect(first.status).toBe(200);
    expect(first.data).toHaveLength(100);
    expect(first.headers.link).toContain('page=330');
  }, 180_000);
});
