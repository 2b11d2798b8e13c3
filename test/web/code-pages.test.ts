import { existsSync } from 'node:fs';
import { mkdir, rename as move, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git } from '../helpers/git-cli.js';
import { bearer, cookie, createApiToken, createRepo, http, register, startHost, tempDir } from '../helpers/host.js';
import { screenshot } from '../helpers/browser.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SCREENSHOTS = '.test-results/screenshots';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** Every XSS vector sets window.__xss (or opens a dialog) if it ever runs. */
const XSS = {
  description: `<img src=x onerror="window.__xss='description'"><script>window.__xss='description'</script>`,
  fileName: `<img src=x onerror=alert(1)>.txt`,
  message: `<script>window.__xss='message'</script> Fix <b onmouseover=alert(1)>it</b>`,
  readme: [
    '# Welcome to code',
    '',
    'See the [guide](docs/guide.md) and the logo: ![logo](img/logo.png)',
    '',
    `<script>window.__xss='readme'</script>`,
    '',
    `[click me](javascript:window.__xss='readme-link') and [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
    '',
    `<img src=x onerror="window.__xss='readme-img'">`,
    '',
    '![svg](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)',
    '',
  ].join('\n'),
  svg: `<svg xmlns="http://www.w3.org/2000/svg" onload="window.__xss='svg'"><script>window.__xss='svg'</script></svg>\n`,
  html: `<!doctype html><script>window.__xss='html'</script><p onclick="alert(1)">hi</p>\n`,
};

let host: RepoHost;
let browser: Browser;
/** A normal browser context (CSP enforced) for the journeys and the XSS checks. */
let visitor: BrowserContext;
/** A context that lets axe-core's script be injected into our CSP-protected pages. */
let auditor: BrowserContext;
let session: string;
const commits: { first: string; renamed: string; tip: string; feature: string } = { first: '', renamed: '', tip: '', feature: '' };

/** The repository pushed with the real git client: folders, README, source, image, binary, >1 MB file, branches, tag. */
async function pushRepository(token: string, names: string[]): Promise<void> {
  const work = await tempDir('repohost-code-pages-');
  const dir = work.path;
  const run = (args: string[]) => git(dir, args, dir);
  try {
    await run(['init', '-q', '.']);
    await mkdir(join(dir, 'src'));
    await mkdir(join(dir, 'docs'));
    await mkdir(join(dir, 'img'));
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'README.md'), XSS.readme);
    await writeFile(join(dir, 'docs/guide.md'), '# The guide\n\nRead **this** first.\n');
    const source = Array.from({ length: 40 }, (_, index) => `export const value${index + 1} = ${index + 1}; // line ${index + 1}`).join('\n');
    await writeFile(join(dir, 'src/app.ts'), `${source}\n`);
    await writeFile(join(dir, 'img/logo.png'), PNG);
    await writeFile(join(dir, 'bin/data.bin'), Buffer.from([0, 1, 2, 3, 0, 255, 0, 10]));
    await writeFile(join(dir, 'big.txt'), 'x'.repeat(1024 * 1024 + 10));
    await writeFile(join(dir, XSS.fileName), 'named badly\n');
    await writeFile(join(dir, 'evil.svg'), XSS.svg);
    await writeFile(join(dir, 'page.html'), XSS.html);
    await writeFile(join(dir, 'old-name.txt'), 'renamed later\n');
    await run(['add', '-A']);
    await run(['commit', '-q', '-m', 'Initial import']);
    commits.first = await run(['rev-parse', 'HEAD']);
    await run(['tag', 'v1.0']);
    await move(join(dir, 'old-name.txt'), join(dir, 'docs/new-name.txt'));
    await writeFile(join(dir, 'src/app.ts'), `${source.replace('value3 = 3', 'value3 = 33')}\nexport const added = true;\n`);
    await run(['add', '-A']);
    await run(['commit', '-q', '-m', XSS.message]);
    commits.renamed = await run(['rev-parse', 'HEAD']);
    await run(['checkout', '-q', '-b', 'feature/slash']);
    await writeFile(join(dir, 'feature.txt'), 'only on the feature branch\n');
    await run(['add', '-A']);
    await run(['commit', '-q', '-m', 'Add the feature']);
    commits.feature = await run(['rev-parse', 'HEAD']);
    await run(['checkout', '-q', 'main']);
    // Enough commits for a second history page (30 per page).
    for (let index = 1; index <= 32; index += 1) await run(['commit', '-q', '--allow-empty', '-m', `Empty commit ${index}`]);
    commits.tip = await run(['rev-parse', 'HEAD']);
    for (const name of names) {
      const remote = new URL(`${host.url}/alice/${name}.git`);
      remote.username = 'alice';
      remote.password = token;
      await run(['push', '-q', remote.toString(), 'main', 'feature/slash', 'v1.0']);
    }
  } finally {
    await work.cleanup();
  }
}

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
  await mkdir(SCREENSHOTS, { recursive: true });
  host = await startHost();
  session = await register(host, 'alice');
  const token = await createApiToken(host, session, 'alice');
  // The description carries XSS vectors too (set through the same form a browser uses).
  const created = await http(`${host.url}/new`, { headers: cookie(session), form: { name: 'code', description: XSS.description, repo_visibility: 'public', no_redirect: '1' } });
  expect(created.status).toBe(200);
  await createRepo(host, session, 'secret', 'private');
  await createRepo(host, session, 'empty');
  await pushRepository(token, ['code', 'secret']);
  // A release of the tag, with notes and an asset (its pages are audited below).
  const release = await http(`${host.url}/api/v3/repos/alice/code/releases`, { headers: bearer(token), json: { tag_name: 'v1.0', name: 'First release', body: `## Notes\n\n- faster\n- ${XSS.description}` } });
  expect(release.status).toBe(201);
  const asset = await http(`${host.url}/api/uploads/repos/alice/code/releases/${(release.json as { id: number }).id}/assets?name=app-linux-x64.tar.gz`, { headers: { ...bearer(token), 'content-type': 'application/gzip' }, body: Buffer.alloc(2048, 7) });
  expect(asset.status).toBe(201);
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  visitor = await browser.newContext();
  await visitor.addCookies([{ name: 'token', value: session, url: host.url }]);
  auditor = await browser.newContext({ bypassCSP: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
});

