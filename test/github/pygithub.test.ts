import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost, tempDir } from '../helpers/host.js';
import { installationOctokit, installationToken } from '../helpers/octokit.js';

/** Debian's python3, which Debian's python3-github (PyGithub 1.55) is installed for (.ci/run installs it). */
const PYTHON = '/usr/bin/python3';
const SCRIPT = join(import.meta.dirname, 'pygithub', 'workflow.py');

// Issue 20: a client nobody here wrote, unchanged: PyGithub runs a release tool's and a bot's workflow against
// /api/v3 (repository, contents, labels, issues with filters and paging, a pull request with its files, statuses,
// branch protection, a merge, a release with an asset, GitHub's errors).
describe('PyGithub against /api/v3', () => {
  let host: RepoHost;
  let work: { path: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    host = await startHost();
    work = await tempDir('repohost-pygithub-');
    for (const username of ['alice', 'bob']) await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('runs the whole workflow script without an error', async () => {
    const token = await host.admin.createToken('alice', 'pygithub');
    const reviewer = await host.admin.createToken('bob', 'pygithub');
    // alice's CI, an app installed on her repositories: GitHub takes check runs from apps only.
    const ci = await installationToken(await installationOctokit(host, 'alice'));
    // Asynchronous: the host answers in this process while the script runs.
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(PYTHON, [SCRIPT, `${host.url}/api/v3`, token, work.path, reviewer, ci], { encoding: 'utf8', timeout: 120_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.stderr, run.stderr.includes("No module named 'github'") ? 'PyGithub is missing: apt-get install python3-github' : run.stderr).toBe('');
    expect(run.stdout.trim().split('\n')).toEqual(
      ['user', 'repository', 'contents', 'labels', 'issues', 'pull request', 'statuses', 'checks', 'review', 'branch protection', 'merge', 'releases', 'errors'].map((step) => `ok ${step}`),
    );
    expect(run.code).toBe(0);
  });
});
