import { Octokit } from '@octokit/rest';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { inspect, launchChromium, signIn } from '../helpers/browser.js';
import { bearer, http, startHost } from '../helpers/host.js';

// Issue 21: code review on the pull request page. Comments on diff lines (single, or kept in a pending review),
// threads with replies, a review submitted as an approval that protection requires, and a suggested change committed
// from the page; the same data as the GitHub API's reviews and review comments.

const JOURNEY_MS = 120_000;
/** Twenty lines, the tenth of which a branch changes: a diff that shows lines 7 to 13 until all are asked for. */
const LONG = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).concat('');
const ADA = 'ada_token_0123456789abcdef';
const BOB = 'bob_token_0123456789abcdef';

describe('code review in the browser', () => {
  let host: RepoHost;
  let browser: Browser;
  let ada: Page;
  let bob: Page;
  let files: string;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [
          { username: 'ada', email: 'ada@example.com', password: 'password123', tokens: [{ name: 'api', token: ADA }] },
          { username: 'bob', email: 'bob@example.com', password: 'password123', tokens: [{ name: 'api', token: BOB }] },
        ],
        repositories: [
          {
            owner: 'ada',
            name: 'lib',
            collaborators: { bob: 'write' },
            branches: {
              main: { commits: [{ message: 'Start', files: { 'src/app.js': 'const one = 1;\nconst two = 2;\nconst three = 3;\n' } }] },
              feature: { from: 'main', commits: [{ message: 'Count on', files: { 'src/app.js': 'const one = 1;\nconst tow = 2;\nconst three = 3;\nconst for = 4;\n' } }] },
            },
            pulls: [{ title: 'Count on', head: 'feature', base: 'main' }],
          },
          {
            owner: 'ada',
            name: 'spaces',
            branches: {
              main: { commits: [{ message: 'Start', files: { 'list.txt': 'one\ntwo\n', 'long.txt': LONG.join('\n') } }] },
              tidy: { from: 'main', commits: [{ message: 'Indent, and three', files: { 'list.txt': '  one\n  two\n  three\n', 'long.txt': LONG.map((line, i) => (i === 9 ? 'line ten, changed' : line)).join('\n') } }] },
            },
            pulls: [{ title: 'Tidy', head: 'tidy', base: 'main' }],
          },
          {
            owner: 'ada',
            name: 'indent',
            branches: {
              main: { commits: [{ message: 'Start', files: { 'a.txt': 'x\n', 'b.txt': 'y\n' } }] },
              both: { from: 'main', commits: [{ message: 'Indent a, add to b', files: { 'a.txt': '  x\n', 'b.txt': 'y\nz\n' } }] },
            },
            pulls: [{ title: 'Both', head: 'both', base: 'main' }],
          },
        ],
      },
    });
    const protect = await http(`${host.url}/api/v3/repos/ada/lib/branches/main/protection`, {
      method: 'PUT',
      headers: bearer(ADA),
      json: { required_status_checks: null, enforce_admins: true, required_pull_request_reviews: { required_approving_review_count: 1 }, restrictions: null },
    });
    expect(protect.status).toBe(200);
    browser = await launchChromium();
    ada = await (await browser.newContext({ bypassCSP: true })).newPage();
    bob = await (await browser.newContext({ bypassCSP: true })).newPage();
    await signIn(ada, host.url, 'ada');
    await signIn(bob, host.url, 'bob');
    files = `${host.url}/ada/lib/pulls/1/files`;
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('comments on a line, alone or in a pending review that only its author sees', async () => {
    await bob.goto(files);
    await bob.click('a.comment-link[aria-label="Comment on new line 2"]');
    await bob.waitForURL(`${files}?comment=0R2#c0R2`);
    await bob.fill('form.line-comment textarea[name=body]', 'Typo: `tow`');
    await bob.click('form.line-comment button[value=single]');
    await bob.waitForURL(/\/pulls\/1\/files#r\d+$/);
    expect(await bob.locator('tr.review-row .review-comment').first().textContent()).toContain('Typo: tow');
    // A suggestion on the added line, kept in a review not yet submitted.
    await bob.click('a.comment-link[aria-label="Comment on new line 4"]');
    await bob.fill('form.line-comment textarea[name=body]', 'Reserved word:\n\n```suggestion\nconst four = 4;\n```\n');
    await bob.click('form.line-comment button[value=review]');
    await bob.waitForURL(/\/pulls\/1\/files#r\d+$/);
    expect(await bob.locator('.review-comment .badge:text-is("Pending")').count()).toBe(1);
    expect(await bob.textContent('.review-box summary')).toContain('1 pending');
    await inspect(bob, 'files', 'review', 1);
    // ada does not see bob's pending comment, on the page or through the API.
    const page = (await http(files, { headers: bearer(ADA) })).text;
    expect(page).toContain('Typo: <code>tow</code>');
    expect(page).not.toContain('Reserved word');
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ADA });
    const seen = (await octokit.pulls.listReviewComments({ owner: 'ada', repo: 'lib', pull_number: 1 })).data;
    expect(seen.map((comment) => [comment.path, comment.line, comment.side, comment.body])).toEqual([['src/app.js', 2, 'RIGHT', 'Typo: `tow`']]);
  }, JOURNEY_MS);

  it('blocks the merge until an approval, which the reviewer submits from the page', async () => {
    await ada.goto(`${host.url}/ada/lib/pulls/1`);
    expect(await ada.textContent('#merge-blocked')).toContain('1 approving review is required (0 given)');
    // The author may comment on their own pull request, not approve it.
    await ada.goto(files);
    expect(await ada.locator('.review-box input[value=APPROVE]').count()).toBe(0);
    await bob.goto(files);
    await bob.fill('.review-box textarea[name=body]', 'Nice, one **suggestion**.');
    await bob.check('.review-box input[value=APPROVE]');
    await bob.click('.review-box button[type=submit]');
    await bob.waitForURL(/\/pulls\/1#review-\d+$/);
    expect(await bob.textContent('section.reviews')).toMatch(/bob approved these changes.*1 line comment/s);
    await inspect(bob, 'conversation', 'review', 1);
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ADA });
    const reviews = (await octokit.pulls.listReviews({ owner: 'ada', repo: 'lib', pull_number: 1 })).data;
    expect(reviews.map((review) => [review.user?.login, review.state])).toEqual([
      ['bob', 'COMMENTED'],
      ['bob', 'APPROVED'],
    ]);
    expect((await octokit.pulls.listReviewComments({ owner: 'ada', repo: 'lib', pull_number: 1 })).data).toHaveLength(2);
    await ada.goto(`${host.url}/ada/lib/pulls/1`);
    expect(await ada.locator('#merge-blocked').count()).toBe(0);
  }, JOURNEY_MS);

  it('commits a suggested change to the head branch, replies in its thread, and marks it outdated', async () => {
    await ada.goto(files);
    await ada.click('button:text-is("Commit suggestion")');
    await ada.waitForURL(files);
    const app = await http(`${host.url}/api/v3/repos/ada/lib/contents/src/app.js?ref=feature`, { headers: bearer(ADA) });
    expect(Buffer.from(app.json.content, 'base64').toString('utf8')).toBe('const one = 1;\nconst tow = 2;\nconst three = 3;\nconst four = 4;\n');
    // The head moved: both comments were made on an older commit, and the suggestion cannot be committed again.
    expect(await ada.locator('.review-comment .badge:text-is("Outdated")').count()).toBe(2);
    expect(await ada.locator('button:text-is("Commit suggestion")').count()).toBe(0);
    const thread = ada.locator('.review-thread').first();
    await thread.locator('textarea[name=body]').fill('Fixed in the next commit');
    await thread.locator('button:text-is("Reply")').click();
    await ada.waitForURL(/\/pulls\/1\/files#r\d+$/);
    expect(await ada.locator('.review-thread').first().locator('.review-comment').count()).toBe(2);
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ADA });
    const replies = (await octokit.pulls.listReviewComments({ owner: 'ada', repo: 'lib', pull_number: 1 })).data.filter((comment) => comment.in_reply_to_id !== undefined);
    expect(replies.map((comment) => [comment.user?.login, comment.body])).toEqual([['ada', 'Fixed in the next commit']]);
  }, JOURNEY_MS);

  it('lays the diff out side by side on request, threads and comment links included', async () => {
    await bob.goto(files);
    await bob.click('.diff-layout a:text-is("Split")');
    await bob.waitForURL(`${files}?diff=split`);
    // The changed line: old on the left, new on the right, in one row.
    const changed = bob.locator('table.split tr', { has: bob.locator('td.del') }).first();
    expect(await changed.locator('td').allTextContents()).toEqual(['2', 'removed: -const two = 2;', '2', 'added: +const tow = 2;']);
    expect(await bob.locator('table.split tr.review-row .review-comment').count()).toBeGreaterThan(0);
    expect(await bob.getAttribute('a.comment-link[aria-label="Comment on new line 3"]', 'href')).toBe('?comment=0R3&diff=split#c0R3');
    await inspect(bob, 'split', 'review', 1);
    await bob.click('.diff-layout a:text-is("Unified")');
    await bob.waitForURL(files);
    // A commit's page has the same choice.
    const commit = await http(`${host.url}/api/v3/repos/ada/lib/commits/feature`, { headers: bearer(ADA) });
    const page = (await http(`${host.url}/ada/lib/commit/${commit.json.sha}?diff=split`)).text;
    expect(page).toContain('<table class="code diff split">');
    expect(page).toContain(`<a href="/ada/lib/commit/${commit.json.sha}">Unified</a>`);
  }, JOURNEY_MS);

  it('lets the author request a review, and withdraw the request, from the conversation tab', async () => {
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ADA });
    const requested = async () => (await octokit.pulls.listRequestedReviewers({ owner: 'ada', repo: 'lib', pull_number: 1 })).data.users.map((user) => user.login);
    await ada.goto(`${host.url}/ada/lib/pulls/1`);
    await ada.click('.reviewer-edit summary');
    // The author is not offered as a reviewer of their own pull request.
    expect(await ada.locator('input[name="reviewer.ada"]').count()).toBe(0);
    await ada.check('input[name="reviewer.bob"]');
    await ada.click('.reviewer-edit button[type=submit]');
    await ada.waitForURL(`${host.url}/ada/lib/pulls/1#reviews`);
    expect(await ada.textContent('section.reviews')).toContain('Review requested from bob');
    expect(await requested()).toEqual(['bob']);
    await inspect(ada, 'reviewers', 'review', 1);
    await ada.click('.reviewer-edit summary');
    await ada.uncheck('input[name="reviewer.bob"]');
    await ada.click('.reviewer-edit button[type=submit]');
    await ada.waitForURL(`${host.url}/ada/lib/pulls/1#reviews`);
    expect(await requested()).toEqual([]);
  }, JOURNEY_MS);

  it('comments on a whole file from the link above its lines, and offers no suggestion to commit there', async () => {
    const indent = `${host.url}/ada/indent/pulls/1/files`;
    await bob.goto(indent);
    await bob.click('#diff-2 a.file-comment-link');
    await bob.waitForURL(`${indent}?comment=1F#c1F`);
    expect(await bob.inputValue('form#c1F input[name=path]')).toBe('b.txt');
    await bob.fill('form#c1F textarea[name=body]', 'Is `z` the last letter?\n\n```suggestion\nzz\n```\n');
    await bob.click('form#c1F button[value=single]');
    await bob.waitForURL(/\/pulls\/1\/files#r\d+$/);
    const thread = bob.locator('#diff-2 .file-comments .review-comment');
    expect(await thread.count()).toBe(1);
    expect(await thread.first().textContent()).toContain('on the file');
    expect(await thread.first().textContent()).toContain('Is z the last letter?');
    // A file comment names no lines: nothing to commit it to. Nor does the other file show it.
    expect(await bob.locator('#diff-2 button:text-is("Commit suggestion")').count()).toBe(0);
    expect(await bob.locator('#diff-1 .file-comments').count()).toBe(0);
    await inspect(bob, 'files', 'file-comment', 1);
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: BOB });
    const [comment] = (await octokit.pulls.listReviewComments({ owner: 'ada', repo: 'indent', pull_number: 1 })).data;
    expect(comment).toMatchObject({ path: 'b.txt', subject_type: 'file', line: null, position: null, user: { login: 'bob' } });
  }, JOURNEY_MS);

  it('refuses a suggestion whose lines start on the old side', async () => {
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: BOB });
    const head = (await octokit.pulls.get({ owner: 'ada', repo: 'lib', pull_number: 1 })).data.head.sha;
    const comment = await octokit.pulls.createReviewComment({ owner: 'ada', repo: 'lib', pull_number: 1, commit_id: head, path: 'src/app.js', start_line: 2, start_side: 'LEFT', line: 2, side: 'RIGHT', body: '```suggestion\nconst two = 2;\n```\n' });
    await ada.goto(files);
    // Offered like any suggestion, but committing it is refused: its first line is a line of the old file.
    await ada.click(`#r${comment.data.id} button:text-is("Commit suggestion")`);
    expect(await ada.textContent('p.error')).toContain('new side of the diff');
    const app = await http(`${host.url}/api/v3/repos/ada/lib/contents/src/app.js?ref=feature`, { headers: bearer(ADA) });
    expect(Buffer.from(app.json.content, 'base64').toString('utf8')).toContain('const tow = 2;');
  }, JOURNEY_MS);

  it('offers anonymous readers no comment links or review box, and says why a bad comment is refused', async () => {
    const page = (await http(files)).text;
    expect(page).not.toContain('comment-link');
    expect(page).not.toContain('review-box');
    expect((await http(`${host.url}/ada/lib/pulls/1`)).text).not.toContain('reviewer-edit');
    await bob.goto(`${files}?comment=0R9#c0R9`);
    expect(await bob.locator('form.line-comment').count()).toBe(0);
    // A line outside the diff, posted by hand, is refused with the reason.
    const refused = await bob.evaluate(async () => {
      const form = document.querySelector('.review-box form') as HTMLFormElement;
      const data = new URLSearchParams({ _csrf: (form.querySelector('input[name=_csrf]') as HTMLInputElement).value, path: 'src/app.js', side: 'RIGHT', line: '99', body: 'x', mode: 'single' });
      const answer = await fetch(location.pathname + '/comments', { method: 'POST', body: data });
      return { status: answer.status, text: await answer.text() };
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('line must be part of the diff');
  }, JOURNEY_MS);

  it('folds a thread its author resolves, unfolds it again, and lets a writer dismiss a review', async () => {
    await ada.goto(files);
    await ada.locator('.review-thread').first().locator('button:text-is("Resolve conversation")').click();
    await ada.waitForURL(/\/pulls\/1\/files#t\d+$/);
    expect(await ada.locator('details.review-thread.resolved > summary').first().textContent()).toMatch(/^Conversation resolved by ada/);
    expect(await ada.locator('details.review-thread.resolved[open]').count()).toBe(0);
    await inspect(ada, 'files-resolved', 'review', 1);
    const anonymous = (await http(files)).text;
    expect(anonymous).toContain('Conversation resolved by <strong>ada</strong>');
    expect(anonymous).not.toMatch(/resolve conversation/i);
    await ada.click('details.review-thread.resolved > summary');
    await ada.click('button:text-is("Unresolve conversation")');
    await ada.waitForURL(/\/pulls\/1\/files#r\d+$/);
    expect(await ada.locator('details.review-thread.resolved').count()).toBe(0);

    await ada.goto(`${host.url}/ada/lib/pulls/1`);
    expect((await http(`${host.url}/ada/lib/pulls/1`)).text).not.toContain('dismiss-review');
    await ada.click('.dismiss-review summary');
    await ada.fill('.dismiss-review input[name=message]', 'The code changed since');
    await ada.click('.dismiss-review button[type=submit]');
    await ada.waitForURL(/\/pulls\/1#review-\d+$/);
    expect(await ada.textContent('section.reviews')).toContain('bob reviewed (dismissed)');
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: ADA });
    const states = (await octokit.pulls.listReviews({ owner: 'ada', repo: 'lib', pull_number: 1 })).data.map((review) => `${review.user?.login} ${review.state}`);
    expect(states).toContain('bob DISMISSED');
    expect(states).not.toContain('bob APPROVED');
    expect(await ada.textContent('#merge-blocked')).toContain('1 approving review is required (0 given)');
  }, JOURNEY_MS);

  it('comments on a range of lines of one hunk', async () => {
    await bob.goto(`${files}?comment=0R4#c0R4`);
    expect(await bob.locator('form.line-comment select[name=start_line] option').allTextContents()).toEqual(['line 4 only', 'line 1 to 4', 'line 2 to 4', 'line 3 to 4']);
    await bob.selectOption('form.line-comment select[name=start_line]', '2');
    await bob.fill('form.line-comment textarea[name=body]', 'These three lines belong together');
    await bob.click('form.line-comment button[value=single]');
    await bob.waitForURL(/\/pulls\/1\/files#r\d+$/);
    const id = Number(new URL(bob.url()).hash.slice(2));
    expect(await bob.textContent(`#r${id} .comment-head`)).toContain('on lines 2 to 4');
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: BOB });
    expect((await octokit.pulls.getReviewComment({ owner: 'ada', repo: 'lib', comment_id: id })).data).toMatchObject({ start_line: 2, line: 4, start_side: 'RIGHT', side: 'RIGHT' });
  }, JOURNEY_MS);

  it('hides changes of white space alone on request, on a pull request and on a commit', async () => {
    const tidy = `${host.url}/ada/spaces/pulls/1/files`;
    const shown = (await http(tidy, { headers: bearer(ADA) })).text;
    expect(shown).toContain('<strong aria-current="true">Shown</strong>');
    expect(shown).toMatch(/<span class="sr-only">removed: <\/span>-one/);
    const hidden = (await http(`${tidy}?w=1`, { headers: bearer(ADA) })).text;
    expect(hidden).toContain('<strong aria-current="true">Hidden</strong>');
    expect(hidden).not.toContain('removed: </span>-one');
    expect(hidden).toMatch(/added: <\/span>\+  three/);
    // The toggles keep each other's choice, and line links keep the view.
    expect(hidden).toContain(`href="/ada/spaces/pulls/1/files?diff=split&amp;w=1"`);
    await bob.goto(`${tidy}?w=1`);
    expect(await bob.locator('a.comment-link').first().getAttribute('href')).toMatch(/^\?comment=0R\d+&w=1#c0R\d+$/);
    const commit = (await http(`${host.url}/api/v3/repos/ada/spaces/commits/tidy`, { headers: bearer(ADA) })).json as { sha: string };
    const page = (await http(`${host.url}/ada/spaces/commit/${commit.sha}?w=1`)).text;
    expect(page).not.toContain('removed: </span>-one');
    expect(page).toMatch(/added: <\/span>\+  three/);
    expect((await http(`${host.url}/ada/spaces/commit/${commit.sha}`)).text).toContain('removed: </span>-one');
    // A file whose changes are all white space has no patch then: it says so, and the next file keeps its own patch.
    const both = (await http(`${host.url}/ada/indent/pulls/1/files?w=1`, { headers: bearer(ADA) })).text;
    const [a, b] = both.split('id="diff-2"');
    expect(a).toContain('Only white space changed.');
    expect(b).toMatch(/added: <\/span>\+z/);
    expect(b).not.toContain('Only white space changed.');
  }, JOURNEY_MS);

  it('shows all lines of one file on request, comment links only on the lines of the diff', async () => {
    const tidy = `${host.url}/ada/spaces/pulls/1/files`;
    const rowsOf = async (url: string) => (await http(url, { headers: bearer(ADA) })).text;
    const changesOnly = await rowsOf(tidy);
    expect(changesOnly).not.toContain('<td> line 1</td>');
    expect(changesOnly).toContain('href="/ada/spaces/pulls/1/files?expand=1#diff-2">Show all lines</a>');
    await bob.goto(`${tidy}?expand=1#diff-2`);
    const file = bob.locator('#diff-2');
    expect(await file.locator('tbody tr').count()).toBe(1 + 19 + 2);
    expect(await file.locator('a:text-is("Show the changes only")').getAttribute('href')).toBe('/ada/spaces/pulls/1/files#diff-2');
    // Lines 1 to 6 are shown but not part of the diff: no comment links there; line 10's is kept with the view.
    expect(await file.locator('a.comment-link[aria-label="Comment on new line 2"]').count()).toBe(0);
    expect(await file.locator('a.comment-link[aria-label="Comment on new line 10"]').getAttribute('href')).toBe('?comment=1R10&expand=1#c1R10');
    await inspect(bob, 'files-expanded', 'review', 1);
    // The same on the commit.
    const commit = (await http(`${host.url}/api/v3/repos/ada/spaces/commits/tidy`, { headers: bearer(ADA) })).json as { sha: string };
    const whole = await rowsOf(`${host.url}/ada/spaces/commit/${commit.sha}?expand=1`);
    expect(whole).toContain('<td> line 1</td>');
    expect(await rowsOf(`${host.url}/ada/spaces/commit/${commit.sha}`)).not.toContain('<td> line 1</td>');
  }, JOURNEY_MS);

  it('folds the files a reviewer marked viewed, for that reviewer, until they change', async () => {
    const tidy = `${host.url}/ada/spaces/pulls/1/files`;
    await bob.goto(tidy);
    await bob.locator('#diff-1 button:text-is("Mark as viewed")').click();
    await bob.waitForURL(`${tidy}#diff-1`);
    expect(await bob.locator('#diff-1').getAttribute('open')).toBeNull();
    expect(await bob.locator('#diff-1 > summary .badge:text-is("Viewed")').count()).toBe(1);
    expect(await bob.locator('#diff-2').getAttribute('open')).not.toBeNull();
    await inspect(bob, 'files-viewed', 'review', 1);
    // Another reviewer's view is their own.
    await ada.goto(tidy);
    expect(await ada.locator('#diff-1').getAttribute('open')).not.toBeNull();
    // A new commit that changes the file makes it unviewed again; one that leaves it alone does not.
    const contents = `${host.url}/api/v3/repos/ada/spaces/contents`;
    const sha = async (path: string) => ((await http(`${contents}/${path}?ref=tidy`, { headers: bearer(ADA) })).json as { sha: string }).sha;
    const put = async (path: string, text: string) =>
      expect((await http(`${contents}/${path}`, { method: 'PUT', headers: bearer(ADA), json: { message: `Change ${path}`, content: Buffer.from(text).toString('base64'), branch: 'tidy', sha: await sha(path) } })).status).toBe(200);
    await put('long.txt', LONG.map((line, i) => (i === 9 ? 'line ten, changed' : i === 15 ? 'line sixteen' : line)).join('\n'));
    await bob.goto(tidy);
    expect(await bob.locator('#diff-1 > summary .badge:text-is("Viewed")').count()).toBe(1);
    await put('list.txt', '  one\n  two\n  three\n  four\n');
    await bob.goto(tidy);
    expect(await bob.locator('#diff-1 > summary .badge:text-is("Viewed")').count()).toBe(0);
    expect(await bob.locator('#diff-1').getAttribute('open')).not.toBeNull();
    // Marked again, then unmarked.
    await bob.locator('#diff-1 button:text-is("Mark as viewed")').click();
    await bob.waitForURL(`${tidy}#diff-1`);
    await bob.click('#diff-1 > summary');
    await bob.locator('#diff-1 button:text-is("Viewed ✓")').click();
    await bob.waitForURL(`${tidy}#diff-1`);
    expect(await bob.locator('#diff-1 > summary .badge:text-is("Viewed")').count()).toBe(0);
    // Anonymous readers have nothing to mark.
    expect((await http(tidy)).text).not.toContain('file-viewed');
  }, JOURNEY_MS);
});