/** Opens a page in a context that records any dialog (an XSS vector that ran would open one). */
async function open(context: BrowserContext, path: string): Promise<{ page: Page; dialogs: string[]; status: number | undefined }> {
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const response = await page.goto(`${host.url}${path}`);
  return { page, dialogs, status: response?.status() };
}

/** Runs `build` in a new git work tree (removed afterwards) and answers what it answers. */
async function inWorkTree<T>(build: (run: (args: string[]) => Promise<string>, dir: string) => Promise<T>): Promise<T> {
  const work = await tempDir('repohost-work-');
  try {
    const run = (args: string[]) => git(work.path, args, work.path);
    await run(['init', '-q', '.']);
    return await build(run, work.path);
  } finally {
    await work.cleanup();
  }
}

/** The address `owner` pushes `repo` to with `token`. */
function pushUrl(owner: string, token: string, repo: string): string {
  const remote = new URL(`${host.url}/${owner}/${repo}.git`);
  remote.username = owner;
  remote.password = token;
  return remote.toString();
}

async function xssRan(page: Page): Promise<unknown> {
  return page.evaluate(() => (window as unknown as { __xss?: unknown }).__xss);
}

describe('code pages in headless Chromium', () => {
  it('shows the repository home: topics, clone URL, star and watch, root listing with last commits, README rendered', async () => {
    const topics = await http(`${host.url}/api/v3/repos/alice/code/topics`, { method: 'PUT', headers: bearer(await host.admin.createToken('alice', 'topics')), json: { names: ['forge', 'git-hosting'] } });
    expect(topics.status).toBe(200);
    const { page, dialogs, status } = await open(visitor, '/alice/code');
    expect(status).toBe(200);
    expect(await page.textContent('#clone-url')).toBe(`${host.url}/alice/code.git`);
    expect(await page.locator('button[data-copy=clone-url]').count()).toBe(1);
    // Folders and files are links into the code browser; each entry shows its last commit.
    expect(await page.getAttribute('a:text-is("src")', 'href')).toBe('/alice/code/src/branch/main/src');
    expect(await page.getAttribute('a:text-is("big.txt")', 'href')).toBe('/alice/code/src/branch/main/big.txt');
    const srcRow = page.locator('tr', { has: page.locator('a:text-is("src")') });
    expect(await srcRow.locator('td.msg a').getAttribute('href')).toBe(`/alice/code/commit/${commits.renamed}`);
    expect(await srcRow.locator('time').getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // The README is rendered: headings, relative links resolved in the repository, images through raw.
    expect(await page.textContent('.readme h1')).toBe('Welcome to code');
    expect(await page.getAttribute('.readme a:text-is("guide")', 'href')).toBe('/alice/code/src/branch/main/docs/guide.md');
    expect(await page.getAttribute('.readme img[alt=logo]', 'src')).toBe('/alice/code/raw/branch/main/img/logo.png');
    expect(await page.evaluate(() => (document.querySelector('.readme img[alt=logo]') as HTMLImageElement).naturalWidth)).toBe(1);
    // The vectors are text, never markup or live links.
    expect(await page.textContent('.readme')).toContain(`<script>window.__xss='readme'</script>`);
    expect(await page.locator('.readme a[href^="javascript:"], .readme a[href^="data:"], .readme img[src^="data:"]').count()).toBe(0);
    expect(await page.textContent('main')).toContain(XSS.fileName);
    expect(await page.textContent('.description')).toBe(XSS.description);
    expect(await page.locator('.topics li').allTextContents()).toEqual(['forge', 'git-hosting']);

    // Star and watch through the page's forms (request-forgery token included); the counts follow.
    expect(await page.textContent('button[aria-pressed]:has-text("Star")')).toContain('0');
    await Promise.all([page.waitForURL(`${host.url}/alice/code`), page.click('button:has-text("Star")')]);
    expect(await page.textContent('button:has-text("Unstar")')).toContain('1');
    expect(await page.getAttribute('button:has-text("Unstar")', 'aria-pressed')).toBe('true');
    await Promise.all([page.waitForURL(`${host.url}/alice/code`), page.click('button:has-text("Watch")')]);
    expect(await page.textContent('button:has-text("Unwatch")')).toContain('1');
    expect(dialogs).toEqual([]);
    expect(await xssRan(page)).toBeUndefined();
    await page.close();
  });

  it('shows an empty repository with the commands to push a first commit', async () => {
    const { page } = await open(visitor, '/alice/empty');
    expect(await page.textContent('main h2')).toBe('This repository is empty');
    expect(await page.textContent('main pre')).toContain(`git remote add origin ${host.url}/alice/empty.git`);
    await page.close();
  });

  it('browses folders with breadcrumbs and a highlighted source file with linkable lines and ranges', async () => {
    const { page } = await open(visitor, '/alice/code');
    await Promise.all([page.waitForURL(/\/src\/branch\/main\/src$/), page.click('a:text-is("src")')]);
    expect(await page.textContent('.breadcrumbs')).toContain('src');
    await Promise.all([page.waitForURL(/app\.ts$/), page.click('a:text-is("app.ts")')]);
    expect(await page.locator('table.code tr').count()).toBe(41);
    // Highlighted by file name (TypeScript keywords get highlight.js classes); a page whose highlighting is not
    // ready within its wait is served plain and highlighted on a later view.
    await expect.poll(async () => {
      await page.reload();
      return page.locator('#L1 .hljs-keyword').first().textContent({ timeout: 1000 }).catch(() => null);
    }).toBe('export');
    expect(await page.locator('table.code tr').count()).toBe(41);
    expect(await page.getAttribute('.breadcrumbs a:text-is("code")', 'href')).toBe('/alice/code/src/branch/main');

    await page.goto(`${host.url}/alice/code/src/branch/main/src/app.ts#L3`);
    await page.waitForSelector('#L3.highlighted');
    expect(await page.locator('tr.highlighted').count()).toBe(1);
    expect(await page.textContent('#L3 td.line')).toContain('value3 = 33');
    await page.goto(`${host.url}/alice/code/src/branch/main/src/app.ts#L10-L20`);
    await page.waitForSelector('#L20.highlighted');
    expect(await page.locator('tr.highlighted').count()).toBe(11);
    // Clicking a line number links it; shift-clicking another makes a range.
    await page.click('#L5 a.line-link');
    await page.click('#L7 a.line-link', { modifiers: ['Shift'] });
    expect(new URL(page.url()).hash).toBe('#L5-L7');
    expect(await page.locator('tr.highlighted').count()).toBe(3);
    await page.close();
  });

  it('renders Markdown files with a source toggle, shows images, and offers binary and large files as downloads', async () => {
    const { page } = await open(visitor, '/alice/code/src/branch/main/docs/guide.md');
    expect(await page.textContent('.markdown h1')).toBe('The guide');
    await Promise.all([page.waitForURL(/display=source/), page.click('a:text-is("Source")')]);
    expect(await page.textContent('#L1')).toContain('# The guide');
    await page.goto(`${host.url}/alice/code/src/branch/main/img/logo.png`);
    expect(await page.evaluate(() => (document.querySelector('img.preview') as HTMLImageElement).naturalWidth)).toBe(1);
    await page.goto(`${host.url}/alice/code/src/branch/main/bin/data.bin`);
    expect(await page.textContent('.download')).toContain('binary file');
    expect(await page.getAttribute('.download a', 'href')).toBe('/alice/code/raw/branch/main/bin/data.bin');
    await page.goto(`${host.url}/alice/code/src/branch/main/big.txt`);
    expect(await page.textContent('.download')).toContain('too large');
    expect(await page.locator('table.code').count()).toBe(0);
    await page.close();
  });

  it('resolves branch names with a slash, tags and commit ids in the code browser', async () => {
    const { page, status } = await open(visitor, '/alice/code/src/branch/feature/slash/feature.txt');
    expect(status).toBe(200);
    expect(await page.textContent('#L1')).toContain('only on the feature branch');
    expect(await page.textContent('.switcher summary')).toContain('feature/slash');
    expect((await page.goto(`${host.url}/alice/code/src/tag/v1.0/old-name.txt`))?.status()).toBe(200);
    expect((await page.goto(`${host.url}/alice/code/src/commit/${commits.first.slice(0, 12)}/src`))?.status()).toBe(200);
    expect((await page.goto(`${host.url}/alice/code/src/branch/main/feature.txt`))?.status()).toBe(404);
    expect((await page.goto(`${host.url}/alice/code/src/branch/nope/README.md`))?.status()).toBe(404);
    expect((await page.goto(`${host.url}/alice/code/src/branch/main/../../secret`))?.status()).toBe(404);
    await page.close();
  });

  it('pages the history of a branch and of one file, and shows a commit with its diff and status', async () => {
    const { page } = await open(visitor, '/alice/code/commits/branch/main');
    expect(await page.locator('.commit-list li').count()).toBe(30);
    expect(await page.textContent('.commit-list li:first-child')).toContain('Empty commit 32');
    await Promise.all([page.waitForURL(/page=2/), page.click('a[rel=next]')]);
    expect(await page.locator('.commit-list li').count()).toBe(4);
    expect(await page.textContent('.commit-list')).toContain(XSS.message);
    await page.goto(`${host.url}/alice/code/commits/branch/main/src/app.ts`);
    expect(await page.locator('.commit-list li').count()).toBe(2);

    await http(`${host.url}/api/v1/repos/alice/code/statuses/${commits.renamed}`, {
      headers: cookie(session),
      json: { state: 'success', context: 'ci/build', description: 'Build passed' },
    });
    await page.goto(`${host.url}/alice/code/commit/${commits.renamed}`);
    expect(await page.textContent('.commit-head h2')).toBe(XSS.message);
    expect(await page.getAttribute(`.commit-head a[href="/alice/code/commit/${commits.first}"]`, 'href')).toBeTruthy();
    expect(await page.textContent('.checks')).toContain('All checks passed');
    expect(await page.textContent('.checks')).toContain('ci/build');
    // Per file: the rename shown old → new, added and removed lines marked with their numbers.
    expect(await page.textContent('main')).toContain('old-name.txt → docs/new-name.txt');
    const app = page.locator('.diff-file', { hasText: 'src/app.ts' });
    expect(await app.locator('tr.add').count()).toBe(2);
    expect(await app.locator('tr.del').count()).toBe(1);
    expect(await app.locator('tr.del td.num').first().textContent()).toBe('3');
    expect(await app.locator('tr.add td.num').nth(1).textContent()).toBe('3');
    expect(await xssRan(page)).toBeUndefined();
    await page.close();
  });

  it('lists branches with ahead/behind against the default branch and a new pull request link, and tags', async () => {
    const { page } = await open(visitor, '/alice/code/branches');
    const row = page.locator('tr', { hasText: 'feature/slash' });
    expect(await row.textContent()).toContain('1 ahead');
    expect(await row.textContent()).toContain('32 behind');
    expect(await row.locator('a:text-is("New pull request")').getAttribute('href')).toBe('/alice/code/compare/main...feature/slash');
    await page.goto(`${host.url}/alice/code/tags`);
    expect(await page.textContent('.commit-list')).toContain('v1.0');
    await page.close();
  });

  it('serves raw bytes with safe types, a disposition, nosniff and a sandbox', async () => {
    const raw = (path: string) => http(`${host.url}/alice/code/raw/branch/main/${path}`);
    const text = await raw('src/app.ts');
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.text).toContain('export const value1 = 1;');
    const image = await raw('img/logo.png');
    expect(image.headers['content-type']).toBe('image/png');
    const binary = await raw('bin/data.bin');
    expect(binary.headers['content-type']).toBe('application/octet-stream');
    expect(binary.headers['content-disposition']).toMatch(/^attachment; filename="data.bin"/);
    for (const [path, type] of [['evil.svg', 'image/svg+xml'], ['page.html', 'text/plain; charset=utf-8']]) {
      const answer = await raw(path!);
      expect(answer.headers['content-type']).toBe(type);
      expect(answer.headers['content-disposition']).toMatch(/^inline; /);
      expect(answer.headers['content-security-policy']).toBe("default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
    }
    const big = await raw('big.txt');
    expect(big.text.length).toBe(1024 * 1024 + 10);
    for (const answer of [text, image, binary, big]) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toContain('sandbox');
    }
    // Opened in the browser, repository HTML stays inert text, and an SVG is drawn with its script never run.
    for (const path of ['evil.svg', 'page.html']) {
      const { page, dialogs } = await open(visitor, `/alice/code/raw/branch/main/${path}`);
      expect(dialogs).toEqual([]);
      expect(await xssRan(page)).toBeUndefined();
      if (path === 'page.html') expect(await page.textContent('body')).toContain('window.__xss');
      await page.close();
    }
    expect((await raw('src')).status).toBe(404);
  });

  it('renders XSS vectors in file names and contents as text on the file pages', async () => {
    for (const [path, text] of [
      ['evil.svg', `onload="window.__xss='svg'"`],
      ['page.html', `<script>window.__xss='html'</script>`],
      [encodeURIComponent(XSS.fileName), 'named badly'],
    ] as const) {
      const { page, dialogs, status } = await open(visitor, `/alice/code/src/branch/main/${path}`);
      expect(status).toBe(200);
      expect(await page.textContent('table.code')).toContain(text);
      expect(await page.textContent('.breadcrumbs')).toContain(decodeURIComponent(path));
      await page.mouse.move(10, 10);
      expect(dialogs).toEqual([]);
      expect(await xssRan(page)).toBeUndefined();
      await page.close();
    }
  });

  it('renders XSS vectors in author names, branch and tag names, status texts and a full name as text', async () => {
    // git keeps '<' and '>' out of names, so the author's vector breaks out of an attribute instead.
    const author = `x" onmouseover="window.__xss='author'" y="z`;
    const branch = `"><svg/onload=window.__xss='branch'>`;
    const tag = `<img/src=x/onerror=window.__xss='tag'>`;
    const status = { context: `<img src=x onerror="window.__xss='context'">`, description: `<script>window.__xss='status'</script>` };
    const fullName = `<img src=x onerror="window.__xss='full-name'">`;
    const signedUp = await http(`${host.url}/register`, { form: { username: 'vectorist', password: 'password123', email: 'vectorist@example.com', full_name: fullName, no_redirect: '1' } });
    expect(signedUp.status).toBe(200);
    const vectorSession = /token=([^;]+)/.exec(String(signedUp.headers['set-cookie']))![1]!;
    const token = await createApiToken(host, vectorSession, 'vectorist');
    // Private, and seen by its owner: the Explore test expects alice's repositories alone.
    await createRepo(host, vectorSession, 'vectors', 'private');
    const tip = await inWorkTree(async (run, dir) => {
      await writeFile(join(dir, 'a.txt'), 'a\n');
      await run(['add', '-A']);
      await run(['-c', `user.name=${author}`, 'commit', '-q', '-m', 'By a vector']);
      await run(['branch', branch]);
      await run(['tag', tag]);
      await run(['push', '-q', pushUrl('vectorist', token, 'vectors'), 'main', branch, tag]);
      return run(['rev-parse', 'HEAD']);
    });
    const posted = await http(`${host.url}/api/v1/repos/vectorist/vectors/statuses/${tip}`, { headers: { authorization: `Bearer ${token}` }, json: { state: 'failure', ...status } });
    expect(posted.status, posted.text).toBe(200);

    const owner = await browser.newContext();
    await owner.addCookies([{ name: 'token', value: vectorSession, url: host.url }]);
    for (const [path, texts] of [
      ['/vectorist/vectors', [author]],
      [`/vectorist/vectors/commit/${tip}`, [author, status.context, status.description]],
      ['/vectorist/vectors/commits/branch/main', [author]],
      ['/vectorist/vectors/branches', [branch]],
      ['/vectorist/vectors/tags', [tag]],
      ['/vectorist', [fullName]],
    ] as const) {
      const { page, dialogs, status: code } = await open(owner, path);
      expect({ path, code }).toEqual({ path, code: 200 });
      const shown = (await page.textContent('main')) ?? '';
      for (const text of texts) expect(shown, `${path} shows ${text}`).toContain(text);
      await page.mouse.move(200, 200);
      await page.mouse.move(400, 300);
      expect({ path, dialogs, ran: await xssRan(page) }).toEqual({ path, dialogs: [], ran: undefined });
      await page.close();
    }
    await owner.close();
  });

  it('collapses a file of more than 400 changed lines in a commit diff, and leaves the others open', async () => {
    const token = await createApiToken(host, session, 'alice', 'diff-sizes');
    await createRepo(host, session, 'sizes', 'private');
    const tip = await inWorkTree(async (run, dir) => {
      await run(['commit', '-q', '--allow-empty', '-m', 'Root']);
      await writeFile(join(dir, 'big.txt'), Array.from({ length: 401 }, (_, index) => `line ${index}`).join('\n') + '\n');
      await writeFile(join(dir, 'small.txt'), 'one line\n');
      await run(['add', '-A']);
      await run(['commit', '-q', '-m', 'Sizes']);
      await run(['push', '-q', pushUrl('alice', token, 'sizes'), 'HEAD:main']);
      return run(['rev-parse', 'HEAD']);
    });
    const { page, status } = await open(visitor, `/alice/sizes/commit/${tip}`);
    expect(status).toBe(200);
    const sections = await page.$$eval('details.diff-file', (all) => all.map((section) => [section.querySelector('summary')?.textContent?.trim().split(/\s/)[0], (section as HTMLDetailsElement).open]));
    expect(sections).toEqual([['big.txt', false], ['small.txt', true]]);
    await page.close();
  });

  it('puts a script-forbidding Content-Security-Policy on every page, the 404 page included', async () => {
    for (const path of ['/alice/code', '/alice/code/src/branch/main/src/app.ts', '/explore', '/alice', '/nobody/nothing']) {
      const answer = await http(`${host.url}${path}`, { headers: { accept: 'text/html' } });
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(answer.headers['content-security-policy']).toContain("script-src 'self'");
    }
  });

  it('answers 404 to a stranger on every page of a private repository, and never names it', async () => {
    const base = '/alice/secret';
    const paths = [
      base,
      `${base}/src/branch/main`,
      `${base}/src/branch/main/src/app.ts`,
      `${base}/raw/branch/main/README.md`,
      `${base}/commits/branch/main`,
      `${base}/commit/${commits.tip}`,
      `${base}/branches`,
      `${base}/tags`,
    ];
    const stranger = await register(host, 'mallory');
    for (const path of paths) {
      expect((await http(`${host.url}${path}`, { headers: { cookie: `token=${session}` } })).status).toBe(200);
      for (const headers of [{ accept: 'text/html' }, { accept: 'text/html', ...cookie(stranger) }]) {
        const answer = await http(`${host.url}${path}`, { headers });
        expect(answer.status, path).toBe(404);
        expect(answer.text).not.toContain('secret');
      }
    }
    const star = await http(`${host.url}${base}/action/star`, { headers: cookie(stranger), form: {} });
    expect(star.status).toBe(404);
    // The profile lists it only for its owner.
    expect((await http(`${host.url}/alice`, { headers: cookie(stranger) })).text).not.toContain('secret');
    expect((await http(`${host.url}/alice`, { headers: cookie(session) })).text).toContain('alice/secret');
  });

  it('shows profiles and Explore (public repositories, newest first, searchable by name)', async () => {
    const { page } = await open(visitor, '/alice');
    expect(await page.textContent('h1')).toBe('alice');
    expect(await page.getAttribute('.profile img', 'alt')).toBe('Avatar of alice');
    await page.goto(`${host.url}/explore`);
    const names = await page.locator('.repos li strong').allTextContents();
    expect(names).toEqual(['alice/empty', 'alice/code']);
    await page.fill('input[name=q]', 'cod');
    await Promise.all([page.waitForURL(/q=cod/), page.click('main button[type=submit]')]);
    expect(await page.locator('.repos li strong').allTextContents()).toEqual(['alice/code']);
    await page.goto(`${host.url}/explore?q=%25`);
    expect(await page.textContent('main')).toContain('No public repository matches.');
    await page.close();
  });

  it('opens the user menu with the keyboard', async () => {
    const { page } = await open(visitor, '/explore');
    expect(await page.isVisible('text=Sign out')).toBe(false);
    await page.focus('header summary');
    await page.keyboard.press('Enter');
    expect(await page.isVisible('text=Sign out')).toBe(true);
    await page.close();
  });
});

