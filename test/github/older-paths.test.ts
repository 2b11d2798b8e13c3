import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// Issue 20: the older paths octokit.rb and PyGithub still call.
describe('older paths of the GitHub API', () => {
  let host: RepoHost;
  let alice: Octokit;
  const repo = { owner: 'alice', repo: 'old' };

  beforeAll(async () => {
    host = await startHost();
    await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice', 'old') });
    await alice.repos.createForAuthenticatedUser({ name: 'old', auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('GET /git/refs lists every ref; /git/refs/<whole name> is one ref, /git/refs/<prefix> those it starts', async () => {
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    for (const ref of ['refs/heads/feature/a', 'refs/heads/feature/b', 'refs/tags/v1']) await alice.git.createRef({ ...repo, ref, sha: main });
    const all = await alice.request('GET /repos/{owner}/{repo}/git/refs', repo);
    expect((all.data as Array<{ ref: string }>).map((ref) => ref.ref)).toEqual(['refs/heads/feature/a', 'refs/heads/feature/b', 'refs/heads/main', 'refs/tags/v1']);
    const paged = await alice.request('GET /repos/{owner}/{repo}/git/refs', { ...repo, per_page: 2 });
    expect((paged.data as Array<{ ref: string }>).map((ref) => ref.ref)).toEqual(['refs/heads/feature/a', 'refs/heads/feature/b']);
    expect(paged.headers.link).toContain('rel="next"');
    const one = await alice.request('GET /repos/{owner}/{repo}/git/refs/heads/main', repo);
    expect(one.data).toMatchObject({ ref: 'refs/heads/main', object: { sha: main, type: 'commit' } });
    const some = await alice.request('GET /repos/{owner}/{repo}/git/refs/heads/feature', repo);
    expect((some.data as Array<{ ref: string }>).map((ref) => ref.ref)).toEqual(['refs/heads/feature/a', 'refs/heads/feature/b']);
    // A prefix matches whole segments only, as on GitHub: `heads/feat` names nothing.
    expect((await failure(alice.request('GET /repos/{owner}/{repo}/git/refs/heads/feat', repo))).status).toBe(404);
  });

  it('GET /statuses/:ref lists the statuses of a commit, as /commits/:ref/statuses does', async () => {
    const main = (await alice.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    await alice.repos.createCommitStatus({ ...repo, sha: main, state: 'success', context: 'ci/old' });
    const older = await alice.request('GET /repos/{owner}/{repo}/statuses/{ref}', { ...repo, ref: main });
    const newer = await alice.repos.listCommitStatusesForRef({ ...repo, ref: main });
    expect(older.data).toEqual(newer.data);
    expect((older.data as Array<{ context: string }>).map((status) => status.context)).toEqual(['ci/old']);
  });
});
