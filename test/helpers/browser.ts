import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
/** Flags that keep Chromium off the network and quiet (this machine has none). */
export const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const SCREENSHOTS = join(process.cwd(), '.test-results', 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Debian's Chromium, headless, for a page test (and the screenshots' folder made). */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
  await mkdir(SCREENSHOTS, { recursive: true });
  return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

/** Signs in through the login page, which leads home. */
export async function signIn(page: Page, baseUrl: string, username: string, password = 'password123'): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  await page.click('main button[type=submit]');
  await page.waitForURL(`${baseUrl}/`);
}

/**
 * A screenshot, taken once more when Chromium reports it could not capture one (a protocol error it gives on a loaded
 * machine, about the browser, not the page).
 */
export async function screenshot(page: Page, options: { path: string; fullPage: boolean }): Promise<void> {
  try {
    await page.screenshot(options);
  } catch (error) {
    if (!/Unable to capture screenshot/.test((error as Error).message)) throw error;
    await page.waitForTimeout(200);
    await page.screenshot(options);
  }
}

/**
 * axe in the page with no serious or critical violation, then screenshots (`<prefix>-<name>-<width>.png`) at desktop and
 * phone widths with nothing wider than the screen (`slack` pixels allowed).
 */
export async function inspect(page: Page, name: string, prefix: string, slack = 0): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ html: string }> }> }> } }).axe.run(document, {});
    return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.html).join(' | ')}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await screenshot(page, { path: join(SCREENSHOTS, `${prefix}-${name}-${width}.png`), fullPage: true });
    // Readable on a phone: nothing wider than the screen (wide tables and code scroll inside their own box).
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} fits ${width}px`).toBeLessThanOrEqual(width + slack);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
