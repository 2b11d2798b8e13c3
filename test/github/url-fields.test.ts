import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { http, startHost } from '../helpers/host.js';

const TOKEN = 'ghp_urlfields0123456789abcdef01234';

/** Issue 20: every object carries GitHub's URL fields, pointing at this host, and an opaque node id. */
describe('URL fields and node ids of /api/v3 objects', () => {
  let host: RepoHost;
  let octokit: Octokit;
  const repo = { owner: 'alice', repo: 'app' };

  beforeAll(async () => {
    host = await startHost({
      fixtures: {
        users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 't', token: TOKEN }] }],
        repositories: [
          {
            owner: 'alice',
            name: 'app',
            branches: { main: { commits: [{ message: 'root', files: { 'a.txt': 'a\n' } }] }, topic: { from: 'main', commits: [{ message: 't', files: { 't.txt': 't\n' } }] } },
            labels: [{ name: 'good first issue', color: '7057ff' }],
            issues: [{ title: 'First', labels: ['good first issue'], comments: [{ author: 'alice', body: 'hello' }] }],
            pulls: [{ title: 'Topic', head: 'topic', base: 'main' }],
          },
        ],
      },
    });
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: TOKEN });
  });

  afterAll(async () => {
    await host?.close();
  });

  /** GETs a URL field (its `{…}` template parts left out) with the token. */
  const follow = async (url: string) => http(url.replace(/\{[^}]*\}/g, ''), { headers: { authorization: `token ${TOKEN}` } });

  it('follows the URL fields clients use, and gives each object its own node id', async () => {
    const repository = (await octokit.repos.get(repo)).data;
    const issue = (await octokit.issues.get({ ...repo, issue_number: 1 })).data;
    const pull = (await octokit.pulls.get({ ...repo, pull_number: 2 })).data;
    const label = issue.labels[0] as { url: string; node_id: string; name: string };
    const comment = (await octokit.issues.listComments({ ...repo, issue_number: 1 })).data[0]!;
    const branch = (await octokit.repos.getBranch({ ...repo, branch: 'main' })).data;
    for (const url of [repository.labels_url, repository.issues_url, repository.pulls_url, repository.branches_url, repository.owner.url, repository.owner.repos_url, issue.labels_url, issue.comments_url, issue.repository_url, label.url, pull.commits_url, pull.comments_url, pull.issue_url, comment.url]) {
      expect(url.startsWith(`${host.url}/api/v3/`), url).toBe(true);
      expect((await follow(url)).status, url).toBe(200);
    }
    expect((await follow(label.url)).json.name).toBe('good first issue');
    expect(branch.protection_url).toBe(`${host.url}/api/v3/repos/alice/app/branches/main/protection`);
    // Followed (PyGithub's get_protection()): GitHub's 404 while unprotected, the rules once protected.
    expect((await follow(branch.protection_url)).json).toMatchObject({ message: 'Branch not protected' });
    await http(`${host.url}/api/v1/repos/alice/app/branch_protections/main`, { method: 'PUT', headers: { authorization: `token ${TOKEN}` }, json: { allow_deletion: true, required_status_contexts: ['ci'] } });
    const protection = await follow(branch.protection_url);
    expect(protection.status).toBe(200);
    expect(protection.json).toMatchObject({ url: branch.protection_url, required_status_checks: { contexts: ['ci'] }, allow_deletions: { enabled: true }, allow_force_pushes: { enabled: false } });
    expect((await follow(`${host.url}/api/v3/repos/alice/app/branches?protected=true`)).status).toBe(422);
    const ids = [repository.node_id, repository.owner.node_id, issue.node_id, pull.node_id, label.node_id, comment.node_id];
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(repository.owner.node_id).toBe(Buffer.from(`04:User${repository.owner.id}`).toString('base64'));
  });

  it('says how authors relate to the repository, and shows no assignees, milestones or reviewers', async () => {
    const issue = (await octokit.issues.get({ ...repo, issue_number: 1 })).data;
    const pull = (await octokit.pulls.get({ ...repo, pull_number: 2 })).data;
    const comment = (await octokit.issues.listComments({ ...repo, issue_number: 1 })).data[0]!;
    expect([issue.author_association, pull.author_association, comment.author_association]).toEqual(['OWNER', 'OWNER', 'OWNER']);
    expect(issue).toMatchObject({ assignee: null, assignees: [], milestone: null, locked: false });
    // The first test protected main with a required check `ci`: the merge is blocked until head passes it.
    expect(pull).toMatchObject({ labels: [], assignees: [], requested_reviewers: [], requested_teams: [], mergeable: true, mergeable_state: 'blocked' });
    await octokit.repos.createCommitStatus({ ...repo, sha: pull.head.sha, state: 'success', context: 'ci' });
    expect((await octokit.pulls.get({ ...repo, pull_number: 2 })).data.mergeable_state).toBe('clean');
    const listed = (await octokit.issues.listForRepo({ ...repo, state: 'all' })).data;
    expect(listed.every((item) => item.author_association === 'OWNER')).toBe(true);
  });
});
