import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, FLAGS, inspect as inspectPage, SCREENSHOTS } from '../helpers/browser.js';
import type { RepoHost } from '../../lib/index.js';
import { git, pushTwoBranches } from '../helpers/git-cli.js';
import { HookReceiver } from '../helpers/receiver.js';
import { bearer, cookie, createApiToken, http, startHost, tempDir } from '../helpers/host.js';

// Browser journeys on a shared two-core machine: room beyond the default minute.
const JOURNEY_MS = 180_000;

let host: RepoHost;
let browser: Browser;
let work: { path: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  if (!CHROMIUM) throw new Error('Chromium is needed for the page tests: apt-get install chromium');
  // Webhooks in these tests go to a receiver on 127.0.0.1.
  host = await startHost({ allowLocalNetwork: true });
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

const inspect = (page: Page, name: string) => inspectPage(page, name, 'collab', 1);

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
/** The conflicting pull request's number (third test), for the read collaborator. */
let clashNumber = 0;

describe('collaboration pages in headless Chromium', () => {
  it('opens an issue, comments in Markdown, labels it, closes and reopens it', async () => {
    olive = await registerPerson('olive');
    await createRepoInBrowser(olive, 'garden');
    const copy = await workingCopy(olive, 'garden');
    await copy.write('README.md', '# garden\n\nWhat grows **here**.\n');
    await copy.write('shared.txt', 'base\n');
    await mkdir(join(work.path, `copy-${copies}`, 'beds'));
    await copy.write('beds/plan.py', 'rows = 3\ncolumns = 4\nprint(rows * columns)\n');
    await copy.run('add', '.');
    await copy.run('commit', '-q', '-m', 'Initial commit');
    await copy.run('push', '-q', copy.remote, 'main');

    // The pushed repository, browsed as its owner does: README, a folder, a file, a line link.
    const page = olive.page;
    await page.goto(`${host.url}/olive/garden`);
    expect(await page.textContent('.readme strong')).toBe('here');
    await page.click('main a:has-text("beds")');
    await page.waitForURL(`${host.url}/olive/garden/src/branch/main/beds`);
    await page.click('main a:has-text("plan.py")');
    await page.waitForURL(`${host.url}/olive/garden/src/branch/main/beds/plan.py`);
    await page.click('a[href="#L2"]');
    expect(page.url()).toBe(`${host.url}/olive/garden/src/branch/main/beds/plan.py#L2`);
    expect(await page.textContent('tr#L2')).toContain('columns = 4');

    await page.goto(`${host.url}/olive/garden/issues`);
    await inspect(page, 'issues-empty');
    await page.click('text=New issue');
    await inspect(page, 'issue-new');
    await page.fill('input[name=title]', 'Tomatoes wilt');
    await page.fill('textarea[name=body]', 'They **wilt** in the sun.');
    await page.click('main button:has-text("Open issue")');
    await page.waitForURL(/\/olive\/garden\/issues\/1$/);
    expect(await page.textContent('.conversation .markdown strong')).toBe('wilt');

    await page.fill('textarea[name=body]', 'Water them *twice* a day.');
    await page.click('form[action$="/comments"] button[type=submit]');
    await page.waitForURL(/\/issues\/1#comment-\d+$/);
    expect(await page.textContent('.conversation article:nth-of-type(2) .markdown em')).toBe('twice');
    // Own comments can be edited in place.
    await page.click('.conversation article:nth-of-type(2) summary:has-text("Edit")');
    await page.fill('.conversation article:nth-of-type(2) textarea[name=body]', 'Water them *three times* a day.');
    await page.click('.conversation article:nth-of-type(2) button:has-text("Save comment")');
    await page.waitForURL(/\/issues\/1#comment-\d+$/);
    expect(await page.textContent('.conversation article:nth-of-type(2) .markdown em')).toBe('three times');

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
  }, JOURNEY_MS);

  it('answers refused forms with the page and its message, never JSON', async () => {
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['issues/new', { title: '  ', body: 'x' }, 400, 'title is required'],
      ['issues/1/comments', { body: '' }, 400, 'body is required'],
      ['issues/1/state', { status: 'sideways' }, 400, 'status must be &#39;open&#39; or &#39;closed&#39;'],
      ['labels', { name: 'bug', color: '00ff00' }, 409, 'already exists'],
      ['labels', { name: 'new', color: 'not-a-colour' }, 400, 'color must be 6 hexadecimal digits'],
      ['pulls', { title: 'x', base: 'main', head: 'nowhere' }, 400, 'head branch &#39;nowhere&#39; does not exist'],
      ['settings/collaborators', { username: 'nobody-here', permission: 'read' }, 404, 'User not found'],
      ['settings/branches', { branch: '../x' }, 400, 'branch must be a branch name or a glob'],
    ];
    for (const [path, form, status, message] of cases) {
      const answer = await http(`${host.url}/olive/garden/${path}`, { headers: cookie(olive.session), form });
      expect([answer.status, String(answer.headers['content-type'])], path).toEqual([status, 'text/html; charset=utf-8']);
      expect(answer.text, path).toContain(message);
      expect(answer.text, path).toContain('role="alert"');
    }
  }, JOURNEY_MS);

  it('pages a long conversation; a new comment lands on its last page', async () => {
    const page = olive.page;
    const [issue] = (await http(`${host.url}/api/v1/repos/olive/garden/issues`, { headers: bearer(olive.token) })).json;
    for (let index = 0; index < 99; index++) {
      expect((await http(`${host.url}/api/v1/repos/olive/garden/issues/${issue.id}/comments`, { headers: bearer(olive.token), json: { body: `note ${index}` } })).status).toBe(200);
    }
    await page.goto(`${host.url}/olive/garden/issues/1`);
    expect(await page.locator('.conversation article').count()).toBe(101);
    expect(await page.locator('nav[aria-label=Pages]').count()).toBe(0);
    await page.fill('form[action$="/comments"] textarea[name=body]', 'The 101st comment');
    await page.click('form[action$="/comments"] button[type=submit]');
    await page.waitForURL(/\/issues\/1\?page=2#comment-\d+$/);
    expect(await page.textContent('.conversation article:last-child')).toContain('The 101st comment');
    expect(await page.getAttribute('nav[aria-label=Pages] a[rel=prev]', 'href')).toBe('/olive/garden/issues/1?page=1');
    expect(await page.locator('nav[aria-label=Pages] a[rel=next]').count()).toBe(0);
  }, JOURNEY_MS);

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

    await page.goto(`${host.url}/olive/garden/compare`);
    await inspect(page, 'compare-pick');
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
    const merge = async (number: number, method: string, deleteBranch = false, title?: string) => {
      await page.goto(`${host.url}/olive/garden/pulls/${number}`);
      expect(await page.textContent('#merge-box')).toContain('no conflicts');
      await page.check(`input[name=method][value=${method}]`);
      if (deleteBranch) await page.check('input[name=delete_branch]');
      if (title) await page.fill('#merge-box input[name=title]', title);
      await page.click('#merge-box button:has-text("Merge pull request")');
      await page.waitForURL(`${host.url}/olive/garden/pulls/${number}`);
      expect(await page.textContent('.merge-box')).toContain('merged');
      // GitHub's line under the title once merged (issue 21), no longer "wants to merge".
      const line = (await page.textContent('.item-heading + p'))!.replace(/\s+/g, ' ');
      expect(line).toMatch(/olive merged 2 commits into main from \S+ ·/);
      expect(line).not.toContain('wants to merge');
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
    await merge(squashed, 'squash', true, 'Squash change, titled in the merge box');
    const branches = (await http(`${host.url}/api/v1/repos/olive/garden/branches`, { headers: bearer(olive.token) })).json.map((branch: { name: string }) => branch.name);
    expect(branches).toContain('merged');
    expect(branches).not.toContain('squashed');
    const rebased = await open('rebased', 'Rebase change');
    await merge(rebased, 'rebase');
    await page.goto(`${host.url}/olive/garden/pulls?status=closed`);
    expect(await page.textContent('.state-tabs')).toMatch(/Closed\s*4/);
    await inspect(page, 'pulls');
    // The merges are in the history page, and an issue address of a pull request's number leads to it.
    await page.goto(`${host.url}/olive/garden/commits/branch/main`);
    expect(await page.textContent('main')).toContain(`Merge pull request #${merged} from olive/merged`);
    await page.goto(`${host.url}/olive/garden/issues/${merged}`);
    expect(page.url()).toBe(`${host.url}/olive/garden/pulls/${merged}`);

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
    const mergeAt = subjects.indexOf(`Merge pull request #${merged} from olive/merged`);
    expect(mergeAt).toBeGreaterThanOrEqual(0);
    expect(parents[mergeAt]!.split(' ')).toEqual([expect.any(String), tips.merged]);
    // Squash: one commit with the title written in the merge box; the branch's commits are not in main.
    expect(subjects).toContain('Squash change, titled in the merge box');
    expect(subjects).not.toContain('squashed commit 1');
    // Rebase: the branch's commits replayed on main as new commits.
    expect(subjects).toContain('rebased commit 2');
    expect(shas).not.toContain(tips.rebased);
    expect(subjects[0]).toBe('rebased commit 2');
  }, JOURNEY_MS);

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
    clashNumber = Number(/(\d+)$/.exec(page.url())![1]);
    expect(await page.textContent('#merge-box')).toContain('cannot be merged automatically');
    // The button says why it cannot merge instead of answering with a refusal (issue 21).
    expect(await page.isDisabled('#merge-box button:has-text("Merge pull request")')).toBe(true);
    expect(await page.textContent('#merge-blocked')).toContain('conflicts with main');
    // Closed and reopened from the page.
    await page.click('main button:has-text("Close pull request")');
    await page.waitForURL(`${host.url}/olive/garden/pulls/${clashNumber}`);
    expect(await page.textContent('.merge-box')).toContain('This pull request is closed');
    await page.click('main button:has-text("Reopen pull request")');
    await page.waitForURL(`${host.url}/olive/garden/pulls/${clashNumber}`);
    expect(await page.locator('#merge-box').count()).toBe(1);
  }, JOURNEY_MS);

  it('shows a read collaborator neither the settings nor the merge box, and refuses their merge', async () => {
    const rita = await registerPerson('rita');
    const page = olive.page;
    await page.goto(`${host.url}/olive/garden/settings/collaborators`);
    await page.fill('input[name=username]', 'rita');
    await page.selectOption('form:has(input[name=username]) select[name=permission]', 'read');
    await page.click('main button:has-text("Add collaborator")');
    await page.waitForURL(/settings\/collaborators\?saved=1$/);
    expect(await page.textContent('table')).toContain('rita');
    await inspect(page, 'settings-collaborators');

    const seen = rita.page;
    await seen.goto(`${host.url}/olive/garden/pulls/${clashNumber}`);
    expect(await seen.locator('#merge-box').count()).toBe(0);
    expect(await seen.textContent('.merge-box')).toContain('Only collaborators with write access can merge');
    expect(await seen.locator('nav[aria-label=Repository] a:has-text("Settings")').count()).toBe(0);
    for (const path of ['settings', 'settings/collaborators', 'settings/hooks', 'settings/branches']) {
      expect((await seen.goto(`${host.url}/olive/garden/${path}`))?.status(), path).toBe(404);
    }
    // The form route itself asks the merge service, which refuses read access.
    const refused = await http(`${host.url}/olive/garden/pulls/${clashNumber}/merge`, { headers: cookie(rita.session), form: { method: 'merge' } });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Merging needs write access');
    // Granted write access, the merge box appears.
    await page.selectOption('tr:has-text("rita") select[name=permission]', 'write');
    await page.click('tr:has-text("rita") button:has-text("Change")');
    await page.waitForURL(/\?saved=1$/);
    await seen.goto(`${host.url}/olive/garden/pulls/${clashNumber}`);
    expect(await seen.locator('#merge-box').count()).toBe(1);
    await page.click('tr:has-text("rita") button:has-text("Remove")');
    await page.waitForURL(/\?saved=1$/);
    expect(await page.textContent('main')).toContain('No collaborators yet');
    await rita.context.close();
  }, JOURNEY_MS);

  it('answers 404 to a stranger on every page of a private repository', async () => {
    await createRepoInBrowser(olive, 'vault', 'private');
    await pushTwoBranches(host, 'olive', olive.token, 'vault');
    const issue = await http(`${host.url}/api/v1/repos/olive/vault/issues`, { headers: bearer(olive.token), json: { title: 'Secret issue' } });
    const pull = await http(`${host.url}/api/v1/repos/olive/vault/pulls`, { headers: bearer(olive.token), json: { title: 'Secret pull', head: 'feature', base: 'main' } });
    expect([issue.status, pull.status]).toEqual([200, 200]);
    const pages = [
      'issues', 'issues/new', `issues/${issue.json.number}`, 'labels', 'pulls', `pulls/${pull.json.number}`, `pulls/${pull.json.number}/commits`,
      `pulls/${pull.json.number}/files`, 'compare', 'compare/main...feature', 'settings', 'settings/collaborators', 'settings/hooks', 'settings/branches',
    ];
    const sam = await registerPerson('sam');
    const anonymous = await browser.newContext();
    const nobody = await anonymous.newPage();
    for (const viewer of [sam.page, nobody]) {
      for (const path of pages) {
        const response = await viewer.goto(`${host.url}/olive/vault/${path}`);
        expect(response?.status(), path).toBe(404);
        expect(await viewer.textContent('main'), path).not.toContain('vault');
      }
    }
    // Forms posted to it are refused the same way, and change nothing.
    for (const path of [`issues/${issue.json.number}/comments`, `pulls/${pull.json.number}/merge`, 'settings', 'settings/delete', 'labels']) {
      for (const headers of [cookie(sam.session), {}]) {
        const posted = await http(`${host.url}/olive/vault/${path}`, { headers, form: { body: 'hi', confirm: 'olive/vault', name: 'x', color: '000000' } });
        expect(posted.status, path).toBe(404);
      }
    }
    expect((await http(`${host.url}/api/v1/repos/olive/vault`, { headers: bearer(olive.token) })).status).toBe(200);
    expect((await http(`${host.url}/api/v1/repos/olive/vault/issues/${issue.json.id}/comments`, { headers: bearer(olive.token) })).json).toEqual([]);
    await anonymous.close();
    await sam.context.close();
  }, JOURNEY_MS);

  it('round-trips the repository settings: options, a webhook with its deliveries, a protection rule, rename, delete', async () => {
    const receiver = await HookReceiver.start();
    try {
      const page = olive.page;
      await createRepoInBrowser(olive, 'shed');
      await pushTwoBranches(host, 'olive', olive.token, 'shed');
      await page.goto(`${host.url}/olive/shed/settings`);
      await inspect(page, 'settings');
      await page.fill('input[name=description]', 'Tools and pots');
      await page.selectOption('select[name=visibility]', 'private');
      await page.click('main button:has-text("Save")');
      await page.waitForURL(`${host.url}/olive/shed/settings?saved=1`);
      expect(await page.textContent('[role=status]')).toContain('Saved');
      const summary = (await http(`${host.url}/api/v1/repos/olive/shed`, { headers: bearer(olive.token) })).json;
      expect([summary.description, summary.private]).toEqual(['Tools and pots', true]);
      expect((await http(`${host.url}/api/v1/repos/olive/shed`)).status).toBe(404);

      // The default branch: only one that exists; then back to main for what follows.
      for (const [branch, shown] of [['no-such', 'default_branch must name a branch'], ['feature', 'Saved'], ['main', 'Saved']] as const) {
        await page.fill('input[name=default_branch]', branch);
        await page.click('main button:has-text("Change default branch")');
        expect(await page.textContent(branch === 'no-such' ? '[role=alert]' : '[role=status]')).toContain(shown);
        if (branch === 'feature') expect((await http(`${host.url}/api/v3/repos/olive/shed`, { headers: bearer(olive.token) })).json.default_branch).toBe('feature');
      }

      // A webhook: added, pinged at once, the delivery listed; redelivered from the history.
      await page.goto(`${host.url}/olive/shed/settings/hooks`);
      await page.fill('input[name=url]', receiver.url);
      await page.fill('input[name=secret]', 's3cret');
      await page.check('input[name=event_issues]');
      await page.click('main button:has-text("Add webhook")');
      await page.waitForURL(/settings\/hooks\/\d+\?saved=1$/);
      await receiver.waitForEvent('ping');
      await expect.poll(async () => (await page.reload(), await page.textContent('table.deliveries')), { timeout: 10_000 }).toContain('OK');
      await inspect(page, 'settings-hook');
      await page.click('table.deliveries button:has-text("Redeliver")');
      // A redelivery saves nothing: the page says what happened, not "Saved." (issue 21).
      await page.waitForURL(/\?saved=redelivered$/);
      expect(await page.textContent('[role=status]')).toContain('Delivery sent again');
      expect(await page.textContent('main')).not.toContain('Saved.');
      await receiver.waitForEvent('ping', 2);
      expect(await page.textContent('table.deliveries')).toContain('(redelivery)');
      expect(receiver.ofEvent('ping')[1]!.headers['x-github-delivery']).toBe(receiver.ofEvent('ping')[0]!.headers['x-github-delivery']);
      await page.uncheck('input[name=active][type=checkbox]');
      await page.click('main button:has-text("Update webhook")');
      await page.waitForURL(/\?saved=1$/);
      const hooks = (await http(`${host.url}/api/v1/repos/olive/shed/hooks`, { headers: bearer(olive.token) })).json;
      expect(hooks).toMatchObject([{ url: receiver.url, active: false, has_secret: true, events: ['push', 'issues'] }]);
      await page.click('main button:has-text("Delete webhook")');
      await page.waitForURL(`${host.url}/olive/shed/settings/hooks?saved=1`);
      expect(await page.textContent('main')).toContain('No webhooks yet');
      // A bad URL comes back as the form with the service's message.
      await page.goto(`${host.url}/olive/shed/settings/hooks`);
      await inspect(page, 'settings-hooks');
      await page.fill('input[name=url]', 'ftp://example.com/hook');
      const [refusedHook] = await Promise.all([page.waitForResponse((answer) => answer.request().method() === 'POST'), page.click('main button:has-text("Add webhook")')]);
      expect(refusedHook.status()).toBe(400);
      expect(await page.textContent('[role=alert]')).toContain('http or https');

      // A protection rule requiring a check: the merge box names it and a merge is refused with the reason.
      await page.goto(`${host.url}/olive/shed/settings/branches`);
      await page.fill('input[name=branch]', 'main');
      await page.check('input[name=require_pull_request][type=checkbox]');
      await page.fill('input[name=required_status_contexts]', 'ci/test');
      await page.click('main button:has-text("Save rule")');
      await page.waitForURL(/settings\/branches\?saved=1$/);
      expect(await page.textContent('table')).toContain('ci/test');
      await inspect(page, 'settings-branches');
      await page.click('a[aria-label="Edit rule main"]');
      expect(await page.inputValue('input[name=required_status_contexts]')).toBe('ci/test');
      expect(await page.isChecked('input[name=require_pull_request][type=checkbox]')).toBe(true);
      const pull = await http(`${host.url}/api/v1/repos/olive/shed/pulls`, { headers: bearer(olive.token), json: { title: 'Needs checks', head: 'feature', base: 'main' } });
      await page.goto(`${host.url}/olive/shed/pulls/${pull.json.number}`);
      expect(await page.textContent('#merge-box')).toContain('ci/test');
      expect(await page.isDisabled('#merge-box button:has-text("Merge pull request")')).toBe(true);
      expect(await page.textContent('#merge-blocked')).toContain('required check ci/test (missing) must pass');
      // Once CI reports success, the list shows it and the same merge goes through.
      const posted = await http(`${host.url}/api/v1/repos/olive/shed/statuses/${pull.json.head_sha}`, { headers: bearer(olive.token), json: { state: 'success', context: 'ci/test' } });
      expect(posted.status).toBe(200);
      await page.goto(`${host.url}/olive/shed/pulls`);
      expect(await page.textContent('.items')).toContain('checks: success');
      await page.goto(`${host.url}/olive/shed/pulls/${pull.json.number}`);
      expect(await page.textContent('.checks')).toContain('ci/test (required)');
      await page.click('#merge-box button:has-text("Merge pull request")');
      await page.waitForURL(`${host.url}/olive/shed/pulls/${pull.json.number}`);
      expect(await page.textContent('.merge-box')).toContain('merged');
      await page.goto(`${host.url}/olive/shed/settings/branches`);
      await page.click('button[aria-label="Delete rule main"]');
      await page.waitForURL(/\?saved=1$/);
      expect(await page.textContent('main')).toContain('No protected branches');

      // Rename, then delete with the full name typed (a wrong name first).
      await page.goto(`${host.url}/olive/shed/settings`);
      await page.fill('form[action$="/rename"] input[name=name]', 'barn');
      await page.click('main button:has-text("Rename repository")');
      await page.waitForURL(`${host.url}/olive/barn/settings?saved=1`);
      // The old name now leads to the new one (issue 21: renamed repositories redirect).
      const old = await http(`${host.url}/api/v1/repos/olive/shed`, { headers: bearer(olive.token) });
      expect([old.status, old.headers.location]).toEqual([301, '/api/v1/repos/olive/barn']);
      await page.fill('input[name=confirm]', 'olive/shed');
      const [refusedDelete] = await Promise.all([page.waitForResponse((answer) => answer.url().endsWith('/delete')), page.click('main button:has-text("Delete repository")')]);
      expect(refusedDelete.status()).toBe(400);
      expect(await page.textContent('[role=alert]')).toContain('type olive/barn to confirm');
      expect((await http(`${host.url}/api/v1/repos/olive/barn`, { headers: bearer(olive.token) })).status).toBe(200);
      await page.fill('input[name=confirm]', 'olive/barn');
      await page.click('main button:has-text("Delete repository")');
      await page.waitForURL(`${host.url}/`);
      expect((await http(`${host.url}/api/v1/repos/olive/barn`, { headers: bearer(olive.token) })).status).toBe(404);
    } finally {
      await receiver.close();
    }
  }, JOURNEY_MS);

  it('changes the avatar, the password (other sessions signed out) and revokes a session', async () => {
    const ada = await registerPerson('ada');
    const page = ada.page;
    const login = async (password: string) => {
      const answer = await http(`${host.url}/login`, { form: { username: 'ada', password, no_redirect: '1' } });
      return /^token=([^;]+)/.exec([answer.headers['set-cookie']].flat().find((value) => value?.startsWith('token=')) ?? '')?.[1];
    };
    const me = async (session: string) => (await http(`${host.url}/api/v1/me`, { headers: cookie(session) })).status;

    await page.goto(`${host.url}/user/settings`);
    await inspect(page, 'account');
    // A 1x1 PNG.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await page.setInputFiles('input[name=file]', { name: 'me.png', mimeType: 'image/png', buffer: png });
    await page.click('main button:has-text("Upload avatar")');
    await page.waitForURL(`${host.url}/user/settings?done=avatar`);
    expect(await page.getAttribute('#avatar', 'src')).toMatch(/\/avatars\/\d+-[0-9a-f]{16}\.png$/);
    expect(await page.evaluate(() => (document.getElementById('avatar') as HTMLImageElement).naturalWidth)).toBe(1);
    // Not an image: the page again, with the reason.
    await page.setInputFiles('input[name=file]', { name: 'me.png', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    const [refused] = await Promise.all([page.waitForResponse((answer) => answer.url().endsWith('/avatar')), page.click('main button:has-text("Upload avatar")')]);
    expect(refused.status()).toBe(415);
    expect(await page.textContent('[role=alert]')).toContain('avatar must be an image');

    // The multipart form is held to the request-forgery token too: a browser post without it changes nothing.
    const before = await page.getAttribute('#avatar', 'src');
    const forged = new FormData();
    forged.append('file', new Blob([png], { type: 'image/png' }), 'me.png');
    const answer = await fetch(`${host.url}/user/settings/avatar`, { method: 'POST', body: forged, headers: { cookie: `token=${ada.session}`, origin: host.url } });
    expect(answer.status).toBe(403);
    await page.reload();
    expect(await page.getAttribute('#avatar', 'src')).toBe(before);

    // Sessions: another one is listed and revoked; this browser's is marked.
    const other = (await login('password123'))!;
    await page.goto(`${host.url}/user/settings`);
    expect(await page.locator('section[aria-labelledby=sessions-heading] tbody tr').count()).toBe(2);
    expect(await page.textContent('tr:has-text("This browser")')).toContain('Sign out here');
    await page.click('section[aria-labelledby=sessions-heading] button:has-text("Revoke")');
    await page.waitForURL(`${host.url}/user/settings?done=revoked`);
    expect(await me(other)).toBe(401);
    expect(await me(ada.session)).toBe(200);

    // Password: the current one is required; the change signs the other sessions out, not this one.
    const third = (await login('password123'))!;
    await page.goto(`${host.url}/user/settings`);
    await page.fill('input[name=current_password]', 'wrong-password');
    await page.fill('input[name=new_password]', 'new-password-1');
    await page.click('main button:has-text("Change password")');
    expect(await page.textContent('[role=alert]')).toContain('current password is wrong');
    await page.fill('input[name=current_password]', 'password123');
    await page.fill('input[name=new_password]', 'new-password-1');
    await page.click('main button:has-text("Change password")');
    await page.waitForURL(`${host.url}/user/settings?done=password`);
    expect(await me(third)).toBe(401);
    expect(await me(ada.session)).toBe(200);
    expect(await login('new-password-1')).toBeDefined();
    await ada.context.close();
  }, JOURNEY_MS);

  it('renders the XSS vectors as text in issues, comments, labels, pull requests and webhook URLs', async () => {
    const receiver = await HookReceiver.start();
    const mallory = await registerPerson('mallory');
    try {
      const page = mallory.page;
      await createRepoInBrowser(mallory, 'trap');
      await pushTwoBranches(host, 'mallory', mallory.token, 'trap');
      const vectors = [
        '<script>window.__xss = 1</script>',
        '<img src=x onerror="window.__xss = 1">',
        '<svg onload="window.__xss = 1"><script>window.__xss = 1</script></svg>',
        '[click](javascript:window.__xss=1)',
        '<a href="javascript:window.__xss=1">link</a>',
        '[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9MTwvc2NyaXB0Pg==)',
        '![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIi8+)',
        '" onmouseover="window.__xss = 1" x="',
      ];
      const title = `<img src=x onerror="window.__xss = 1"> "quoted" <script>window.__xss = 1</script>`;
      const body = vectors.join('\n\n');
      await page.goto(`${host.url}/mallory/trap/labels`);
      await page.fill('input[name=name]', '<img src=x onerror=window.__xss=1>');
      await page.fill('input[name=description]', '"><script>window.__xss=1</script>');
      await page.click('main button:has-text("Create label")');
      await page.waitForURL(`${host.url}/mallory/trap/labels`);
      await page.goto(`${host.url}/mallory/trap/issues/new`);
      await page.fill('input[name=title]', title);
      await page.fill('textarea[name=body]', body);
      await page.click('main button:has-text("Open issue")');
      await page.waitForURL(/\/issues\/\d+$/);
      await page.fill('textarea[name=body]', body);
      await page.click('form[action$="/comments"] button[type=submit]');
      await page.waitForURL(/#comment-\d+$/);
      await page.check('.label-editor input[type=checkbox]');
      await page.click('main button:has-text("Save labels")');
      await page.waitForURL(/\/issues\/\d+$/);
      const issueUrl = page.url();
      await page.goto(`${host.url}/mallory/trap/compare/main...feature`);
      await page.fill('input[name=title]', title);
      await page.fill('textarea[name=description]', body);
      await page.click('main button:has-text("Create pull request")');
      await page.waitForURL(/\/pulls\/\d+$/);
      const pullUrl = page.url();
      await page.fill('textarea[name=body]', body);
      await page.click('form[action$="/comments"] button[type=submit]');
      await page.waitForURL(/#comment-\d+$/);
      await page.goto(`${host.url}/mallory/trap/settings/hooks`);
      await page.fill('input[name=url]', `${receiver.url}?q="><script>window.__xss=1</script>`);
      await page.click('main button:has-text("Add webhook")');
      await page.waitForURL(/settings\/hooks\/\d+\?saved=1$/);
      const hookUrl = page.url();

      for (const url of [issueUrl, `${host.url}/mallory/trap/issues`, `${host.url}/mallory/trap/labels`, pullUrl, `${host.url}/mallory/trap/pulls`, `${host.url}/mallory/trap/settings/hooks`, hookUrl]) {
        await page.goto(url);
        const found = await page.evaluate(() => ({
          flag: (window as unknown as { __xss?: number }).__xss,
          scripts: document.querySelectorAll('main script').length,
          handlers: [...document.querySelectorAll('main *')].filter((element) => [...element.attributes].some((attribute) => attribute.name.startsWith('on'))).length,
          badLinks: [...document.querySelectorAll('main a[href], main img[src]')].filter((element) => /^\s*(javascript|data):/i.test(element.getAttribute('href') ?? element.getAttribute('src') ?? '')).length,
          svg: document.querySelectorAll('main svg').length,
        }));
        expect(found, url).toEqual({ flag: undefined, scripts: 0, handlers: 0, badLinks: 0, svg: 0 });
      }
      await page.goto(issueUrl);
      expect(await page.textContent('.item-heading .title')).toBe(title);
      expect(await page.textContent('.issue-labels')).toContain('<img src=x onerror=window.__xss=1>');
      expect(await page.textContent('.conversation')).toContain('<script>window.__xss = 1</script>');
      await inspect(page, 'issue-xss');
      await page.goto(pullUrl);
      expect(await page.textContent('.item-heading .title')).toBe(title);
      await page.goto(`${host.url}/mallory/trap/settings/hooks`);
      expect(await page.textContent('.items')).toContain('%3Cscript%3E');
    } finally {
      await receiver.close();
      await mallory.context.close();
    }
  }, JOURNEY_MS);
});
