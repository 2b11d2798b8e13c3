import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { inspect, launchChromium, signIn } from '../helpers/browser.js';
import { http, startHost } from '../helpers/host.js';

// Issue 21: a dark theme that follows the reader's system (prefers-color-scheme), every page keeping AA contrast
// (axe's color-contrast rule) and the light theme as it was; a Markdown preview on every text box, rendered by the
// server as the text will be shown; `#12`, `owner/repo#12` and `@name` linked in conversations and READMEs.

const JOURNEY_MS = 120_000;

/** What a page draws: the page's background and its text colour, as computed. */
const colours = (page: Page) =>
  page.evaluate(() => ({ background: getComputedStyle(document.documentElement).backgroundColor, text: getComputedStyle(document.body).color }));

describe('dark theme, Markdown preview and references', () => {
  let host: RepoHost;
  let browser: Browser;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [{ username: 'dana', email: 'dana@example.com', password: 'password123' }],
        repositories: [
          {
            owner: 'dana',
            name: 'night',
            labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'pale', color: 'fef2c0' }],
            branches: {
              main: { commits: [{ message: 'Start', files: { 'README.md': '# Night\n\nTracked in #2 by @dana. Some `code` and a [link](docs.md).\n\n```js\nconst x = "dark";\n```\n', 'app.js': 'function hello(name) {\n  return `hi ${name}`; // greet\n}\nconst old = 1;\n' } }] },
              change: { from: 'main', commits: [{ message: 'Change hello', files: { 'app.js': 'function hello(name) {\n  return `hello ${name}`; // greet\n}\nconst added = 2;\n' } }] },
            },
            issues: [
              { title: 'Too bright', body: 'The **pages** glare.', labels: ['bug', 'pale'], comments: [{ body: 'Agreed' }] },
              { title: 'Glare', body: 'Related to #1 and dana/night#1; `#1` in code stays.' },
            ],
            pulls: [{ title: 'Change hello', head: 'change', base: 'main' }],
          },
        ],
      },
    });
    browser = await launchChromium();
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('draws every page dark with readable contrast when the system prefers dark', async () => {
    const context = await browser.newContext({ colorScheme: 'dark', bypassCSP: true });
    const page = await context.newPage();
    await signIn(page, host.url, 'dana');
    const pages: Record<string, string> = {
      home: '/dana/night',
      file: '/dana/night/src/branch/main/app.js',
      issues: '/dana/night/issues',
      issue: '/dana/night/issues/1',
      pull: '/dana/night/pulls/3',
      diff: '/dana/night/pulls/3/files',
      settings: '/dana/night/settings',
    };
    for (const [name, path] of Object.entries(pages)) {
      await page.goto(`${host.url}${path}`);
      expect(await colours(page), name).toEqual({ background: 'rgb(13, 17, 23)', text: 'rgb(230, 237, 243)' });
      await inspect(page, name, 'dark', 1);
    }
    // Diff lines keep their meaning in the dark: added and removed lines are tinted, not white.
    await page.goto(`${host.url}/dana/night/pulls/3/files`);
    const tints = await page.evaluate(() => ['tr.add td', 'tr.del td'].map((selector) => getComputedStyle(document.querySelector(selector)!).backgroundColor));
    expect(tints).toEqual(['rgb(18, 38, 30)', 'rgb(45, 21, 25)']);
    await context.close();
  }, JOURNEY_MS);

  it('keeps the light theme for readers who prefer light', async () => {
    const context = await browser.newContext({ colorScheme: 'light', bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${host.url}/dana/night/src/branch/main/app.js`);
    expect(await colours(page)).toEqual({ background: 'rgb(255, 255, 255)', text: 'rgb(31, 35, 40)' });
    await inspect(page, 'file', 'light', 1);
    await context.close();
  }, JOURNEY_MS);
  it('links references in conversations and READMEs, never in code', async () => {
    const issue = (await http(`${host.url}/dana/night/issues/2`)).text;
    expect(issue).toContain('Related to <a href="/dana/night/issues/1" class="issue-link">#1</a> and <a href="/dana/night/issues/1" class="issue-link">dana/night#1</a>; <code>#1</code> in code stays.');
    const home = (await http(`${host.url}/dana/night`)).text;
    expect(home).toContain('Tracked in <a href="/dana/night/issues/2" class="issue-link">#2</a> by <a href="/dana" class="user-mention">@dana</a>. Some');
  });

  it('previews a comment as it will be shown, then posts it with its links', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    await signIn(page, host.url, 'dana');
    await page.goto(`${host.url}/dana/night/issues/1`);
    const box = page.locator('form[action="/dana/night/issues/1/comments"] textarea[name=body]');
    await box.fill('Duplicate of #2, cc @dana. **Closing** <b>soon</b>');
    const toggle = page.locator('form[action="/dana/night/issues/1/comments"] button.preview-toggle');
    await toggle.click();
    const preview = page.locator('form[action="/dana/night/issues/1/comments"] .markdown.preview');
    await expect.poll(() => preview.isVisible()).toBe(true);
    expect(await preview.innerHTML()).toContain(`<a href="${host.url}/dana/night/issues/2" class="issue-link">#2</a>`);
    expect(await preview.locator('strong').textContent()).toBe('Closing');
    // What the author typed as HTML stays text.
    expect(await preview.textContent()).toContain('<b>soon</b>');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await inspect(page, 'comment', 'preview', 1);
    // The text box stays as it was, and the preview hides again.
    expect(await box.inputValue()).toBe('Duplicate of #2, cc @dana. **Closing** <b>soon</b>');
    await toggle.click();
    expect(await preview.isVisible()).toBe(false);
    await page.click('form[action="/dana/night/issues/1/comments"] button[type=submit]');
    await page.waitForURL(/\/dana\/night\/issues\/1/);
    await page.click('article.comment >> text=#2');
    await page.waitForURL(`${host.url}/dana/night/issues/2`);
    // The new-issue form has its preview too.
    await page.goto(`${host.url}/dana/night/issues/new`);
    await page.fill('textarea[name=body]', '# Heading');
    await page.click('button.preview-toggle');
    await expect.poll(() => page.locator('.markdown.preview h1').textContent()).toBe('Heading');
    await context.close();
  }, JOURNEY_MS);
});
