import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { tokenCookie } from '../helpers/api.js';
import { inspect, launchChromium, signIn } from '../helpers/browser.js';
import { bearer, http, startHost } from '../helpers/host.js';

// Issue 21: edit, create and delete files from the browser, committed to the branch or to a new branch with a pull
// request proposed; through the same checks as the contents API (two tabs, protection) and only for writers.

const JOURNEY_MS = 120_000;
const TOKEN = 'erin_token_0123456789abcdef';

describe('editing files in the browser', () => {
  let host: RepoHost;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [
          { username: 'erin', email: 'erin@example.com', password: 'password123', tokens: [{ name: 'api', token: TOKEN }] },
          { username: 'rita', email: 'rita@example.com', password: 'password123' },
        ],
        repositories: [
          {
            owner: 'erin',
            name: 'notes',
            collaborators: { rita: 'read' },
            branches: {
              main: {
                commits: [
                  {
                    message: 'Start',
                    files: { 'README.md': '# Notes\n', 'docs/guide.md': 'Step one\n', 'dos.txt': 'first\r\nsecond\r\n', 'blank.txt': '\nafter a blank line\n', 'latin.txt': { base64: Buffer.from('caf\xe9\n', 'latin1').toString('base64') }, 'bin.dat': { base64: Buffer.from([0, 1, 2, 0, 3]).toString('base64') } },
                  },
                ],
              },
            },
          },
        ],
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await signIn(page, host.url, 'erin');
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  /** A file's bytes on a branch, through the contents API. */
  const fileOn = async (branch: string, path: string) => {
    const answer = await http(`${host.url}/api/v3/repos/erin/notes/contents/${path}?ref=${branch}`, { headers: bearer(TOKEN) });
    return answer.status === 200 ? Buffer.from(answer.json.content, 'base64').toString('utf8') : undefined;
  };

  it('edits a file and commits it to its branch', async () => {
    await page.goto(`${host.url}/erin/notes/src/branch/main/docs/guide.md`);
    await page.click('a.button:text-is("Edit")');
    await page.waitForURL(`${host.url}/erin/notes/_edit/main/docs/guide.md`);
    expect(await page.inputValue('textarea[name=content]')).toBe('Step one\n');
    await inspect(page, 'edit', 'editor', 1);
    await page.fill('textarea[name=content]', 'Step one\nStep two\n');
    await page.fill('input[name=message]', 'Add step two');
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/docs/guide.md`);
    expect(await page.textContent('section.file')).toContain('Step two');
    // Committed with the file's own line endings (LF), though the browser posts CRLF.
    expect(await fileOn('main', 'docs/guide.md')).toBe('Step one\nStep two\n');
    const commits = await http(`${host.url}/api/v3/repos/erin/notes/commits?sha=main&per_page=1`, { headers: bearer(TOKEN) });
    expect(commits.json[0].commit.message).toBe('Add step two');
    expect(commits.json[0].commit.author.name).toBe('erin');
  }, JOURNEY_MS);

  it('keeps CRLF in a file that has it', async () => {
    await page.goto(`${host.url}/erin/notes/_edit/main/dos.txt`);
    await page.fill('textarea[name=content]', 'first\nsecond\nthird\n');
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/dos.txt`);
    expect(await fileOn('main', 'dos.txt')).toBe('first\r\nsecond\r\nthird\r\n');
  }, JOURNEY_MS);

  it('keeps a leading blank line, refuses text that is not UTF-8, and never answers 500 to a path that climbs', async () => {
    await page.goto(`${host.url}/erin/notes/_edit/main/blank.txt`);
    expect(await page.inputValue('textarea[name=content]')).toBe('\nafter a blank line\n');
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/blank.txt`);
    expect(await fileOn('main', 'blank.txt')).toBe('\nafter a blank line\n');
    const latin = await page.goto(`${host.url}/erin/notes/_edit/main/latin.txt`);
    expect(latin?.status()).toBe(400);
    expect(await page.textContent('main')).toContain('Only UTF-8 text can be edited');
    for (const name of ['../escape.txt', './here.txt', 'a//b.txt']) {
      await page.goto(`${host.url}/erin/notes/_new/main`);
      await page.fill('input[name=name]', name);
      const answer = page.waitForResponse((response) => response.request().method() === 'POST');
      await page.click('button:text-is("Commit new file")');
      expect((await answer).status(), name).toBe(400);
    }
  }, JOURNEY_MS);

  it('commits to a new branch and proposes the pull request', async () => {
    await page.goto(`${host.url}/erin/notes/_edit/main/README.md`);
    await page.fill('textarea[name=content]', '# Notes\n\nNow with words.\n');
    await page.check('input[name=target][value=new-branch]');
    await page.fill('input[name=new_branch]', 'words');
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/compare/main...words`);
    await page.click('button:text-is("Create pull request")');
    await page.waitForURL(/\/erin\/notes\/pulls\/\d+$/);
    expect(await fileOn('words', 'README.md')).toBe('# Notes\n\nNow with words.\n');
    expect(await fileOn('main', 'README.md')).toBe('# Notes\n');
  }, JOURNEY_MS);

  it('adds a file in a new folder from the folder page, and deletes one', async () => {
    await page.goto(`${host.url}/erin/notes/src/branch/main/docs`);
    await page.click('a.button:text-is("Add file")');
    await page.waitForURL(`${host.url}/erin/notes/_new/main/docs`);
    await inspect(page, 'new', 'editor', 1);
    await page.fill('input[name=name]', 'deep/more.md');
    await page.fill('textarea[name=content]', 'More\n');
    await page.click('button:text-is("Commit new file")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/docs/deep/more.md`);
    expect(await fileOn('main', 'docs/deep/more.md')).toBe('More\n');
    // Deleting a folder's last file leads to the nearest folder left.
    await page.goto(`${host.url}/erin/notes/_delete/main/docs/deep/more.md`);
    await page.click('button:text-is("Delete file")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/docs`);
    // A binary file cannot be edited here, but can be deleted.
    await page.goto(`${host.url}/erin/notes/src/branch/main/bin.dat`);
    expect(await page.locator('a.button:text-is("Edit")').count()).toBe(0);
    await page.click('a.button:text-is("Delete")');
    await inspect(page, 'delete', 'editor', 1);
    await page.click('button:text-is("Delete file")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main`);
    expect(await fileOn('main', 'bin.dat')).toBeUndefined();
    // An existing name is refused with the form kept.
    await page.goto(`${host.url}/erin/notes/_new/main`);
    await page.fill('input[name=name]', 'README.md');
    await page.fill('textarea[name=content]', 'typed');
    await page.click('button:text-is("Commit new file")');
    expect(await page.textContent('p.error')).toContain('README.md already exists');
    expect(await page.inputValue('textarea[name=content]')).toBe('typed');
  }, JOURNEY_MS);

  it('refuses an edit made from an older view (two tabs), keeping what was typed', async () => {
    const second = await page.context().newPage();
    await page.goto(`${host.url}/erin/notes/_edit/main/docs/guide.md`);
    await second.goto(`${host.url}/erin/notes/_edit/main/docs/guide.md`);
    await page.fill('textarea[name=content]', 'From the first tab\n');
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/docs/guide.md`);
    await second.fill('textarea[name=content]', 'From the second tab\n');
    const answer = second.waitForResponse((response) => response.request().method() === 'POST');
    await second.click('button:text-is("Commit changes")');
    expect((await answer).status()).toBe(409);
    expect(await second.textContent('p.error')).toContain('changed since you opened it');
    expect(await second.inputValue('textarea[name=content]')).toBe('From the second tab\n');
    expect(await fileOn('main', 'docs/guide.md')).toBe('From the first tab\n');
    await second.close();
  }, JOURNEY_MS);

  it('holds a protected branch and leaves no branch behind when a commit to a new one fails', async () => {
    const protect = await http(`${host.url}/api/v3/repos/erin/notes/branches/main/protection`, {
      method: 'PUT',
      headers: bearer(TOKEN),
      json: { required_status_checks: null, enforce_admins: true, required_pull_request_reviews: { required_approving_review_count: 1 }, restrictions: null },
    });
    expect(protect.status).toBe(200);
    await page.goto(`${host.url}/erin/notes/_edit/main/README.md`);
    await page.fill('textarea[name=content]', 'Straight to main\n');
    await page.click('button:text-is("Commit changes")');
    expect(await page.textContent('p.error')).toMatch(/protected/i);
    expect(await fileOn('main', 'README.md')).toBe('# Notes\n');
    // The editor started from a blob that is no longer there: refused, and the new branch made for it is gone again.
    await page.goto(`${host.url}/erin/notes/_edit/main/docs/guide.md`);
    await page.evaluate(() => ((document.querySelector('input[name=sha]') as HTMLInputElement).value = '0'.repeat(40)));
    await page.check('input[name=target][value=new-branch]');
    await page.fill('input[name=new_branch]', 'stale');
    await page.click('button:text-is("Commit changes")');
    expect(await page.textContent('p.error')).toContain('changed since you opened it');
    expect((await http(`${host.url}/api/v3/repos/erin/notes/branches/stale`, { headers: bearer(TOKEN) })).status).toBe(404);
  }, JOURNEY_MS);

  it('makes a branch and a tag from the switcher at the commit shown', async () => {
    const tipOf = async (ref: string) => (await http(`${host.url}/api/v3/repos/erin/notes/git/ref/${ref}`, { headers: bearer(TOKEN) })).json?.object?.sha;
    await page.goto(`${host.url}/erin/notes/src/branch/main/docs`);
    await page.click('details.switcher summary');
    await inspect(page, 'switcher', 'editor', 1);
    await page.fill('form.ref-create input[name=name]', 'topic');
    await page.click('form.ref-create button[value=branch]');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/topic`);
    const main = await tipOf('heads/main');
    expect(await tipOf('heads/topic')).toBe(main);
    await page.click('details.switcher summary');
    await page.fill('form.ref-create input[name=name]', 'v1.0');
    await page.click('form.ref-create button[value=tag]');
    await page.waitForURL(`${host.url}/erin/notes/src/tag/v1.0`);
    expect(await tipOf('tags/v1.0')).toBe(main);
    // A name git refuses, and one already taken, are refused with the reason.
    for (const [name, reason] of [['two words', 'needs a name git accepts'], ['topic', 'already exists']]) {
      await page.click('details.switcher summary');
      await page.fill('form.ref-create input[name=name]', name!);
      await page.click('form.ref-create button[value=branch]');
      expect(await page.textContent('p.error')).toContain(reason);
      await page.goto(`${host.url}/erin/notes`);
    }
  }, JOURNEY_MS);

  it('is for writers only, and its forms carry the request-forgery token', async () => {
    const rita = tokenCookie(await http(`${host.url}/login`, { form: { username: 'rita', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    const file = await http(`${host.url}/erin/notes/src/branch/main/README.md`, { headers: { cookie: rita } });
    expect(file.status).toBe(200);
    expect(file.text).not.toContain('/_edit/');
    expect(file.text).not.toContain('ref-create');
    for (const path of ['_edit/main/README.md', '_new/main', '_delete/main/README.md', '_upload/main']) {
      expect((await http(`${host.url}/erin/notes/${path}`, { headers: { cookie: rita } })).status, path).toBe(404);
      expect((await http(`${host.url}/erin/notes/${path}`, { headers: { cookie: rita }, form: { message: 'x', content: 'x', name: 'x.txt' } })).status, path).toBe(404);
    }
    const erin = tokenCookie(await http(`${host.url}/login`, { form: { username: 'erin', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    const forged = await http(`${host.url}/erin/notes/_new/main`, {
      headers: { cookie: erin, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      form: { name: 'forged.txt', content: 'x', message: 'forged', target: 'direct' },
    });
    expect(forged.status).toBe(403);
    expect(await fileOn('main', 'forged.txt')).toBeUndefined();
  });

  it('uploads files into a folder in one commit, to the branch or to a new one, and says why an upload is refused', async () => {
    const binary = Buffer.from([0, 255, 1, 254, 0, 10, 13]);
    await page.goto(`${host.url}/erin/notes/src/branch/main/docs`);
    await page.click('a.button:text-is("Upload files")');
    await page.waitForURL(`${host.url}/erin/notes/_upload/main/docs`);
    await inspect(page, 'upload', 'editor', 1);
    await page.setInputFiles('input[name=files]', [
      { name: 'picture.bin', mimeType: 'application/octet-stream', buffer: binary },
      { name: 'guide.md', mimeType: 'text/markdown', buffer: Buffer.from('Step one, uploaded\n') },
    ]);
    await page.fill('input[name=message]', 'Add a picture and a new guide');
    // main is protected (an earlier test): the upload is refused with the reason, and nothing moves.
    await page.click('button:text-is("Commit changes")');
    expect(await page.textContent('p.error')).toMatch(/protected/i);
    expect(await fileOn('main', 'docs/picture.bin')).toBeUndefined();
    expect((await http(`${host.url}/api/v3/repos/erin/notes/branches/main/protection`, { method: 'DELETE', headers: bearer(TOKEN) })).status).toBe(204);
    await page.setInputFiles('input[name=files]', [
      { name: 'picture.bin', mimeType: 'application/octet-stream', buffer: binary },
      { name: 'guide.md', mimeType: 'text/markdown', buffer: Buffer.from('Step one, uploaded\n') },
    ]);
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/src/branch/main/docs`);
    expect(await fileOn('main', 'docs/guide.md')).toBe('Step one, uploaded\n');
    const picture = await http(`${host.url}/api/v3/repos/erin/notes/contents/docs/picture.bin?ref=main`, { headers: bearer(TOKEN) });
    expect(Buffer.from(picture.json.content, 'base64').equals(binary)).toBe(true);
    const commits = (await http(`${host.url}/api/v3/repos/erin/notes/commits?sha=main&per_page=1`, { headers: bearer(TOKEN) })).json as Array<{ commit: { message: string }; files?: unknown }>;
    expect(commits[0]!.commit.message).toBe('Add a picture and a new guide');

    // To a new branch: the compare page proposes the pull request.
    await page.goto(`${host.url}/erin/notes/_upload/main`);
    await page.setInputFiles('input[name=files]', [{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('on a branch\n') }]);
    await page.check('input[name=target][value=new-branch]');
    await page.fill('input[name=new_branch]', 'uploaded');
    await page.click('button:text-is("Commit changes")');
    await page.waitForURL(`${host.url}/erin/notes/compare/main...uploaded`);
    expect([await fileOn('uploaded', 'notes.txt'), await fileOn('main', 'notes.txt')]).toEqual(['on a branch\n', undefined]);

    // A name that is a folder is refused with the reason, and nothing moves.
    await page.goto(`${host.url}/erin/notes/_upload/main`);
    await page.setInputFiles('input[name=files]', [{ name: 'docs', mimeType: 'text/plain', buffer: Buffer.from('x') }]);
    await page.click('button:text-is("Commit changes")');
    expect(await page.textContent('p.error')).toContain('docs is a folder');

    // Too many bytes: 413 with the limit, before anything is kept.
    const erin = tokenCookie(await http(`${host.url}/login`, { form: { username: 'erin', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    const form = new FormData();
    form.append('message', 'too big');
    form.append('files', new Blob([Buffer.alloc(26 * 1024 * 1024)]), 'big.bin');
    const big = await fetch(`${host.url}/erin/notes/_upload/main`, { method: 'POST', headers: { cookie: erin }, body: form });
    expect(big.status).toBe(413);
    expect(await big.text()).toContain('at most 25 MiB in all');
    expect(await fileOn('main', 'big.bin')).toBeUndefined();
    // Cross-site: refused.
    const forged = new FormData();
    forged.append('message', 'forged');
    forged.append('files', new Blob(['x']), 'forged.txt');
    const refused = await fetch(`${host.url}/erin/notes/_upload/main`, { method: 'POST', headers: { cookie: erin, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, body: forged });
    expect(refused.status).toBe(403);
    expect(await fileOn('main', 'forged.txt')).toBeUndefined();
  }, JOURNEY_MS);
});
