import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { launchChromium } from '../helpers/browser.js';
import { pushFiles } from '../helpers/git-cli.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { http, startHost } from '../helpers/host.js';

// Issue 21: headings of rendered Markdown get GitHub's ids (`#endpoints` links reach them), and SVG images in
// Markdown are drawn (served as image/svg+xml under a sandboxing policy: their script never runs).

const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="window.__xss='svg'"><rect width="40" height="20" fill="#0969da"/><script>window.__xss='svg'</script></svg>\n`;

describe('Markdown headings and SVG images', () => {
  let host: RepoHost;
  let browser: Browser;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    browser = await launchChromium();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'docs');
    const filler = Array.from({ length: 80 }, (_, i) => `Paragraph ${i} of the introduction.\n`).join('\n');
    await pushFiles(
      host,
      'alice',
      alice.token,
      'docs',
      {
        'README.md': '# Docs\n\n![logo](logo.svg)\n\nSee [the endpoints](docs/api.md#endpoints).\n',
        'logo.svg': LOGO,
        'docs/api.md': `# API: Overview\n\n${filler}\n## Endpoints\n\nThe list.\n\n## Endpoints\n\nAgain.\n\n## Content\n\n${filler}`,
      },
      'Docs',
    );
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it("gives headings GitHub's ids, numbered when repeated and prefixed so they never take the page's own", async () => {
    const page = await http(`${host.url}/alice/docs/src/branch/main/docs/api.md`);
    expect(page.text).toContain('<h1 id="user-content-api-overview">API: Overview</h1>');
    expect(page.text).toContain('<h2 id="user-content-endpoints">Endpoints</h2>');
    expect(page.text).toContain('<h2 id="user-content-endpoints-1">Endpoints</h2>');
    // The page's own main region keeps its id: a heading named like it is prefixed.
    expect(page.text).toContain('<h2 id="user-content-content">Content</h2>');
    expect(page.text.match(/ id="content"/g)).toHaveLength(1);
  });

  it('scrolls a link with #endpoints to its heading, and draws an SVG image without running its script', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => void dialog.dismiss().then(() => dialogs.push(dialog.message())));
    await page.goto(`${host.url}/alice/docs`);
    const size = await page.locator('img[alt=logo]').evaluate((image: HTMLImageElement) => (image.complete ? image.naturalWidth : -1));
    expect(size).toBe(40);
    await page.click('a:has-text("the endpoints")');
    await page.waitForURL(/docs\/api\.md#endpoints$/);
    await expect.poll(() => page.locator('#user-content-endpoints').evaluate((heading) => Math.round(heading.getBoundingClientRect().top))).toBeLessThan(50);
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(300);
    await page.goto(`${host.url}/alice/docs/raw/branch/main/logo.svg`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await context.close();
  });
});
