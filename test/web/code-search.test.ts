import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { inspect, launchChromium } from '../helpers/browser.js';
import { pushFiles } from '../helpers/git-cli.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost } from '../helpers/host.js';

// Issue 21: code search across a repository's default branch (git grep: literal, case-insensitive, bounded), with
// results linked to their lines.

describe('code search', () => {
  let host: RepoHost;
  let browser: Browser;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    browser = await launchChromium();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'lib', 'private');
    await newRepo(host, alice, 'empty');
    await pushFiles(
      host,
      'alice',
      alice.token,
      'lib',
      {
        'src/parse.ts': 'export function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n',
        'README.md': '# lib\n\nCall parseConfig() with <text>.\n',
        'many.txt': Array.from({ length: 400 }, (_, i) => `needle ${i}`).join('\n'),
        ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`more/file${i}.txt`, Array.from({ length: 20 }, () => 'needle').join('\n')])),
        'blob.bin': Buffer.concat([Buffer.from([0]), Buffer.from('parseConfig')]),
      },
      'Code',
    );
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  const search = (repo: string, q: string, token = alice.token) =>
    http(`${host.url}/alice/${repo}/search?q=${encodeURIComponent(q)}`, { headers: token ? bearer(token) : {} });

  it('finds text in every text file, case-insensitively and literally, linked to its lines', async () => {
    const page = await search('lib', 'PARSECONFIG');
    expect(page.status).toBe(200);
    expect(page.text).toContain('2 matching lines in 2 files on main');
    expect(page.text).toContain('href="/alice/lib/src/branch/main/src/parse.ts#L1"');
    expect(page.text).toContain('<mark>parseConfig</mark>');
    expect(page.text).toContain('with &lt;text&gt;.');
    expect(page.text).not.toContain('blob.bin');
    // Literal: regular expression characters mean themselves.
    expect((await search('lib', 'JSON.parse(')).text).toContain('1 matching line in 1 file');
    expect((await search('lib', '.*')).text).toContain('No lines match.');
  });

  it('keeps searches bounded, refuses bad queries, and shows private repositories to nobody else', async () => {
    const many = await search('lib', 'needle');
    expect(many.text).toContain('200+ matching lines');
    expect(many.text).toContain('the first ones only');
    expect((await search('lib', 'x')).status).toBe(400);
    expect((await search('lib', 'a'.repeat(201))).status).toBe(400);
    expect((await search('empty', 'anything')).text).toContain('no commits to search yet');
    expect((await search('lib', 'parseConfig', '')).status).toBe(404);
  });

  it('is reached from the repository home, passes axe, and fits a phone', async () => {
    const context = await browser.newContext({ bypassCSP: true, extraHTTPHeaders: { authorization: `Bearer ${alice.token}` } });
    const page = await context.newPage();
    await page.goto(`${host.url}/alice/lib`);
    await page.fill('input[name=q]', 'parseConfig');
    await page.press('input[name=q]', 'Enter');
    await page.waitForURL(/\/alice\/lib\/search\?q=parseConfig$/);
    expect(await page.textContent('main')).toContain('2 matching lines');
    await inspect(page, 'results', 'search', 1);
    await context.close();
  });
});
