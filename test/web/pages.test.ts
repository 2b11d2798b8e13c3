import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
// The machine has no network: keep Chromium from trying to reach anything but localhost.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let host: RepoHost;
let browser: Browser;

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
  host = await startHost();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

async function registerInBrowser(page: Page, username: string): Promise<void> {
  await page.goto(`${host.url}/register`);
  await page.fill('input[name=username]', username);
  await page.fill('input[name=email]', `${username}@example.com`);
  await page.fill('input[name=password]', 'password123');
  await page.click('main button[type=submit]');
  await page.waitForURL(`${host.url}/`);
}

describe('web pages in headless Chromium', () => {
  it('registers, creates a repository, and mints an API token shown exactly once', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await registerInBrowser(page, 'webby');
    expect(await page.textContent('h1')).toContain('Signed in as webby');
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'token');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');

    await page.click('text=New repository');
    await page.fill('input[name=name]', 'site');
    await page.fill('input[name=description]', '<script>window.pwned = 1</script> my site');
    await page.click('main button[type=submit]');
    await page.waitForURL(`${host.url}/webby/site`);
    expect(await page.textContent('#clone-url')).toBe(`${host.url}/webby/site.git`);
    // The description is shown as text, never run as markup.
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.textContent('main')).toContain('<script>window.pwned = 1</script> my site');

    await page.goto(`${host.url}/webby/settings/api-tokens`);
    await page.fill('input[name=name]', 'laptop');
    await page.click('main button[type=submit]');
    // Shown once from the form's answer, never carried in a URL (issue 21).
    await page.waitForSelector('#new-token');
    expect(page.url()).toBe(`${host.url}/webby/settings/api-tokens`);
    const token = (await page.textContent('#new-token'))!.trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect((await http(`${host.url}/api/v1/me`, { headers: bearer(token) })).json.username).toBe('webby');

    await page.goto(`${host.url}/webby/settings/api-tokens`);
    expect(await page.locator('#new-token').count()).toBe(0);
    expect(await page.textContent('table')).toContain('laptop');
    await context.close();
  });

  it('re-renders the register form with the error when the username is taken', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await registerInBrowser(page, 'taken');
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(`${host.url}/register`);
    await second.fill('input[name=username]', 'taken');
    await second.fill('input[name=email]', 'someone@example.com');
    await second.fill('input[name=password]', 'password123');
    const [response] = await Promise.all([second.waitForResponse(`${host.url}/register`), second.click('main button[type=submit]')]);
    expect(response.status()).toBe(409);
    expect(await second.textContent('[role=alert]')).toContain('username is already taken');
    await context.close();
    await other.close();
  });

  it('signs out and back in; a private repository page is a 404 for everyone else', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await registerInBrowser(page, 'privy');
    await page.goto(`${host.url}/new`);
    await page.fill('input[name=name]', 'secret');
    await page.selectOption('select[name=repo_visibility]', 'private');
    await page.click('main button[type=submit]');
    await page.waitForURL(`${host.url}/privy/secret`);
    expect(await page.textContent('h1 .badge')).toBe('Private');

    const anonymous = await browser.newContext();
    const stranger = await anonymous.newPage();
    const hidden = await stranger.goto(`${host.url}/privy/secret`);
    expect(hidden?.status()).toBe(404);
    expect(await stranger.textContent('h1')).toBe('Not found');
    await stranger.goto(`${host.url}/privy`);
    expect(await stranger.textContent('main')).not.toContain('secret');

    await page.click('header summary');
    await page.click('text=Sign out');
    await page.waitForURL(`${host.url}/`);
    expect((await page.goto(`${host.url}/privy/secret`))?.status()).toBe(404);
    await page.goto(`${host.url}/login`);
    await page.fill('input[name=username]', 'privy');
    await page.fill('input[name=password]', 'password123');
    await page.click('main button[type=submit]');
    await page.waitForURL(`${host.url}/`);
    expect((await page.goto(`${host.url}/privy/secret`))?.status()).toBe(200);
    await context.close();
    await anonymous.close();
  });
});
