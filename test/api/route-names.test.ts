import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { expectShape, ISSUE_SUMMARY, newRepo, newUser, REPO_SUMMARY, type TestUser } from '../helpers/api.js';

/** Repository and user names that equal literal segments of the routes must still reach their own endpoints. */
const NAMES = ['tree', 'files', 'star', 'watch', 'issues', 'pulls', 'comments', 'branches', 'commits', 'count', 'ci', 'status', 'avatar', 'me', 'info', 'settings'];

describe('names that look like route segments', () => {
  let host: RepoHost;
  let owner: TestUser;
  let other: TestUser;
  const ids = new Map<string, number>();

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'owner');
    other = await newUser(host, 'count');
    for (const name of NAMES) ids.set(name, (await newRepo(host, owner, name)).id);
  });
  afterAll(() => host?.close());

  it.each(NAMES)('a repository named %s answers every name-based endpoint', async (name) => {
    const repo = await http(`${host.url}/api/v1/repos/owner/${name}`);
    expect(repo.status).toBe(200);
    expectShape(repo.json, REPO_SUMMARY);
    expect(repo.json).toMatchObject({ id: ids.get(name), name });
    const created = await http(`${host.url}/api/v1/repos/owner/${name}/issues`, { headers: bearer(other.token), form: { title: `in ${name}` } });
    expect(created.status).toBe(200);
    expect(created.json.repo_id).toBe(ids.get(name));
    const list = await http(`${host.url}/api/v1/repos/owner/${name}/issues`);
    expect(list.json.map((issue: { title: string }) => issue.title)).toEqual([`in ${name}`]);
    const fetched = await http(`${host.url}/api/v1/repos/owner/${name}/issues/${created.json.id}`);
    expectShape(fetched.json, ISSUE_SUMMARY);
    expect((await http(`${host.url}/api/v1/repos/owner/${name}/pulls`)).json).toEqual([]);
    expect((await http(`${host.url}/api/v1/owner/${name}/issues/count`, { headers: cookie(owner.session) })).json).toEqual({ success: true, result: 1 });
    expect((await http(`${host.url}/api/v1/owner/${name}/branches/count`, { headers: cookie(owner.session) })).json).toEqual({ success: true, result: 0 });
    expect((await http(`${host.url}/api/v1/owner/${name}/main/commits/count`, { headers: cookie(owner.session) })).json).toEqual({ success: true, result: 0 });
    expect((await http(`${host.url}/api/v1/repos/${ids.get(name)}/tree/files?branch=main`)).json).toEqual({ success: true, result: [] });
    const star = await http(`${host.url}/api/v1/repos/${ids.get(name)}/star`, { method: 'POST', headers: cookie(other.session) });
    expect(star.json).toEqual({ success: true, result: true });
    expect((await http(`${host.url}/owner/${name}`)).status).toBe(200);
  });

  it('a user named count is found by the user endpoints', async () => {
    expect((await http(`${host.url}/api/v1/users/count`)).json.username).toBe('count');
    expect((await http(`${host.url}/api/v1/users/count/repos`)).json).toEqual([]);
  });

  it('a branch named like a route segment is counted', async () => {
    for (const branch of ['commits', 'count', 'issues', 'branches']) {
      const result = await http(`${host.url}/api/v1/owner/tree/${branch}/commits/count`, { headers: cookie(owner.session) });
      expect(result.json, branch).toEqual({ success: true, result: 0 });
    }
  });
});
