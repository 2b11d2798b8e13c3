import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startWideHost, wideFile, type WideHistory } from '../helpers/big-repo.js';
import { http } from '../helpers/host.js';

const FILES = 2500;

describe("GitHub's documented limits on large folders, commits and comparisons", () => {
  let host: RepoHost;
  let wide: WideHistory;
  const api = () => `${host.url}/api/v3/repos/alice/wide`;

  beforeAll(async () => {
    ({ host, wide } = await startWideHost(FILES));
  });

  afterAll(async () => {
    await host?.close();
  });

  it('lists the first 1,000 entries of a larger folder through the contents API, whatever per_page says', async () => {
    for (const query of ['', '?per_page=5', '?per_page=100&page=2']) {
      const result = await http(`${api()}/contents/wide${query}`);
      expect(result.status).toBe(200);
      expect(result.json).toHaveLength(1000);
      expect(result.json[0]).toMatchObject({ type: 'file', name: 'f00000.txt', path: wideFile(0), size: Buffer.byteLength('file 0 changed\nline two\n') });
      expect(result.json[999]).toMatchObject({ name: 'f00999.txt', path: wideFile(999) });
      expect(result.headers.link).toBeUndefined();
    }
    // Smaller folders whole, as before.
    const top = await http(`${api()}/contents`);
    expect(top.json.map((entry: { name: string }) => entry.name)).toEqual(['README.md', 'wide']);
    expect((await http(`${api()}/contents/nothing-here`)).status).toBe(404);
  });

  it('lists 300 files of a commit a page, up to 3,000, with Link headers for the rest', async () => {
    const first = await http(`${api()}/commits/${wide.changed}`);
    expect(first.status).toBe(200);
    expect(first.json.sha).toBe(wide.changed);
    expect(first.json.files).toHaveLength(300);
    expect(first.json.files[0]).toMatchObject({ filename: wideFile(0), status: 'modified', additions: 1, deletions: 1, changes: 2, patch: expect.stringContaining('+file 0 changed') });
    expect(first.json.files[299].filename).toBe(wideFile(299));
    const link = String(first.headers.link);
    expect(link).toContain(`<${api()}/commits/${wide.changed}?page=2&per_page=300>; rel="next"`);
    expect(link).toContain(`<${api()}/commits/${wide.changed}?page=9&per_page=300>; rel="last"`);

    // The last page: the 100 files after 2,400; the commit itself is the same on every page.
    const last = await http(`${api()}/commits/${wide.changed}?page=9`);
    expect(last.json.files.map((file: { filename: string }) => file.filename)).toEqual(Array.from({ length: 100 }, (_, i) => wideFile(2400 + i)));
    expect(last.json.commit.message).toBe(first.json.commit.message);
    expect(String(last.headers.link)).toContain('rel="prev"');
    expect(String(last.headers.link)).not.toContain('rel="next"');
    expect((await http(`${api()}/commits/${wide.changed}?page=10`)).json.files).toEqual([]);

    // per_page sizes the pages (at most 300); a root commit lists what it added.
    const small = await http(`${api()}/commits/${wide.changed}?per_page=100&page=25`);
    expect(small.json.files.map((file: { filename: string }) => file.filename)).toEqual(Array.from({ length: 100 }, (_, i) => wideFile(2400 + i)));
    expect((await http(`${api()}/commits/${wide.changed}?per_page=1000`)).json.files).toHaveLength(300);
    const root = await http(`${api()}/commits/${wide.added}`);
    expect(root.json.files[0]).toMatchObject({ filename: 'README.md', status: 'added', additions: 1 });
    expect(root.json.files).toHaveLength(300);
  });

  it('lists up to 300 files of a comparison', async () => {
    const result = await http(`${api()}/compare/${wide.added}...${wide.changed}`);
    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({ status: 'ahead', ahead_by: 1, total_commits: 1 });
    expect(result.json.files).toHaveLength(300);
    expect(result.json.files[299].filename).toBe(wideFile(299));
  });
});
