import { Octokit } from '@octokit/rest';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { tokenCookie } from '../helpers/api.js';
import { inspect, launchChromium, signIn } from '../helpers/browser.js';
import { http, startHost } from '../helpers/host.js';

// Issue 21: assignees and milestones on issue and pull request pages, milestone pages with their progress, and
// titles and descriptions edited by their authors and writers, all through the same services as the API.

const JOURNEY_MS = 120_000;
const MIA = 'mia_token_0123456789abcdef';

describe('triage in the browser: assignees, milestones, titles', () => {
  let host: RepoHost;
  let browser: Browser;
  let page: Page;
  let octokit: Octokit;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [
          { username: 'mia', email: 'mia@example.com', password: 'password123', tokens: [{ name: 'api', token: MIA }] },
          { username: 'leo', email: 'leo@example.com', password: 'password123' },
          { username: 'rex', email: 'rex@example.com', password: 'password123' },
        ],
        repositories: [
          {
            owner: 'mia',
            name: 'plan',
            collaborators: { leo: 'write', rex: 'read' },
            branches: { main: { commits: [{ message: 'Start', files: { 'a.txt': 'a\n' } }] }, idea: { from: 'main', commits: [{ message: 'Idea', files: { 'b.txt': 'b\n' } }] } },
            issues: [{ title: 'First step' }, { title: 'Second step' }, { title: 'Later' }],
            pulls: [{ title: 'An idea', head: 'idea', base: 'main' }],
          },
        ],
      },
    });
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: MIA });
    browser = await launchChromium();
    page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await signIn(page, host.url, 'mia');
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('creates a milestone, then assigns an issue and a pull request to people and to it', async () => {
    await page.goto(`${host.url}/mia/plan/milestones`);
    await page.click('.new-milestone summary');
    await page.fill('input[name=title]', 'v1.0');
    await page.fill('input[name=due_on]', '2030-01-31');
    await page.fill('textarea[name=description]', 'The **first** release');
    await page.click('button:text-is("Create milestone")');
    await page.waitForURL(`${host.url}/mia/plan/milestone/1`);
    expect(await page.textContent('main')).toContain('Due by 2030-01-31');
    await page.goto(`${host.url}/mia/plan/issues/1`);
    await page.click('.triage-edit summary');
    await inspect(page, 'issue', 'triage', 1);
    await page.check('input[name="assignee.leo"]');
    await page.selectOption('select[name=milestone]', { label: 'v1.0' });
    await page.click('.triage-edit button[type=submit]');
    await page.waitForURL(`${host.url}/mia/plan/issues/1#triage`);
    expect(await page.textContent('#triage p')).toMatch(/Assignees:\s*leo\s*·\s*Milestone:\s*v1\.0/);
    const issue = (await octokit.issues.get({ owner: 'mia', repo: 'plan', issue_number: 1 })).data;
    expect([issue.assignees?.map((user) => user.login), issue.milestone?.title]).toEqual([['leo'], 'v1.0']);
    // The pull request's conversation has the same section.
    await page.goto(`${host.url}/mia/plan/pulls/4`);
    await page.click('.triage-edit summary');
    await page.check('input[name="assignee.mia"]');
    await page.selectOption('select[name=milestone]', { label: 'v1.0' });
    await page.click('.triage-edit button[type=submit]');
    await page.waitForURL(`${host.url}/mia/plan/pulls/4#triage`);
    expect((await octokit.pulls.get({ owner: 'mia', repo: 'plan', pull_number: 4 })).data.milestone?.title).toBe('v1.0');
    // Unassigning and clearing work the same way.
    await page.goto(`${host.url}/mia/plan/issues/3`);
    await page.click('.triage-edit summary');
    await page.check('input[name="assignee.leo"]');
    await page.click('.triage-edit button[type=submit]');
    await page.goto(`${host.url}/mia/plan/issues/3`);
    await page.click('.triage-edit summary');
    await page.uncheck('input[name="assignee.leo"]');
    await page.click('.triage-edit button[type=submit]');
    expect((await octokit.issues.get({ owner: 'mia', repo: 'plan', issue_number: 3 })).data.assignees).toEqual([]);
  }, JOURNEY_MS);

  it('shows a milestone with its progress and its open and closed issues and pull requests', async () => {
    await octokit.issues.update({ owner: 'mia', repo: 'plan', issue_number: 2, milestone: 1, state: 'closed' });
    await page.goto(`${host.url}/mia/plan/milestone/1`);
    expect(await page.textContent('.milestone-progress')).toContain('33% complete · 2 open · 1 closed');
    const open = await page.locator('ul.items a.item-title').allTextContents();
    expect(open.sort()).toEqual(['An idea', 'First step']);
    await inspect(page, 'milestone', 'triage', 1);
    await page.goto(`${host.url}/mia/plan/milestone/1?state=closed`);
    expect(await page.locator('ul.items a.item-title').allTextContents()).toEqual(['Second step']);
    await page.goto(`${host.url}/mia/plan/milestones`);
    expect(await page.textContent('ul.items')).toContain('33% complete');
    await inspect(page, 'milestones', 'triage', 1);
  }, JOURNEY_MS);

  it('closes, reopens and deletes a milestone', async () => {
    await page.goto(`${host.url}/mia/plan/milestones`);
    await page.click('button:text-is("Close")');
    await page.waitForURL(`${host.url}/mia/plan/milestones`);
    expect(await page.textContent('main')).toContain('No open milestones.');
    await page.goto(`${host.url}/mia/plan/milestones?state=closed`);
    await page.click('button:text-is("Reopen")');
    await page.goto(`${host.url}/mia/plan/milestones`);
    // Deleting asks first: dismissed, nothing happens; accepted, the milestone goes.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.click('button:text-is("Delete")');
    expect((await octokit.issues.listMilestones({ owner: 'mia', repo: 'plan' })).data).toHaveLength(1);
    page.once('dialog', (dialog) => {
      expect(dialog.message()).toContain('Delete the milestone v1.0?');
      void dialog.accept();
    });
    await page.click('button:text-is("Delete")');
    await page.waitForURL(`${host.url}/mia/plan/milestones`);
    expect((await octokit.issues.listMilestones({ owner: 'mia', repo: 'plan', state: 'all' })).data).toEqual([]);
    expect((await octokit.issues.get({ owner: 'mia', repo: 'plan', issue_number: 1 })).data.milestone).toBeNull();
  }, JOURNEY_MS);

  it('edits the title and description of an issue and of a pull request', async () => {
    await page.goto(`${host.url}/mia/plan/issues/3`);
    await page.click('.edit-text summary');
    await page.fill('.edit-text input[name=title]', 'Much later');
    await page.fill('.edit-text textarea[name=body]', 'After #1 lands.');
    await page.click('.edit-text button[type=submit]');
    await page.waitForURL(`${host.url}/mia/plan/issues/3`);
    expect(await page.textContent('h2.item-heading .title')).toBe('Much later');
    expect(await page.innerHTML('article.comment .markdown')).toContain('<a href="/mia/plan/issues/1" class="issue-link">#1</a>');
    await page.goto(`${host.url}/mia/plan/pulls/4`);
    await page.click('.edit-text summary');
    await page.fill('.edit-text textarea[name=description]', 'A better idea');
    await page.click('.edit-text button[type=submit]');
    await page.waitForURL(`${host.url}/mia/plan/pulls/4`);
    expect((await octokit.pulls.get({ owner: 'mia', repo: 'plan', pull_number: 4 })).data).toMatchObject({ title: 'An idea', body: 'A better idea' });
    // An empty title is refused with the page and its reason.
    await page.click('.edit-text summary');
    await page.fill('.edit-text input[name=title]', ' ');
    await page.evaluate(() => document.querySelector('.edit-text input[name=title]')!.removeAttribute('required'));
    await page.click('.edit-text button[type=submit]');
    expect(await page.textContent('p.error')).toContain('title');
  }, JOURNEY_MS);

  it('shows what happened between the comments, on issues and pull requests', async () => {
    await octokit.issues.createComment({ owner: 'mia', repo: 'plan', issue_number: 3, body: 'Parking this.' });
    await octokit.issues.update({ owner: 'mia', repo: 'plan', issue_number: 3, state: 'closed', state_reason: 'not_planned' });
    await page.goto(`${host.url}/mia/plan/issues/3`);
    const lines = async () => (await page.locator('.conversation > *').allTextContents()).map((text) => text.replace(/\s+/g, ' ').trim());
    const issue = await lines();
    // The opening text, what triage and editing did (earlier tests), the comment, then the closing.
    expect(issue.slice(1).map((line) => line.replace(/ (?:just now|\d+ \w+ ago)$/, ''))).toEqual([
      'mia assigned leo',
      'mia unassigned leo',
      'mia changed the title Later Much later',
      expect.stringContaining('Parking this.'),
      'mia closed this as not planned',
    ]);
    expect(await page.locator('.timeline-event del').first().textContent()).toBe('Later');
    await inspect(page, 'issue', 'timeline', 1);
    await page.goto(`${host.url}/mia/plan/pulls/4`);
    expect((await lines()).slice(1).map((line) => line.replace(/ (?:just now|\d+ \w+ ago)$/, ''))).toEqual(['mia self-assigned this', 'mia added this to the v1.0 milestone']);
  }, JOURNEY_MS);

  it('puts each event on the page of the comments it came between', async () => {
    const at = { owner: 'mia', repo: 'plan', issue_number: 2 };
    for (let n = 1; n <= 100; n++) await octokit.issues.createComment({ ...at, body: `Comment ${n}` });
    await octokit.issues.update({ ...at, title: 'Second step, renamed' });
    await octokit.issues.createComment({ ...at, body: 'Comment 101' });
    const mia = tokenCookie(await http(`${host.url}/login`, { form: { username: 'mia', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    const pageText = async (n: number) => (await http(`${host.url}/mia/plan/issues/2?page=${n}`, { headers: { cookie: mia } })).text;
    const [first, second] = [await pageText(1), await pageText(2)];
    expect(first).toContain('Comment 100');
    expect(first).not.toContain('changed the title');
    expect(second).toMatch(/changed the title[\s\S]*Comment 101/);
    // The events before the first comment (milestone, closing: earlier tests) are on the first page only.
    expect(first).toContain('added this to the <strong>v1.0</strong> milestone');
    expect(second).not.toContain('milestone</p>');
  }, JOURNEY_MS);

  it('lets readers see assignees but change nothing, and refuses accounts that cannot be assigned', async () => {
    const rex = tokenCookie(await http(`${host.url}/login`, { form: { username: 'rex', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    const issue = await http(`${host.url}/mia/plan/issues/1`, { headers: { cookie: rex } });
    expect(issue.text).toContain('<a href="/leo">leo</a>');
    expect(issue.text).not.toContain('triage-edit');
    expect(issue.text).not.toContain('edit-text');
    expect((await http(`${host.url}/mia/plan/issues/1/edit`, { headers: { cookie: rex }, form: { title: 'Taken over', body: '' } })).status).toBe(403);
    expect((await octokit.issues.get({ owner: 'mia', repo: 'plan', issue_number: 1 })).data.title).toBe('First step');
    const refused = await http(`${host.url}/mia/plan/issues/1/triage`, { headers: { cookie: rex }, form: { 'assignee.rex': '1', milestone: '' } });
    expect(refused.status).toBe(403);
    expect((await http(`${host.url}/mia/plan/milestones`, { headers: { cookie: rex } })).text).not.toContain('New milestone');
    expect((await http(`${host.url}/mia/plan/milestones`, { headers: { cookie: rex }, form: { title: 'sneaky' } })).status).toBe(404);
    const mia = tokenCookie(await http(`${host.url}/login`, { form: { username: 'mia', password: 'password123', no_redirect: '1' } }))!.split(';')[0]!;
    const stranger = await http(`${host.url}/mia/plan/issues/1/triage`, { headers: { cookie: mia }, form: { 'assignee.nobody': '1', milestone: '' } });
    expect(stranger.status).toBe(400);
    expect(stranger.text).toContain('assignees must be accounts that may be assigned here');
    expect((await octokit.issues.get({ owner: 'mia', repo: 'plan', issue_number: 1 })).data.assignees?.map((user) => user.login)).toEqual(['leo']);
  });
});
