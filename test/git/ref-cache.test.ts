import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost } from '../helpers/host.js';

/**
 * Issue 7 point 20: refs are cached per repository, so every change this process makes must show at once. Each
 * step would answer from a stale cache if one path forgot to tell it.
 */
describe('the per-repository ref cache', () => {
  let host: RepoHost;
  let alice: TestUser;
  const count = async (what: 'branches' | 'commits', repo: string, branch = 'main') => {
    const path = what === 'branches' ? `/api/v1/alice/${repo}/branches/count` : `/api/v1/alice/${repo}/${branch}/commits/count`;
    return (await http(`${host.url}${path}`, { headers: bearer(alice.token) })).json.result;
  };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
  });
  afterAll(async () => {
    await host?.close();
  });

  it('follows pushes, merges, renames, deletions and a new repository under an old name', async () => {
    await newRepo(host, alice, 'cached');
    expect(await count('branches', 'cached')).toBe(0);
    await pushTwoBranches(host, 'alice', alice.token, 'cached');
    expect([await count('branches', 'cached'), await count('commits', 'cached'), await count('commits', 'cached', 'feature')]).toEqual([2, 1, 2]);

    // A merge through the API moves main.
    const pull = await http(`${host.url}/api/v1/repos/alice/cached/pulls`, { headers: bearer(alice.token), json: { title: 'm', head: 'feature', base: 'main' } });
    await http(`${host.url}/api/v1/repos/alice/cached/pulls/${pull.json.id}/merge`, { headers: bearer(alice.token), json: { method: 'fast-forward' } });
    expect([await count('branches', 'cached'), await count('commits', 'cached')]).toEqual([2, 2]);

    // Renamed away, and a new repository under the old name: nothing of the old one's refs.
    expect((await http(`${host.url}/api/v1/repos/alice/cached`, { method: 'PATCH', headers: bearer(alice.token), json: { name: 'moved' } })).status).toBe(200);
    await newRepo(host, alice, 'cached');
    expect([await count('branches', 'cached'), await count('branches', 'moved'), await count('commits', 'moved')]).toEqual([0, 2, 2]);

    // Deleted and created again.
    expect((await http(`${host.url}/api/v1/repos/alice/moved`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
    await newRepo(host, alice, 'moved');
    expect([await count('branches', 'moved'), await count('commits', 'moved')]).toEqual([0, 0]);
    const files = await http(`${host.url}/api/v1/repos/${(await http(`${host.url}/api/v1/repos/alice/moved`, { headers: bearer(alice.token) })).json.id}/tree/files?branch=main`);
    expect(files.json).toEqual({ success: true, result: [] });
  });

  it('remembers commits that statuses were posted on only while the repository stays what it was', async () => {
    await newRepo(host, alice, 'statused');
    const { main } = await pushTwoBranches(host, 'alice', alice.token, 'statused');
    const post = () => http(`${host.url}/api/v1/repos/alice/statused/statuses/${main}`, { headers: bearer(alice.token), json: { state: 'success', context: 'ci' } });
    expect((await post()).status).toBe(200);
    expect((await post()).status).toBe(200);
    // Deleted and created again without that history: the commit is no longer one of its commits.
    expect((await http(`${host.url}/api/v1/repos/alice/statused`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
    await newRepo(host, alice, 'statused');
    expect((await post()).status).toBe(404);
  });
});
