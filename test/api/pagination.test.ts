import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost } from '../helpers/host.js';

/** RFC 8288 `Link` header → { rel: url }. */
function links(header: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  for (const part of String(header ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(part.trim());
    if (match) result[match[2]!] = match[1]!;
  }
  return result;
}

describe('every list pages with page/limit, X-Total-Count and Link (issue 7 point 7)', () => {
  let host: RepoHost;
  let owner: TestUser;
  let base: string;
  let repoId: number;

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'pager');
    repoId = (await newRepo(host, owner, 'listing')).id;
    base = `${host.url}/api/v1/repos/pager/listing`;
    for (let i = 1; i <= 7; i++) await http(`${base}/issues`, { headers: bearer(owner.token), form: { title: `Issue ${i}` } });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('follows next links to the end: every item once, in order, with the total on each page', async () => {
    const seen: string[] = [];
    let url: string | undefined = `${base}/issues?limit=3`;
    const relsSeen: string[][] = [];
    while (url) {
      const page = await http(url);
      expect(page.status).toBe(200);
      expect(page.headers['x-total-count']).toBe('7');
      seen.push(...page.json.map((issue: { title: string }) => issue.title));
      const rel = links(page.headers.link);
      relsSeen.push(Object.keys(rel).sort());
      url = rel.next;
    }
    expect(seen).toEqual(['Issue 7', 'Issue 6', 'Issue 5', 'Issue 4', 'Issue 3', 'Issue 2', 'Issue 1']);
    expect(relsSeen).toEqual([['last', 'next'], ['first', 'last', 'next', 'prev'], ['first', 'prev']]);
  });

  it('builds absolute links on the host URL, keeping the other query parameters', async () => {
    const page = await http(`${base}/issues?status=open&limit=2&page=2`, { headers: { host: 'evil.example' } });
    const rel = links(page.headers.link);
    expect(rel).toEqual({
      next: `${base}/issues?status=open&limit=2&page=3`,
      last: `${base}/issues?status=open&limit=2&page=4`,
      first: `${base}/issues?status=open&limit=2&page=1`,
      prev: `${base}/issues?status=open&limit=2&page=1`,
    });
  });

  it('reads page and limit leniently: bad values mean the default, limit is at most 100, a page past the end is empty', async () => {
    for (const query of ['limit=abc', 'limit=0', 'limit=-5', 'page=0&limit=30', 'page=x']) {
      const page = await http(`${base}/issues?${query}`);
      expect({ query, status: page.status, count: page.json.length }).toEqual({ query, status: 200, count: 7 });
    }
    const beyond = await http(`${base}/issues?page=9&limit=3`);
    expect(beyond.json).toEqual([]);
    expect(beyond.headers['x-total-count']).toBe('7');
    expect(links(beyond.headers.link)).toMatchObject({ first: expect.any(String), prev: expect.stringContaining('page=3') });
    const huge = await http(`${base}/issues?limit=1000`);
    expect(links(huge.headers.link)).toEqual({});
    for (let i = 8; i <= 103; i++) await http(`${base}/issues`, { headers: bearer(owner.token), form: { title: `Issue ${i}` } });
    const capped = await http(`${base}/issues?limit=1000`);
    expect(capped.json).toHaveLength(100);
    expect(links(capped.headers.link).next).toContain('limit=100');
  });

  it('pages the other lists too: repositories, pulls, comments, branches, CI runs, tokens, labels', async () => {
    await pushTwoBranches(host, 'pager', owner.token, 'listing', ['b1', 'b2', 'b3']);
    for (const name of ['r1', 'r2', 'r3']) await newRepo(host, owner, name);
    for (const branch of ['b1', 'b2', 'b3']) await http(`${base}/pulls`, { headers: bearer(owner.token), json: { title: `Into ${branch}`, head: 'feature', base: branch } });
    const pull = (await http(`${base}/pulls?limit=1`)).json[0];
    for (const text of ['one', 'two', 'three']) await http(`${base}/pulls/${pull.id}/comments`, { headers: bearer(owner.token), json: { text } });
    const issue = (await http(`${base}/issues?limit=1`)).json[0];
    for (const body of ['one', 'two', 'three']) await http(`${base}/issues/${issue.id}/comments`, { headers: bearer(owner.token), json: { body } });
    for (const run of ['1', '2', '3']) {
      await http(`${host.url}/api/v1/ci/status`, { json: { run_id: run, repo_id: String(repoId), commit_hash: 'abc', branch: 'main', status: 'running' } });
    }
    for (const name of ['t2', 't3']) await http(`${host.url}/pager/settings/api-tokens`, { headers: { cookie: `token=${owner.session}` }, form: { name } });
    for (const name of ['l1', 'l2', 'l3']) await http(`${base}/labels`, { headers: bearer(owner.token), json: { name, color: '112233' } });

    const lists: Array<[string, number]> = [
      [`${host.url}/api/v1/users/pager/repos`, 4],
      [`${base}/pulls`, 3],
      [`${base}/pulls/${pull.id}/comments`, 3],
      [`${base}/issues/${issue.id}/comments`, 3],
      [`${base}/branches`, 5],
      [`${base}/ci/runs`, 3],
      [`${host.url}/api/v1/users/pager/tokens`, 3],
      [`${base}/labels`, 3],
    ];
    for (const [url, total] of lists) {
      const first = await http(`${url}?limit=2`, { headers: bearer(owner.token) });
      expect({ url, status: first.status, total: first.headers['x-total-count'], count: first.json.length }).toEqual({ url, status: 200, total: String(total), count: 2 });
      const next = links(first.headers.link).next!;
      const second = await http(next, { headers: bearer(owner.token) });
      expect(second.json).toHaveLength(Math.min(2, total - 2));
      expect(second.json.map((item: unknown) => JSON.stringify(item))).not.toContain(JSON.stringify(first.json[0]));
    }
  });

  it('lists tokens only to their owner, without the secrets', async () => {
    const other = await newUser(host, 'other');
    expect((await http(`${host.url}/api/v1/users/pager/tokens`, { headers: bearer(other.token) })).status).toBe(404);
    expect((await http(`${host.url}/api/v1/users/pager/tokens`)).status).toBe(401);
    const mine = await http(`${host.url}/api/v1/users/pager/tokens`, { headers: bearer(owner.token) });
    expect(Object.keys(mine.json[0]).sort()).toEqual(['created_at', 'id', 'last_eight', 'name']);
    expect(mine.text).not.toContain(owner.token);
  });
});
