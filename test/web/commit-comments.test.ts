import type { Browser } from 'playwright-core';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import { cookie, http, register, startHost } from '../helpers/host.js';
import { historyOf } from '../helpers/octokit.js';

/** The commit page's comments: listed under the diff (Markdown, never HTML), and added through its form in a real browser. */
describe('comments on the commit page', () => {
  let host: RepoHost;
  let browser: Browser;
  let alice: Octokit;
  let sha: string;

  beforeAll(async () => {
    host = await startHost();
    await register(host, 'alice');
    await register(host, 'bob');
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice', 'pages') });
    await alice.repos.createForAuthenticatedUser({ name: 'remarks', auto_init: true });
    sha = await historyOf(alice, { owner: 'alice', repo: 'remarks' }).write('main', 'notes.txt', 'notes\n');
    await alice.repos.createCommitComment({ owner: 'alice', repo: 'remarks', commit_sha: sha, body: `**Shipped** <script>window.__xss = 'comment'</script><img src=x onerror="window.__xss='img'">` });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('lists the comments as Markdown and takes a new one from a signed-in reader', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, host.url, 'bob');
    await page.goto(`${host.url}/alice/remarks/commit/${sha}`);
    expect(await page.textContent('.commit-comments h3')).toBe('1 comment');
    expect(await page.innerHTML('.commit-comments .markdown')).toContain('<strong>Shipped</strong>');
    expect(await page.evaluate(() => (window as { __xss?: string }).__xss)).toBeUndefined();

    await page.fill('.commit-comments textarea[name=body]', 'Looks *right* to me');
    await page.click('.commit-comments button[type=submit]');
    await page.waitForURL(/#commitcomment-\d+$/);
    const anchor = new URL(page.url()).hash.slice(1);
    expect(await page.textContent(`#${anchor} .comment-head`)).toContain('bob');
    expect(await page.innerHTML(`#${anchor} .markdown`)).toContain('<em>right</em>');
    expect(await page.textContent('.commit-comments h3')).toBe('2 comments');
    // The API's link to it is where the page put it.
    const listed = (await alice.repos.listCommentsForCommit({ owner: 'alice', repo: 'remarks', commit_sha: sha })).data;
    expect(listed.map((comment) => new URL(comment.html_url).hash)).toEqual([`#commitcomment-${listed[0]!.id}`, `#${anchor}`]);
    await context.close();
  });

  it('asks anonymous visitors to sign in, and refuses a form without its request-forgery token', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${host.url}/alice/remarks/commit/${sha}`);
    expect(await page.textContent('.commit-comments')).toContain('Sign in');
    const session = await register(host, 'carol');
    // A browser's post from another site, and a same-origin one without the page's token.
    for (const origin of ['http://evil.example', host.url]) {
      const forged = await http(`${host.url}/alice/remarks/commit/${sha}/comments`, { headers: { ...cookie(session), origin }, form: { body: 'forged' } });
      expect(forged.status, origin).toBe(403);
    }
    expect((await alice.repos.listCommentsForCommit({ owner: 'alice', repo: 'remarks', commit_sha: sha })).data.map((comment) => comment.body)).not.toContain('forged');
  });
});
