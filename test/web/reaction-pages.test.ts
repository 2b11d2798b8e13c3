import type { Browser } from 'playwright-core';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { launchChromium } from '../helpers/browser.js';
import { register, startHost } from '../helpers/host.js';
import { historyOf } from '../helpers/octokit.js';

/** Reactions given through the API, shown on the conversation pages of issues and pull requests. */
describe('reactions on conversation pages', () => {
  let host: RepoHost;
  let browser: Browser;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'reacted' };

  beforeAll(async () => {
    host = await startHost();
    for (const username of ['alice', 'bob']) {
      await register(host, username);
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'reactions') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'reacted', auto_init: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  /** The reaction lines of a page, in order: each message's emoji and counts ('' for one with none). */
  const reactionsOn = async (path: string) => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${host.url}${path}`);
    const lines = await page.locator('.conversation .comment').evaluateAll((comments) => comments.map((comment) => comment.querySelector('.reactions')?.textContent?.replace(/\s+/g, ' ').trim() ?? ''));
    await page.close();
    return lines;
  };

  it('shows each message’s reactions, on issues and on pull requests', async () => {
    const issue = (await as.alice!.issues.create({ ...repo, title: 'Liked', body: 'Please react' })).data;
    const quiet = (await as.bob!.issues.createComment({ ...repo, issue_number: issue.number, body: 'No one reacts to me' })).data;
    const loved = (await as.bob!.issues.createComment({ ...repo, issue_number: issue.number, body: 'Everyone loves me' })).data;
    for (const who of ['alice', 'bob']) await as[who]!.reactions.createForIssue({ ...repo, issue_number: issue.number, content: '+1' });
    await as.alice!.reactions.createForIssue({ ...repo, issue_number: issue.number, content: 'rocket' });
    await as.alice!.reactions.createForIssueComment({ ...repo, comment_id: loved.id, content: 'heart' });
    expect(quiet.id).toBeLessThan(loved.id);
    expect(await reactionsOn(`/alice/reacted/issues/${issue.number}`)).toEqual(['👍 2 🚀 1', '', '❤️ 1']);

    const history = historyOf(as.alice!, repo);
    await history.branchFrom('topic', 'main');
    await history.write('topic', 'topic.txt');
    const pull = (await as.alice!.pulls.create({ ...repo, title: 'Reviewed', head: 'topic', base: 'main' })).data;
    const comment = (await as.bob!.issues.createComment({ ...repo, issue_number: pull.number, body: 'Nice' })).data;
    await as.bob!.reactions.createForIssue({ ...repo, issue_number: pull.number, content: 'eyes' });
    await as.alice!.reactions.createForIssueComment({ ...repo, comment_id: comment.id, content: 'laugh' });
    expect(await reactionsOn(`/alice/reacted/pulls/${pull.number}`)).toEqual(['👀 1', '😄 1']);
  });
});
