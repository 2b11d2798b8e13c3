import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, inspect as inspectPage, SCREENSHOTS } from '../helpers/browser.js';
import type { Fixtures, RepoHost } from '../../lib/index.js';
import { bearer, cookie, createApiToken, http, startHost } from '../helpers/host.js';

/** The rough edges of issue 21 ("Defects found"), points 2–8; point 1 is in test/api/pull-merge.test.ts. */

const TOKEN = 'a'.repeat(40);
const BROWSER_MS = 120_000;

/** Small source files, each first viewed at once on a fresh host (point 4). */
const SOURCES = Object.fromEntries(Array.from({ length: 6 }, (_, index) => [`src/file${index}.ts`, `export const value${index}: number = ${index}; // small\nexport function f${index}() { return 'x'; }\n`]));

const fixtures: Fixtures = {
  users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 'fixture', token: TOKEN }] }],
  repositories: [
    {
      owner: 'alice',
      name: 'demo',
      branches: {
        main: {
          commits: [
            { message: 'Initial', files: { 'README.md': '# Demo\n\n```js\nlet answer = 42;\n```\n\nSee [the guide](docs/guide.md).\n', 'shared.txt': 'base\n', ...SOURCES } },
            { message: 'A file too large to show', files: { 'big.txt': Array.from({ length: 40_000 }, (_, index) => `line ${index}`).join('\n') + '\n' } },
          ],
        },
        topic: { from: 'main', commits: [{ message: 'Topic one', files: { 'a.txt': 'a\n' } }, { message: 'Topic two', files: { 'b.txt': 'b\n' } }] },
        ours: { from: 'main', commits: [{ message: 'Ours', files: { 'shared.txt': 'ours\n' } }] },
        clash: { from: 'main', commits: [{ message: 'Theirs', files: { 'shared.txt': 'theirs\n' } }] },
        'feature/renovate_configure_every_dependency_now': { from: 'main', commits: [{ message: 'Needs checks with a long subject line to wrap', files: { 'c.txt': 'c\n' } }] },
      },
      pulls: [
        { title: 'Topic', head: 'topic', base: 'main' },
        { title: 'Clash', head: 'clash', base: 'ours' },
        { title: 'Needs checks', head: 'feature/renovate_configure_every_dependency_now', base: 'main' },
      ],
    },
  ],
};

let host: RepoHost;
let browser: Browser | undefined;
let session: string;
const api = `/api/v1/repos/alice/demo`;

