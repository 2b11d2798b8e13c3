import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost, tempDir } from '../helpers/host.js';
import { installationOctokit, installationToken } from '../helpers/octokit.js';

/** Debian's ruby, which Debian's ruby-octokit (octokit.rb 4.20) is installed for (.ci/run installs it). */
const RUBY = '/usr/bin/ruby';
const SCRIPT = join(import.meta.dirname, 'octokit-rb', 'workflow.rb');

// Issue 20: another client nobody here wrote, unchanged: octokit.rb (Ruby, the library of many release tools and
// bots) runs the same day as the PyGithub test against /api/v3: the root document and rate limit, a repository and a
// collaborator, contents (raw too), labels, issues with filters and paging, a pull request, statuses, checks, a
// review, branch protection, a merge, a release with an asset, GitHub's errors.
describe('octokit.rb against /api/v3', () => {
  let host: RepoHost;
  let work: { path: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    host = await startHost();
    work = await tempDir('repohost-octokit-rb-');
    for (const username of ['alice', 'bob']) await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('runs the whole workflow script without an error', async () => {
    const token = await host.admin.createToken('alice', 'octokit-rb');
    const reviewer = await host.admin.createToken('bob', 'octokit-rb');
    // alice's CI, an app installed on her repositories: GitHub takes check runs from apps only.
    const ci = await installationToken(await installationOctokit(host, 'alice'));
    // Asynchronous: the host answers in this process while the script runs.
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(RUBY, [SCRIPT, `${host.url}/api/v3`, token, work.path, reviewer, ci], { encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.stderr, run.stderr.includes('cannot load such file -- octokit') ? 'octokit.rb is missing: apt-get install ruby-octokit' : run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual(
      ['user', 'repository', 'contents', 'labels', 'issues', 'pull request', 'statuses', 'checks', 'review', 'branch protection', 'merge', 'releases', 'errors'].map((step) => `ok ${step}`),
    );
    expect(run.code).toBe(0);
  });
});
