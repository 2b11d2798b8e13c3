import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';

const TOKEN = 'ghp_labelevents0123456789abcdef012';

/** Issue 20: `issues` events `labeled` and `unlabeled`, one per label, as GitHub sends them. */
describe('label events', () => {
  let host: RepoHost;
  let octokit: Octokit;
  const repo = { owner: 'alice', repo: 'app', issue_number: 1 };
  const seen: Array<{ action: string; label?: string; labels: string[] }> = [];

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 't', token: TOKEN }] }],
        repositories: [
          {
            owner: 'alice',
            name: 'app',
            labels: ['bug', 'docs', 'ui'].map((name) => ({ name, color: 'ededed' })),
            issues: [{ title: 'First' }],
          },
        ],
      },
    });
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: TOKEN });
    host.events.on('issues', (payload) => {
      seen.push({ action: payload.action, label: payload.label?.name, labels: payload.issue.labels.map((label) => label.name).sort() });
    });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('announces each label added or removed, with the issue as it is after the change', async () => {
    await octokit.issues.addLabels({ ...repo, labels: ['bug', 'docs'] });
    await octokit.issues.addLabels({ ...repo, labels: ['bug'] });
    await octokit.issues.setLabels({ ...repo, labels: ['docs', 'ui'] });
    await octokit.issues.removeLabel({ ...repo, name: 'ui' });
    expect(seen).toEqual([
      { action: 'labeled', label: 'bug', labels: ['bug', 'docs'] },
      { action: 'labeled', label: 'docs', labels: ['bug', 'docs'] },
      { action: 'unlabeled', label: 'bug', labels: ['docs', 'ui'] },
      { action: 'labeled', label: 'ui', labels: ['docs', 'ui'] },
      { action: 'unlabeled', label: 'ui', labels: ['docs'] },
    ]);
  });
});
