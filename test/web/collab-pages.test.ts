import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git } from '../helpers/git-cli.js';
import { createApiToken, http, startHost, tempDir } from '../helpers/host.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
// The machine has no network: keep Chromium from trying to reach anything but localhost.
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SCREENSHOTS = join(process.cwd(), '.test-results', 'screenshots');

let host: RepoHost;
let browser: Browser;
let work: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
  host = await startHost({ allowLocalWebhooks: true } as never);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  work = await tempDir('repohost-collab-');
  await mkdir(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await work?.cleanup();
});

/** A signed-in person: their browser context, a page, their session and an API token for git. */
interface Person {
  name: string;
  context: BrowserContext;
  page: Page;
  session: string;
  token: string;
}

async function registerPerson(name: string): Promise<Person> {
  // The page CSP forbids inline scripts; axe is injected as one, so the tests bypass it. Escaping is then the only
  // defence left against the XSS vectors, which is what those tests check.
  const context = await browser.newContext({ bypassCSP: true });
  const page = await context.newPage();
  // Any dialog (alert from an injected script) fails the test that caused it.
  page.on('dialog', (dialog) => {
    throw new Error(`unexpected dialog: ${dialog.message()}`);
  });
  await page.goto(`${host.url}/register`);
  await page.fill('input[name=username]', name);
  await page.fill('input[name=email]', `${name}@example.com`);
  await page.fill('input[name=password]', 'password123');
  await page.click('main button[type=submit]');
  await page.waitForURL(`${host.url}/`);
  const session = (await context.cookies()).find((cookie) => cookie.name === 'token')!.value;
  return { name, context, page, session, token: await createApiToken(host, session, name, 'git') };
}

async function createRepoInBrowser(person: Person, name: string, visibility: 'public' | 'private' = 'public'): Promise<void> {
  await person.page.goto(`${host.url}/new`);
  await person.page.fill('input[name=name]', name);
  await person.page.selectOption('select[name=repo_visibility]', visibility);
  await person.page.click('main button[type=submit]');
  await person.page.waitForURL(`${host.url}/${person.name}/${name}`);
}

