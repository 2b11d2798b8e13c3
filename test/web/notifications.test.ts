import { Octokit } from '@octokit/rest';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { inspect, launchChromium, signIn } from '../helpers/browser.js';
import { startHost } from '../helpers/host.js';

// Issue 21: notifications in the browser. The header says how many are unread; the inbox lists them, a thread read by
// opening its issue or pull request, or marked read or done from the inbox.

const JOURNEY_MS = 120_000;
const ALICE = 'alice_token_0123456789abcdef';

describe('the notifications inbox', () => {
  let host: RepoHost;
  let browser: Browser;
  let page: Page;
  let alice: Octokit;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [
          { username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 'api', token: ALICE }] },
          { username: 'bob', email: 'bob@example.com', password: 'password123' },
        ],
        repositories: [{ owner: 'alice', name: 'tool', collaborators: { bob: 'write' }, branches: { main: { commits: [{ message: 'Start', files: { 'a.txt': 'a\n' } }] } } }],
      },
    });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ALICE });
    browser = await launchChromium();
    page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await signIn(page, host.url, 'bob');
  }, JOURNEY_MS);

  /** Clicks a form's button and waits for the page its answer leads to (here the inbox again: the URL alone says nothing). */
  const submit = async (button: ReturnType<Page['locator']>) => {
    await Promise.all([page.waitForNavigation(), button.click()]);
  };

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('shows the unread count, lists the thread, and reads it when its issue is opened', async () => {
    const issue = (await alice.issues.create({ owner: 'alice', repo: 'tool', title: 'Please look, Bob', body: 'What do you think, @bob?' })).data;
    await page.goto(`${host.url}/alice/tool`);
    expect((await page.textContent('header .inbox'))!.replace(/\s+/g, ' ').trim()).toBe('Notifications 1');
    await page.click('header .inbox');
    await page.waitForURL(`${host.url}/notifications`);
    expect(await page.textContent('.notifications')).toContain('you were mentioned');
    await inspect(page, 'inbox', 'notifications');
    await page.click(`.notifications a:text-is("Please look, Bob")`);
    await page.waitForURL(`${host.url}/alice/tool/issues/${issue.number}`);
    // Opening it read it: the header of that very page already says so.
    expect((await page.textContent('header .inbox'))!.trim()).toBe('Notifications');
    await page.goto(`${host.url}/notifications`);
    expect(await page.textContent('main')).toContain('No unread notifications.');
    await page.click('.state-tabs a:has-text("All")');
    expect(await page.textContent('.notifications')).toContain('Please look, Bob');
  }, JOURNEY_MS);

  it('marks one read, all read, and done from the inbox', async () => {
    for (const title of ['First news', 'Second news', 'Third news']) await alice.issues.create({ owner: 'alice', repo: 'tool', title, body: '@bob' });
    await page.goto(`${host.url}/notifications`);
    await submit(page.locator('button[aria-label="Mark as read: issue #4 of tool"]'));
    expect(await page.textContent('.notifications')).not.toContain('Third news');
    expect(await page.textContent('.state-tabs')).toMatch(/Unread\s*2/);
    await submit(page.locator('button:text-is("Mark all as read")'));
    expect(await page.textContent('main')).toContain('No unread notifications.');
    await page.goto(`${host.url}/notifications?show=all`);
    const before = await page.locator('.notifications .item').count();
    await submit(page.locator('.notifications .item').first().locator('button:text-is("Done")'));
    await page.goto(`${host.url}/notifications?show=all`);
    expect(await page.locator('.notifications .item').count()).toBe(before - 1);
  }, JOURNEY_MS);
});
