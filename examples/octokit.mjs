// Test a GitHub bot against a real forge: start a host, give the bot a token, and drive the GitHub-compatible API
// (/api/v3) with the unchanged @octokit/rest client, as GitHub Enterprise Server is driven.
// Run after `npm install` (which builds dist/): node examples/octokit.mjs
import { Octokit } from '@octokit/rest';
import { createRepoHost } from 'repohost';

const host = await createRepoHost({ port: 0, dbPath: ':memory:', bcryptCost: 4 });
try {
  await host.admin.createUser({ username: 'bot', email: 'bot@example.com', password: 'correct-horse' });
  const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('bot', 'octokit') });
  const owner = 'bot';
  const repo = 'release-notes';

  const { data: created } = await octokit.repos.createForAuthenticatedUser({ name: repo, auto_init: true });
  console.log(`created ${created.full_name} on ${created.default_branch}`);

  // A branch with a new file through the contents API, then a pull request with a passing status, merged.
  const { data: main } = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
  await octokit.git.createRef({ owner, repo, ref: 'refs/heads/notes', sha: main.object.sha });
  const { data: file } = await octokit.repos.createOrUpdateFileContents({
    owner,
    repo,
    path: 'NOTES.md',
    branch: 'notes',
    message: 'Add release notes',
    content: Buffer.from('# 1.0\n\n- first release\n').toString('base64'),
  });
  const { data: pull } = await octokit.pulls.create({ owner, repo, title: 'Release notes', head: 'notes', base: 'main' });
  await octokit.repos.createCommitStatus({ owner, repo, sha: file.commit.sha, state: 'success', context: 'ci' });
  const { data: merge } = await octokit.pulls.merge({ owner, repo, pull_number: pull.number, merge_method: 'squash' });
  console.log(`pull request #${pull.number} merged: ${merge.merged}`);

  const { data: notes } = await octokit.repos.getContent({ owner, repo, path: 'NOTES.md' });
  console.log(`NOTES.md on main: ${JSON.stringify(Buffer.from(notes.content, 'base64').toString('utf8'))}`);
  const issues = await octokit.issues.listForRepo({ owner, repo, state: 'all' });
  console.log(`issues and pull requests: ${issues.data.map((item) => `#${item.number} ${item.title}${item.pull_request ? ' (pull request)' : ''}`).join(', ')}`);
  const commits = await octokit.repos.listCommits({ owner, repo });
  console.log(`commits on main: ${commits.data.map((commit) => commit.commit.message.split('\n')[0]).join(' <- ')}`);
} finally {
  await host.close();
}