/** axe-core in the page: no serious or critical violation; then screenshots at desktop and phone widths. */
async function inspect(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ html: string }> }> }> } }).axe.run(document, {});
    return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.html).join(' | ')}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(SCREENSHOTS, `collab-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

let copies = 0;

/** A working folder of `owner/repo` (a clone, or a new repository if it is empty) that pushes with the owner's token. */
async function workingCopy(owner: Person, repo: string, clone = false): Promise<{ run: (...args: string[]) => Promise<string>; write: (file: string, text: string) => Promise<void>; remote: string }> {
  const dir = join(work.path, `copy-${++copies}`);
  const remote = new URL(`${host.url}/${owner.name}/${repo}.git`);
  remote.username = owner.name;
  remote.password = owner.token;
  if (clone) await git(work.path, ['clone', '-q', remote.toString(), dir], work.path);
  else {
    await mkdir(dir, { recursive: true });
    await git(dir, ['init', '-q', '.'], work.path);
  }
  return { run: (...args: string[]) => git(dir, args, work.path), write: (file, text) => writeFile(join(dir, file), text), remote: remote.toString() };
}

let olive: Person;

describe('collaboration pages in headless Chromium', () => {
  it('opens an issue, comments in Markdown, labels it, closes and reopens it', async () => {
    olive = await registerPerson('olive');
    await createRepoInBrowser(olive, 'garden');
    const copy = await workingCopy(olive, 'garden');
    await copy.write('README.md', '# garden\n');
    await copy.write('shared.txt', 'base\n');
    await copy.run('add', '.');
    await copy.run('commit', '-q', '-m', 'Initial commit');
    await copy.run('push', '-q', copy.remote, 'main');

    const page = olive.page;
    await page.goto(`${host.url}/olive/garden/issues`);
    await inspect(page, 'issues-empty');
    await page.click('text=New issue');
    await page.fill('input[name=title]', 'Tomatoes wilt');
    await page.fill('textarea[name=body]', 'They **wilt** in the sun.');
    await page.click('main button:has-text("Open issue")');
    await page.waitForURL(/\/olive\/garden\/issues\/1$/);
    expect(await page.textContent('.conversation .markdown strong')).toBe('wilt');

    await page.fill('textarea[name=body]', 'Water them *twice* a day.');
    await page.click('main button:has-text("Comment")');
    await page.waitForURL(/\/issues\/1#comment-\d+$/);
    expect(await page.textContent('.conversation article:nth-of-type(2) .markdown em')).toBe('twice');

    await page.goto(`${host.url}/olive/garden/labels`);
    await page.fill('input[name=name]', 'bug');
    await page.fill('input[name=description]', 'Something is wrong');
    await page.click('main button:has-text("Create label")');
    await page.waitForURL(`${host.url}/olive/garden/labels`);
    await inspect(page, 'labels');
    await page.goto(`${host.url}/olive/garden/issues/1`);
    await page.check('input[value=bug]');
    await page.click('main button:has-text("Save labels")');
    await page.waitForURL(/\/issues\/1$/);
    expect(await page.textContent('.issue-labels')).toContain('bug');

    await page.click('main button:has-text("Close issue")');
    await page.waitForURL(/\/issues\/1$/);
    expect(await page.textContent('.item-heading + p')).toContain('Closed');
    await page.goto(`${host.url}/olive/garden/issues?status=closed`);
    expect(await page.textContent('.state-tabs')).toMatch(/Open\s*0[\s\S]*Closed\s*1/);
    expect(await page.textContent('.items')).toContain('Tomatoes wilt');
    await page.click('.label-filter a:has-text("bug")');
    expect(await page.textContent('.items')).toContain('Tomatoes wilt');
    await page.goto(`${host.url}/olive/garden/issues/1`);
    await page.click('main button:has-text("Reopen issue")');
    await page.waitForURL(/\/issues\/1$/);
    expect(await page.textContent('.item-heading + p')).toContain('Open');
    await inspect(page, 'issue');
    await page.goto(`${host.url}/olive/garden/issues`);
    await inspect(page, 'issues');
  });

  it('opens pull requests from the compare page and merges them with each method', async () => {
    const page = olive.page;
    const copy = await workingCopy(olive, 'garden', true);
    const remote = copy.remote;
    const branch = async (name: string, file: string, commits = 1) => {
      await copy.run('checkout', '-q', '-b', name, 'main');
      for (let index = 1; index <= commits; index++) {
        await copy.write(file, `${name} ${index}\n`);
        await copy.run('add', file);
        await copy.run('commit', '-q', '-m', `${name} commit ${index}`);
      }
      await copy.run('push', '-q', remote, name);
      return copy.run('rev-parse', 'HEAD');
    };
    const tips: Record<string, string> = {};
    for (const name of ['fast', 'merged', 'squashed', 'rebased']) tips[name] = await branch(name, `${name}.txt`, 2);

    const open = async (head: string, title: string): Promise<number> => {
      await page.goto(`${host.url}/olive/garden/compare`);
      await page.selectOption('select[name=base]', 'main');
      await page.selectOption('select[name=head]', head);
      await page.click('main button:has-text("Compare")');
      await page.waitForURL(`${host.url}/olive/garden/compare/main...${head}`);
      expect(await page.textContent('.commit-list')).toContain(`${head} commit 2`);
      expect(await page.textContent('.diff-view')).toContain(`${head}.txt`);
      await page.fill('input[name=title]', title);
      await page.click('main button:has-text("Create pull request")');
      await page.waitForURL(/\/olive\/garden\/pulls\/\d+$/);
      return Number(/(\d+)$/.exec(page.url())![1]);
    };
    const merge = async (number: number, method: string) => {
      await page.goto(`${host.url}/olive/garden/pulls/${number}`);
      expect(await page.textContent('#merge-box')).toContain('no conflicts');
      await page.check(`input[name=method][value=${method}]`);
      await page.click('#merge-box button:has-text("Merge pull request")');
      await page.waitForURL(`${host.url}/olive/garden/pulls/${number}`);
      expect(await page.textContent('.merge-box')).toContain('merged');
    };

    const fast = await open('fast', 'Fast change');
    await inspect(page, 'pull');
    await page.click('nav[aria-label="Pull request"] a:has-text("Commits")');
    await page.waitForURL(`${host.url}/olive/garden/pulls/${fast}/commits`);
    expect(await page.locator('.commit-list li').count()).toBe(2);
    await inspect(page, 'pull-commits');
    await page.click('nav[aria-label="Pull request"] a:has-text("Files changed")');
    await page.waitForURL(`${host.url}/olive/garden/pulls/${fast}/files`);
    expect(await page.textContent('.diff-view')).toContain('fast.txt');
    await inspect(page, 'pull-files');
    await merge(fast, 'fast-forward');

    const merged = await open('merged', 'Merge change');
    await merge(merged, 'merge');
    const squashed = await open('squashed', 'Squash change');
    await merge(squashed, 'squash');
    const rebased = await open('rebased', 'Rebase change');
    await merge(rebased, 'rebase');
    await page.goto(`${host.url}/olive/garden/pulls?status=closed`);
    expect(await page.textContent('.state-tabs')).toMatch(/Closed\s*4/);
    await inspect(page, 'pulls');

    // What git itself says on a fresh clone.
    const clone = join(work.path, 'fresh-clone');
    await git(work.path, ['clone', '-q', remote, clone], work.path);
    const log = (format: string) => git(clone, ['log', `--format=${format}`, 'main'], work.path);
    const subjects = (await log('%s')).split('\n');
    const shas = (await log('%H')).split('\n');
    const parents = (await log('%P')).split('\n');
    // Fast-forward: the branch's own commits, unchanged.
    expect(shas).toContain(tips.fast);
    // Merge: a merge commit with two parents, the branch tip one of them.
    const mergeAt = subjects.indexOf(`Merge pull request #${merged} from merged`);
    expect(mergeAt).toBeGreaterThanOrEqual(0);
    expect(parents[mergeAt]!.split(' ')).toEqual([expect.any(String), tips.merged]);
    // Squash: one commit titled after the pull request; the branch's commits are not in main.
    expect(subjects).toContain(`Squash change (#${squashed})`);
    expect(subjects).not.toContain('squashed commit 1');
    // Rebase: the branch's commits replayed on main as new commits.
    expect(subjects).toContain('rebased commit 2');
    expect(shas).not.toContain(tips.rebased);
    expect(subjects[0]).toBe('rebased commit 2');
  });

  it('explains why a conflicting pull request cannot merge', async () => {
    const page = olive.page;
    const copy = await workingCopy(olive, 'garden', true);
    const remote = copy.remote;
    await copy.run('checkout', '-q', '-b', 'clash', 'main');
    await copy.write('shared.txt', 'theirs\n');
    await copy.run('commit', '-q', '-am', 'Theirs');
    await copy.run('push', '-q', remote, 'clash');
    await copy.run('checkout', '-q', 'main');
    await copy.write('shared.txt', 'ours\n');
    await copy.run('commit', '-q', '-am', 'Ours');
    await copy.run('push', '-q', remote, 'main');

    await page.goto(`${host.url}/olive/garden/compare/main...clash`);
    expect(await page.textContent('main')).toContain('Cannot merge automatically');
    await inspect(page, 'compare');
    await page.fill('input[name=title]', 'Clashing change');
    await page.click('main button:has-text("Create pull request")');
    await page.waitForURL(/\/pulls\/\d+$/);
    expect(await page.textContent('#merge-box')).toContain('cannot be merged automatically');
    const [response] = await Promise.all([page.waitForResponse((answer) => answer.url().endsWith('/merge')), page.click('#merge-box button:has-text("Merge pull request")')]);
    expect(response.status()).toBe(405);
    expect(await page.textContent('[role=alert]')).toContain('conflict in shared.txt');
  });
});
