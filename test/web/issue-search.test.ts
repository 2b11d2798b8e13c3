import { Octokit } from '@octokit/rest';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { inspect, launchChromium } from '../helpers/browser.js';
import { http, startHost } from '../helpers/host.js';

// Issue 21: issue search on the issue list (words in titles and bodies) with filters by author, assignee, label,
// milestone and state, through the same search as /search/issues (which gains milestone: and no:milestone).

const JOURNEY_MS = 120_000;
const IVY = 'ivy_token_0123456789abcdef';

describe('issue search and filters', () => {
  let host: RepoHost;
  let browser: Browser;

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [
          { username: 'ivy', email: 'ivy@example.com', password: 'password123', tokens: [{ name: 'api', token: IVY }] },
          { username: 'sam', email: 'sam@example.com', password: 'password123' },
        ],
        repositories: [
          {
            owner: 'ivy',
            name: 'tracker',
            collaborators: { sam: 'write' },
            labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'good first issue', color: '7057ff' }],
            issues: [
              { title: 'Crash on start', body: 'A segfault when launched', labels: ['bug'] },
              { title: 'Docs typo', author: 'sam', labels: ['good first issue'] },
              { title: 'Crash on exit', author: 'sam', labels: ['bug'], closed: true },
              { title: 'Slow start' },
            ],
          },
        ],
      },
    });
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: IVY });
    const milestone = await octokit.issues.createMilestone({ owner: 'ivy', repo: 'tracker', title: 'v1.0' });
    await octokit.issues.update({ owner: 'ivy', repo: 'tracker', issue_number: 4, assignees: ['sam'], milestone: milestone.data.number });
    browser = await launchChromium();
  }, JOURNEY_MS);

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  /** The issue numbers a list shows, and its tab counts. */
  const listed = async (query: string) => {
    const page = await http(`${host.url}/ivy/tracker/issues?${query}`);
    expect(page.status).toBe(200);
    const numbers = [...page.text.matchAll(/href="\/ivy\/tracker\/issues\/(\d+)"/g)].map((match) => Number(match[1])).sort();
    const counts = [...page.text.matchAll(/<span class="count">(\d+)<\/span>/g)].map((match) => Number(match[1]));
    return { numbers, counts, text: page.text };
  };

  it('finds words in titles and bodies, and narrows by author, assignee, milestone, label and state', async () => {
    expect(await listed('q=crash')).toMatchObject({ numbers: [1], counts: [1, 1] });
    expect((await listed('status=closed&q=crash')).numbers).toEqual([3]);
    expect((await listed('q=segfault')).numbers).toEqual([1]);
    expect((await listed('q=author%3Asam')).numbers).toEqual([2]);
    expect((await listed('q=assignee%3Asam')).numbers).toEqual([4]);
    expect((await listed('q=milestone%3A%22v1.0%22')).numbers).toEqual([4]);
    expect((await listed('q=no%3Amilestone')).numbers).toEqual([1, 2]);
    expect((await listed('q=label%3A%22good+first+issue%22')).numbers).toEqual([2]);
    // The label chips and the search combine; an author nobody has finds nothing.
    expect((await listed('labels=bug&q=start')).numbers).toEqual([1]);
    expect((await listed('q=author%3Anobody')).numbers).toEqual([]);
    // The tabs and chips keep the search.
    expect((await listed('q=crash')).text).toContain('href="/ivy/tracker/issues?status=closed&amp;q=crash"');
  });

  it('says why a search cannot run instead of failing', async () => {
    const { numbers, text } = await listed('q=color%3Ared');
    expect(numbers).toEqual([]);
    expect(text).toContain('repohost does not support the qualifier color:');
    // A search narrows this repository's issues; it never widens to pull requests or other repositories.
    for (const query of ['is%3Apr', 'repo%3Aother%2Fplace+crash', 'type%3Apr']) {
      const widened = await listed(`q=${query}`);
      expect(widened.numbers, query).toEqual([]);
      expect(widened.text).toContain('The issue list searches the issues of this repository');
    }
  });

  it('searches from the page, and the API knows milestone: too', async () => {
    const page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await page.goto(`${host.url}/ivy/tracker/issues`);
    await page.fill('input[name=q]', 'start');
    await page.press('input[name=q]', 'Enter');
    await page.waitForURL(/q=start/);
    expect(await page.locator('ul.items li').count()).toBe(2);
    await inspect(page, 'results', 'issue-search', 1);
    const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: IVY });
    const found = await octokit.search.issuesAndPullRequests({ q: 'repo:ivy/tracker milestone:"v1.0"' });
    expect(found.data.items.map((item) => item.number)).toEqual([4]);
    expect((await octokit.search.issuesAndPullRequests({ q: 'repo:ivy/tracker is:issue no:milestone is:open' })).data.total_count).toBe(2);
  }, JOURNEY_MS);
});