beforeAll(async () => {
  host = await startHost({ fixtures, allowLocalNetwork: true });
  const login = await http(`${host.url}/login`, { form: { username: 'alice', password: 'password123', no_redirect: '1' } });
  session = /token=([^;]+)/.exec(String([login.headers['set-cookie']].flat().find((value) => value?.startsWith('token='))))![1]!;
  await mkdir(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

async function launch(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
  browser ??= await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  return browser;
}

/** A signed-in browser (CSP bypassed so axe can be injected). */
async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await (await launch()).newContext({ bypassCSP: true });
  await context.addCookies([{ name: 'token', value: session, url: host.url }]);
  return { context, page: await context.newPage() };
}

const inspect = (page: Page, name: string) => inspectPage(page, name, 'rough');

/** Links whose text starts or ends with white space (underlined spaces around the words). */
const spacedLinks = (page: Page) => page.$$eval('main a', (links) => links.map((link) => link.textContent ?? '').filter((text) => /^\s|\s$/.test(text)));

describe('the rough edges of issue 21', () => {
  // First: the host's highlighter has never run, as on a server just started.
  it('4: the first view of a small file is highlighted, even when several are opened at once on a cold highlighter', async () => {
    const pages = await Promise.all(Object.keys(SOURCES).map((path) => http(`${host.url}/alice/demo/src/branch/main/${path}`)));
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.text).toContain('<span class="hljs-keyword">export</span>');
    }
  });

  it('7: the "too large" message links to the whole diff, and commit and pull request .diff/.patch are served', async () => {
    const sha = ((await http(`${host.url}/api/v3/repos/alice/demo/commits/main`, { headers: bearer(TOKEN) })).json as { sha: string }).sha;
    const page = await http(`${host.url}/alice/demo/commit/${sha}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/too large to show here\. <a href="\/alice\/demo\/commit\/[0-9a-f]{40}\.diff">Download the full diff<\/a> or <a href="\/alice\/demo\/commit\/[0-9a-f]{40}\.patch">/);
    for (const [address, start] of [
      [`/alice/demo/commit/${sha}.diff`, 'diff --git a/big.txt b/big.txt'],
      [`/alice/demo/commit/${sha}.patch`, `From ${sha}`],
      ['/alice/demo/pulls/1.diff', 'diff --git a/a.txt b/a.txt'],
      ['/alice/demo/pulls/1.patch', 'From '],
    ]) {
      const text = await http(`${host.url}${address}`);
      expect(text.status, address).toBe(200);
      expect(String(text.headers['content-type'])).toMatch(/^text\/plain/);
      expect(text.text.startsWith(start!), address).toBe(true);
    }
  });

  it('5: a ping or a redelivery does not say "Saved."; the token list shows dates as times, not ISO text', async () => {
    const hook = await http(`${host.url}${api}/hooks`, { headers: bearer(TOKEN), json: { url: 'http://127.0.0.1:9/hook', content_type: 'json', events: ['push'], active: true } });
    expect(hook.status).toBeLessThan(300);
    const id = (hook.json as { id: number }).id;
    const ping = await http(`${host.url}/alice/demo/settings/hooks/${id}/ping`, { headers: cookie(session), form: {} });
    expect(ping.status).toBe(303);
    const after = await http(`${host.url}${String(ping.headers.location)}`, { headers: cookie(session) });
    expect(after.text).not.toContain('Saved.');
    expect(after.text).toContain('Ping sent');
    const saved = await http(`${host.url}/alice/demo/settings/hooks/${id}?saved=1`, { headers: cookie(session) });
    expect(saved.text).toContain('Saved.');
    // A made-up key shows nothing (the page never shows text from the query).
    expect((await http(`${host.url}/alice/demo/settings/hooks/${id}?saved=toString`, { headers: cookie(session) })).text).not.toContain('class="notice"');

    const tokens = await http(`${host.url}/alice/settings/api-tokens`, { headers: cookie(session) });
    const row = /<tr><td>fixture<\/td>[\s\S]*?<\/tr>/.exec(tokens.text)![0];
    expect(row).not.toMatch(/>\d{4}-\d\d-\d\dT[^<]*</);
    expect(row).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+" title="[^"]+">[^<]+ ago<\/time>|just now/);
  });

  it('6: clients of the spec still get the token in the redirect; the page revokes tokens', async () => {
    // The spec (http-api.md) fixes this answer for its clients: 303 with new_token= in Location.
    const token = await createApiToken(host, session, 'alice', 'spec-client');
    expect((await http(`${host.url}/api/v1/me`, { headers: bearer(token) })).status).toBe(200);
    const list = await http(`${host.url}/alice/settings/api-tokens`, { headers: cookie(session) });
    const action = /<tr><td>spec-client<\/td>[\s\S]*?action="(\/alice\/settings\/api-tokens\/\d+\/revoke)"/.exec(list.text)?.[1];
    expect(action).toBeDefined();
    const revoked = await http(`${host.url}${action}`, { headers: cookie(session), form: {} });
    expect(revoked.status).toBe(303);
    expect((await http(`${host.url}/api/v1/me`, { headers: bearer(token) })).status).toBe(401);
    expect((await http(`${host.url}/api/v1/me`, { headers: bearer(TOKEN) })).status).toBe(200);
    // Only the owner: another path is 404.
    expect((await http(`${host.url}/bob/settings/api-tokens/1/revoke`, { headers: cookie(session), form: {} })).status).toBe(404);
  });

  it(
    '6: in the browser a new token is shown once from the POST answer (never in a URL) and can be revoked',
    async () => {
      const { context, page } = await signedIn();
      const addresses: string[] = [];
      page.on('request', (request) => addresses.push(request.url()));
      await page.goto(`${host.url}/alice/settings/api-tokens`);
      await page.fill('input[name=name]', 'laptop');
      await page.click('main button:has-text("Generate token")');
      await page.waitForSelector('#new-token');
      const token = (await page.textContent('#new-token'))!.trim();
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(page.url()).toBe(`${host.url}/alice/settings/api-tokens`);
      expect(addresses.filter((address) => address.includes(token))).toEqual([]);
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(token) })).status).toBe(200);
      await inspect(page, 'api-tokens-new');
      await page.goto(`${host.url}/alice/settings/api-tokens`);
      expect(await page.locator('#new-token').count()).toBe(0);
      await page.click('button[aria-label="Revoke laptop"]');
      await page.waitForURL(/revoked=1$/);
      expect(await page.textContent('[role=status]')).toContain('revoked');
      expect(await page.textContent('main')).not.toContain('laptop');
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(token) })).status).toBe(401);
      await inspect(page, 'api-tokens');
      await context.close();
    },
    BROWSER_MS,
  );

  it(
    '2, 3: the merge box says why it cannot merge and its button is disabled; a merged pull request says so; links hold only their words',
    async () => {
      const merged = await http(`${host.url}${api}/pulls/1/merge`, { headers: bearer(TOKEN), json: { method: 'merge' } });
      expect.soft(merged.status).toBe(200);
      const protect = await http(`${host.url}${api}/branch_protections/main`, { method: 'PUT', headers: bearer(TOKEN), json: { required_status_contexts: ['ci/test'] } });
      expect.soft(protect.status).toBeLessThan(300);
      const { context, page } = await signedIn();

      await page.goto(`${host.url}/alice/demo/pulls/1`);
      const line = (await page.textContent('.item-heading + p'))!.replace(/\s+/g, ' ');
      expect.soft(line).toMatch(/alice merged 2 commits into main from topic ·/);
      expect.soft(line).not.toContain('wants to merge');
      expect.soft(await spacedLinks(page)).toEqual([]);
      await inspect(page, 'pull-merged');

      await page.goto(`${host.url}/alice/demo/pulls/2`);
      expect.soft(await page.textContent('.item-heading + p')).toMatch(/wants to merge\s+clash\s+into\s+ours/);
      expect.soft(await spacedLinks(page)).toEqual([]);
      expect.soft(await page.isDisabled('#merge-box button:has-text("Merge pull request")')).toBe(true);
      expect.soft(await page.textContent('#merge-blocked')).toContain('conflicts with ours');
      expect.soft(await page.getAttribute('#merge-box button:has-text("Merge pull request")', 'aria-describedby')).toBe('merge-blocked');
      await inspect(page, 'pull-conflict');

      await page.goto(`${host.url}/alice/demo/pulls/3`);
      expect.soft(await page.isDisabled('#merge-box button:has-text("Merge pull request")')).toBe(true);
      expect.soft(await page.textContent('#merge-blocked')).toContain('required check ci/test (missing) must pass');
      await inspect(page, 'pull-checks');
      // Once the check passes the button is enabled again.
      const head = (await http(`${host.url}${api}/pulls/3`, { headers: bearer(TOKEN) })).json as { head_sha: string };
      await http(`${host.url}${api}/statuses/${head.head_sha}`, { headers: bearer(TOKEN), json: { state: 'success', context: 'ci/test' } });
      await page.goto(`${host.url}/alice/demo/pulls/3`);
      expect.soft(await page.isDisabled('#merge-box button:has-text("Merge pull request")')).toBe(false);
      expect.soft(await page.locator('#merge-blocked').count()).toBe(0);
      await context.close();
    },
    BROWSER_MS,
  );

  it(
    '5, 8: code blocks start at their edge, the switcher has no bullets, Escape closes menus, Branches fits a phone, and a skip link comes first',
    async () => {
      const { context, page } = await signedIn();
      await page.goto(`${host.url}/alice/demo`);
      // The first tab stop skips the header and the tabs.
      await page.keyboard.press('Tab');
      expect.soft(await page.evaluate(() => [document.activeElement?.textContent, document.activeElement?.getAttribute('href')])).toEqual(['Skip to content', '#content']);
      await page.keyboard.press('Enter');
      expect.soft(await page.evaluate(() => document.activeElement?.id)).toBe('content');
      await page.keyboard.press('Tab');
      expect.soft(await page.evaluate(() => document.querySelector('nav[aria-label=Repository]')!.contains(document.activeElement))).toBe(false);

      // A code block's first character sits where its other lines start: no padding of inline code inside <pre>.
      const offsets = await page.$eval('.readme pre code', (code) => {
        const pre = code.parentElement!;
        const range = document.createRange();
        range.setStart(code.firstChild!, 0);
        range.setEnd(code.firstChild!, 1);
        return { char: range.getBoundingClientRect().left, box: pre.getBoundingClientRect().left + parseFloat(getComputedStyle(pre).paddingLeft) };
      });
      expect.soft(Math.abs(offsets.char - offsets.box)).toBeLessThan(1);

      await page.click('details.switcher summary');
      expect.soft(await page.$eval('details.switcher', (details) => (details as HTMLDetailsElement).open)).toBe(true);
      expect.soft(await page.$$eval('details.switcher li', (items) => [...new Set(items.map((item) => getComputedStyle(item).listStyleType))])).toEqual(['none']);
      await inspect(page, 'switcher-open');
      await page.keyboard.press('Escape');
      expect.soft(await page.$eval('details.switcher', (details) => (details as HTMLDetailsElement).open)).toBe(false);
      await page.click('details.menu summary');
      expect.soft(await page.$eval('details.menu', (details) => (details as HTMLDetailsElement).open)).toBe(true);
      await page.keyboard.press('Escape');
      expect.soft(await page.$eval('details.menu', (details) => (details as HTMLDetailsElement).open)).toBe(false);
      expect.soft(await page.evaluate(() => document.activeElement?.tagName)).toBe('SUMMARY');

      expect.soft(await spacedLinks(page)).toEqual([]);

      await page.goto(`${host.url}/alice/demo/branches`);
      expect.soft(await spacedLinks(page)).toEqual([]);
      await inspect(page, 'branches');
      await context.close();
    },
    BROWSER_MS,
  );
});