describe('accessibility and layout of every code page', () => {
  const pages: Array<[string, () => string]> = [
    ['home', () => '/alice/code'],
    ['empty', () => '/alice/empty'],
    ['folder', () => '/alice/code/src/branch/main/src'],
    ['file', () => '/alice/code/src/branch/main/src/app.ts#L3-L5'],
    ['markdown', () => '/alice/code/src/branch/main/docs/guide.md'],
    ['markdown-source', () => '/alice/code/src/branch/main/docs/guide.md?display=source'],
    ['image', () => '/alice/code/src/branch/main/img/logo.png'],
    ['binary', () => '/alice/code/src/branch/main/bin/data.bin'],
    ['history', () => '/alice/code/commits/branch/main'],
    ['commit', () => `/alice/code/commit/${commits.renamed}`],
    ['branches', () => '/alice/code/branches'],
    ['tags', () => '/alice/code/tags'],
    ['releases', () => '/alice/code/releases'],
    ['release', () => '/alice/code/releases/tag/v1.0'],
    ['profile', () => '/alice'],
    ['explore', () => '/explore'],
    ['not-found', () => '/alice/nothing-here'],
    ['start', () => '/'],
    ['register', () => '/register'],
    ['login', () => '/login'],
    ['new-repository', () => '/new'],
    ['api-tokens', () => '/alice/settings/api-tokens'],
    ['large-file', () => '/alice/code/src/branch/main/big.txt'],
    ['file-history', () => '/alice/code/commits/branch/main/src/app.ts'],
    ['tag-folder', () => '/alice/code/src/tag/v1.0/docs'],
    ['commit-file', () => `/alice/code/src/commit/${commits.first}/old-name.txt`],
  ];

  it.each(pages)('%s: axe reports no serious or critical violation; screenshots at 1280 and 375 px fit the width', async (name, path) => {
    await auditor.addCookies([{ name: 'token', value: session, url: host.url }]);
    const page = await auditor.newPage();
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: width === 375 ? 812 : 900 });
      await page.goto(`${host.url}${path()}`);
      await screenshot(page, { path: `${SCREENSHOTS}/code-${name}-${width}.png`, fullPage: width === 375 });
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} fits ${width}px`).toBeLessThanOrEqual(width + 1);
    }
    await page.addScriptTag({ path: 'node_modules/axe-core/axe.min.js' });
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run();
      return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
    });
    expect(violations).toEqual([]);
    await page.close();
  });
});
