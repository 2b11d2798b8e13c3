import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { pushWideHistory, startWideHost, wideFile, type WideHistory } from '../helpers/big-repo.js';
import { http } from '../helpers/host.js';

/** More files than a page shows of a diff (300) and than a folder page lists (1,000): three folder pages. */
const FILES = 2500;
const page = { accept: 'text/html' };

describe('pages of very large commits and folders stay bounded', () => {
  let host: RepoHost;
  let wide: WideHistory;
  const base = () => `${host.url}/alice/wide`;

  beforeAll(async () => {
    ({ host, wide } = await startWideHost(FILES));
  });

  afterAll(async () => {
    await host?.close();
  });

  /** The files a rendered diff lists (its table of contents). */
  const listedFiles = (markup: string) => [...markup.matchAll(/<li><a href="#diff-\d+">([^<]+)<\/a>/g)].map((match) => match[1]);

  it('shows the first 300 files of a commit touching 2,500, says so, and links to the whole diff and patch', async () => {
    // The root commit adds README.md too, and is compared with nothing.
    for (const [sha, files] of [
      [wide.changed, Array.from({ length: 300 }, (_, i) => wideFile(i))],
      [wide.added, ['README.md', ...Array.from({ length: 299 }, (_, i) => wideFile(i))]],
    ] as const) {
      const result = await http(`${base()}/commit/${sha}`, { headers: page });
      expect(result.status).toBe(200);
      expect(listedFiles(result.text)).toEqual(files);
      expect(result.text.match(/<details class="diff-file"/g)).toHaveLength(300);
      expect(result.text).toContain(`${sha === wide.added ? '2,501' : '2,500'} files changed; the first 300 are shown`);
      expect(result.text).toContain('This diff is too large to show in full');
      expect(result.text).toContain(`<a href="/alice/wide/commit/${sha}.diff">Download the full diff</a>`);
      expect(result.text).toContain(`<a href="/alice/wide/commit/${sha}.patch">the patch</a>`);
      // 300 small files: well under half a megabyte (the whole commit rendered was ~2 MB for these 2,500).
      expect(result.text.length).toBeLessThan(400_000);
    }
  });

  it('serves the whole change of a commit as text at .diff and .patch, streamed from git', async () => {
    const diff = await http(`${base()}/commit/${wide.changed}.diff`);
    expect(diff.status).toBe(200);
    expect(diff.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(diff.headers['x-content-type-options']).toBe('nosniff');
    expect(diff.text.match(/^diff --git /gm)).toHaveLength(FILES);
    expect(diff.text).toContain(`diff --git a/${wideFile(FILES - 1)} b/${wideFile(FILES - 1)}`);
    expect(diff.text).toContain(`-file ${FILES - 1}\n+file ${FILES - 1} changed\n`);
    // A root commit against nothing; abbreviated ids work as on the page.
    const root = await http(`${base()}/commit/${wide.added.slice(0, 12)}.diff`);
    expect(root.text.match(/^new file mode /gm)).toHaveLength(FILES + 1);
    const patch = await http(`${base()}/commit/${wide.changed}.patch`);
    expect(patch.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(patch.text.startsWith(`From ${wide.changed} `)).toBe(true);
    expect(patch.text).toContain(`Subject: [PATCH] Change ${FILES} files`);
    expect((await http(`${base()}/commit/${'0'.repeat(40)}.diff`)).status).toBe(404);
  });

  /** The names a folder page lists, in order. */
  const listedNames = (markup: string) => [...markup.matchAll(/<td class="name">[^]*?<a href="\/alice\/wide\/src\/branch\/main\/wide\/([^"]+)">/g)].map((match) => match[1]);

  it('lists a folder of 2,500 entries 1,000 at a time, with their last commits and links between the pages', async () => {
    const folder = `${base()}/src/branch/main/wide`;
    const first = await http(folder, { headers: page });
    expect(first.status).toBe(200);
    const names = listedNames(first.text);
    expect(names).toHaveLength(1000);
    expect(names[0]).toBe('f00000.txt');
    expect(names[999]).toBe('f00999.txt');
    expect(first.text).toContain('This folder has 2,500 entries: 1 to 1,000 are listed here (page 1 of 3).');
    expect(first.text).toContain(`<a href="/alice/wide/src/branch/main/wide?page=2" rel="next">`);
    expect(first.text).not.toContain('rel="prev"');
    // Each listed entry has its own last commit (the one that changed every file).
    expect(first.text.match(new RegExp(`<td class="msg"><a href="/alice/wide/commit/${wide.changed}">Change ${FILES} files</a>`, "g"))).toHaveLength(1000);
    expect(first.text.length).toBeLessThan(1_000_000);

    const last = await http(`${folder}?page=3`, { headers: page });
    expect(listedNames(last.text)).toEqual(Array.from({ length: 500 }, (_, i) => `f0${2000 + i}.txt`));
    expect(last.text).toContain('2,001 to 2,500 are listed here (page 3 of 3)');
    expect(last.text).toContain(`<a href="/alice/wide/src/branch/main/wide?page=2" rel="prev">`);
    expect(last.text).not.toContain('rel="next"');
    expect((await http(`${folder}?page=4`, { headers: page })).status).toBe(404);
  });

  it('lists small folders whole, as before', async () => {
    const root = await http(`${base()}/src/branch/main`, { headers: page });
    expect(root.status).toBe(200);
    expect(root.text).toContain('<a href="/alice/wide/src/branch/main/wide">wide</a>');
    expect(root.text).toContain('<a href="/alice/wide/src/branch/main/README.md">README.md</a>');
    expect(root.text).not.toContain('This folder has');
    expect((await http(`${base()}/src/branch/main?page=2`, { headers: page })).status).toBe(404);
  });

  it('lists the first 1,000 entries of a large top folder on the repository home, with a link to the rest', async () => {
    const token = await host.admin.createToken('alice', 'flat');
    await host.admin.createRepo({ owner: 'alice', name: 'flat' });
    await pushWideHistory(host, 'alice', token, 'flat', 1200, '');
    const home = await http(`${host.url}/alice/flat`, { headers: page });
    expect(home.status).toBe(200);
    const names = [...home.text.matchAll(/<td class="name">[^]*?<a href="\/alice\/flat\/src\/branch\/main\/([^"]+)">/g)].map((match) => match[1]);
    // README.md sorts before the f… files; it is still rendered below the listing.
    expect(names).toEqual(['README.md', ...Array.from({ length: 999 }, (_, i) => wideFile(i, ''))]);
    expect(home.text).toContain('This folder has 1,201 entries: 1 to 1,000 are listed here (page 1 of 2).');
    expect(home.text).toContain('<a href="/alice/flat/src/branch/main?page=2" rel="next">');
    expect(home.text).toContain('<h1 id="user-content-wide">wide</h1>');
    const rest = await http(`${host.url}/alice/flat/src/branch/main?page=2`, { headers: page });
    expect([...rest.text.matchAll(/<td class="name">[^]*?<a href="\/alice\/flat\/src\/branch\/main\/([^"]+)">/g)].map((match) => match[1])).toEqual(
      Array.from({ length: 201 }, (_, i) => wideFile(999 + i, '')),
    );
  });

  it('bounds the files tab of a pull request and the comparison too, linking to their .diff and .patch', async () => {
    // A branch at the first commit, compared with main (which changes every file).
    const token = await host.admin.createToken('alice', 'api');
    const auth = { authorization: `Bearer ${token}` };
    const ref = await http(`${host.url}/api/v3/repos/alice/wide/git/refs`, { headers: auth, json: { ref: 'refs/heads/old', sha: wide.added } });
    expect(ref.status).toBe(201);
    const pull = await http(`${host.url}/api/v3/repos/alice/wide/pulls`, { headers: auth, json: { title: 'Everything', head: 'main', base: 'old' } });
    expect(pull.status).toBe(201);
    const number = pull.json.number as number;

    const files = await http(`${base()}/pulls/${number}/files`, { headers: page });
    expect(listedFiles(files.text)).toHaveLength(300);
    expect(files.text).toContain('2,500 files changed; the first 300 are shown');
    expect(files.text).toContain(`<a href="/alice/wide/pulls/${number}.diff">Download the full diff</a>`);
    const pullDiff = await http(`${base()}/pulls/${number}.diff`);
    expect(pullDiff.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(pullDiff.text.match(/^diff --git /gm)).toHaveLength(FILES);
    expect((await http(`${base()}/pulls/${number}.patch`)).text).toContain(`Subject: [PATCH] Change ${FILES} files`);

    const compare = await http(`${base()}/compare/old...main`, { headers: page });
    expect(listedFiles(compare.text)).toHaveLength(300);
    expect(compare.text).toContain('<a href="/alice/wide/compare/old...main.diff">Download the full diff</a>');
    const compareDiff = await http(`${base()}/compare/old...main.diff`);
    expect(compareDiff.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(compareDiff.text).toBe(pullDiff.text);
    expect((await http(`${base()}/compare/old...nothing.diff`)).status).toBe(404);
  });
});
