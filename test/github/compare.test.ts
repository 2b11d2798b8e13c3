import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { http, startHost } from '../helpers/host.js';

/** A comparison as GitHub's documents it: the newest 250 commits unpaged; pages from the oldest with the files on the first. */
describe('GET /compare/{base}...{head}', () => {
  let host: RepoHost;
  const api = (path: string) => `${host.url}/api/v3/repos/alice/app${path}`;
  const messages = (body: { commits: Array<{ commit: { message: string } }> }) => body.commits.map((commit) => commit.commit.message);

  beforeAll(async () => {
    host = await startHost();
    await host.admin.load({
      users: [{ username: 'alice', email: 'alice@example.com', password: 'password123' }],
      repositories: [
        {
          owner: 'alice',
          name: 'app',
          branches: {
            main: { commits: [{ message: 'root', files: { 'a.txt': 'a\n' } }] },
            big: { from: 'main', commits: Array.from({ length: 260 }, (_, i) => ({ message: `c${i + 1}`, files: { [`f${i % 3}.txt`]: `${i}\n` } })) },
          },
        },
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await host?.close();
  });

  it('lists the newest 250 commits without paging parameters, the last the most recent', async () => {
    const result = await http(api('/compare/main...big'));
    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({ ahead_by: 260, total_commits: 260, status: 'ahead' });
    const listed = messages(result.json);
    expect(listed).toHaveLength(250);
    expect([listed[0], listed.at(-1)]).toEqual(['c11', 'c260']);
    expect(result.headers.link).toBeUndefined();
    expect(result.json.files.map((file: { filename: string }) => file.filename)).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
    expect(result.json).toMatchObject({ diff_url: `${host.url}/alice/app/compare/main...big.diff`, patch_url: `${host.url}/alice/app/compare/main...big.patch` });
  });

  it('pages from the oldest (30 a page by default, at most 100), every commit reachable, the files on the first page only', async () => {
    const first = await http(api('/compare/main...big?page=1'));
    expect(messages(first.json)).toEqual(Array.from({ length: 30 }, (_, i) => `c${i + 1}`));
    expect(first.json.files).toHaveLength(3);
    expect(first.headers.link).toContain('rel="next"');
    const last = await http(api('/compare/main...big?per_page=100&page=3'));
    expect(messages(last.json)).toEqual(Array.from({ length: 60 }, (_, i) => `c${i + 201}`));
    expect(last.json).not.toHaveProperty('files');
    expect(last.json.total_commits).toBe(260);
    expect(messages((await http(api('/compare/main...big?per_page=500'))).json)).toHaveLength(100);
  });
});
