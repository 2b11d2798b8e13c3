import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { installationOctokit } from '../helpers/octokit.js';

// Issue 20: check runs appear on the pull request page beside commit statuses (the newest run of each name), a
// required check named by protection is marked, and what a check run says is shown as text.

describe('check runs on the pull request page', () => {
  let host: RepoHost;
  let alice: TestUser;
  let octokit: Octokit;
  /** alice's CI: an app installed on her repositories (GitHub takes check runs from apps only). */
  let ci: Octokit;
  let head: string;
  let number: number;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'app');
    head = (await pushTwoBranches(host, 'alice', alice.token, 'app')).feature;
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: alice.token });
    ci = await installationOctokit(host, 'alice');
    number = (await octokit.pulls.create({ owner: 'alice', repo: 'app', head: 'feature', base: 'main', title: 'Feature' })).data.number;
  });

  afterAll(async () => {
    await host?.close();
  });

  const page = async () => (await http(`${host.url}/alice/app/pulls/${number}`, { headers: bearer(alice.token) })).text;

  it('lists the newest run of each name with its state, title and details link, required ones marked', async () => {
    expect(await page()).toContain('No status checks reported');
    await ci.checks.create({ owner: 'alice', repo: 'app', name: 'build', head_sha: head, status: 'completed', conclusion: 'failure', output: { title: 'Old failure', summary: 'x' } });
    await ci.checks.create({ owner: 'alice', repo: 'app', name: 'build', head_sha: head, status: 'completed', conclusion: 'success', details_url: 'https://ci.example.com/build/2', output: { title: 'All <b>green</b>', summary: 'x' } });
    await ci.checks.create({ owner: 'alice', repo: 'app', name: 'lint', head_sha: head, status: 'in_progress' });
    await octokit.repos.updateBranchProtection({ owner: 'alice', repo: 'app', branch: 'main', required_status_checks: { strict: false, contexts: ['lint', 'docs'] }, enforce_admins: true, required_pull_request_reviews: null, restrictions: null });
    const text = await page();
    const section = /<section aria-label="Checks"[\s\S]*?<\/section>/.exec(text)?.[0] ?? '';
    expect(section).toContain('<span class="status-success">success</span> <strong>build</strong>');
    expect(section).toContain('All &lt;b&gt;green&lt;/b&gt;');
    expect(section).toContain('href="https://ci.example.com/build/2"');
    expect(section).not.toContain('Old failure');
    expect(section).toContain('<span class="status-pending">in progress</span> <strong>lint</strong> (required)');
    expect(section).toContain('<span class="status-pending">missing</span> <strong>docs</strong> (required)');
    // The merge box agrees: the required checks have not passed.
    expect(text).toContain('Merging is blocked');
  });
});
