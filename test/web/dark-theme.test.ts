import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { CHROMIUM, FLAGS, inspect, SCREENSHOTS } from '../helpers/browser.js';
import { startHost } from '../helpers/host.js';

// Issue 21: a dark theme that follows the reader's system (prefers-color-scheme), with every page keeping AA contrast
// (axe's color-contrast rule), and the light theme as it was.

const JOURNEY_MS = 120_000;

/** What a page draws: the page's background and its text colour, as computed. */
const colours = (page: Page) =>
  page.evaluate(() => ({ background: getComputedStyle(document.documentElement).backgroundColor, text: getComputedStyle(document.body).color }));

describe('dark theme', () => {
  let host: RepoHost;
  let browser: Browser;

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
    host = await startHost({
      fixtures: {
        users: [{ username: 'dana', email: 'dana@example.com', password: 'password123' }],
        repositories: [
          {
            owner: 'dana',
            name: 'night',
            labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'pale', color: 'fef2c0' }],
            branches: {
              main: { commits: [{ message: 'Start', files: { 'README.md': '# Night\n\nSome `code` and a [link](docs.md).\n\n```js\nconst x = "dark";\n```\n', 'app.js': 'function hello(name) {\n  return `hi ${name}`; // greet\n}\nconst old = 1;\n' } }] },
              change: { from: 'main', commits: [{ message: 'Change hello', files: { 'app.js': 'function hello(name) {\n  return `hello ${name}`; // greet\n}\nconst added = 2;\n' } }] },
            },
            issues: [{ title: 'Too bright', body: 'The **pages** glare.', labels: ['bug', 'pale'], comments: [{ body: 'Agreed' }] }],
            pulls: [{ title: 'Change hello', head: 'change', base: 'main' }],
          },
        ],
      },
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
    await mkdir(SCREENSHOTS, { recursive: true });
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('draws every page dark with readable contrast when the system prefers dark', async () => {
    const context = await browser.newContext({ colorScheme: 'dark', bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${host.url}/login`);
    await page.fill('input[name=username]', 'dana');
    await page.fill('input[name=password]', 'password123');
    await page.click('main button[type=submit]');
    await page.waitForURL(`${host.url}/`);
    const pages: Record<string, string> = {
      home: '/dana/night',
      file: '/dana/night/src/branch/main/app.js',
      issues: '/dana/night/issues',
      issue: '/dana/night/issues/1',
      pull: '/dana/night/pulls/2',
      diff: '/dana/night/pulls/2/files',
      settings: '/dana/night/settings',
    };
    for (const [name, path] of Object.entries(pages)) {
      await page.goto(`${host.url}${path}`);
      expect(await colours(page), name).toEqual({ background: 'rgb(13, 17, 23)', text: 'rgb(230, 237, 243)' });
      await inspect(page, name, 'dark', 1);
    }
    // Diff lines keep their meaning in the dark: added and removed lines are tinted, not white.
    await page.goto(`${host.url}/dana/night/pulls/2/files`);
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
});
