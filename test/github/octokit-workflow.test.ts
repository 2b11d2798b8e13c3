import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git } from '../helpers/git-cli.js';
import { startHost, tempDir } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';

const SECRET = 'octokit-hook-secret';

describe('the GitHub-compatible API driven by the real @octokit/rest', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let octokit: Octokit;
  let token: string;
  const owner = 'alice';
  const repo = 'bot-target';

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true, webhookRetryDelayMs: 50, webhookMaxAttempts: 5 });
    receiver = await HookReceiver.start();
    await host.admin.createUser({ username: owner, email: 'alice@example.com', password: 'password123', fullName: 'Alice Liddell' });
    token = await host.admin.createToken(owner, 'bot');
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: token });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('builds commits through git data, edits through contents, merges a checked pull request, and git clone finds exactly that', async () => {
    // A repository with GitHub's initial commit.
    const created = await octokit.repos.createForAuthenticatedUser({ name: repo, description: 'made by a bot', auto_init: true });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ name: repo, full_name: `${owner}/${repo}`, private: false, default_branch: 'main', permissions: { admin: true, push: true, pull: true } });
    expect(created.data.owner.login).toBe(owner);
    expect(created.data.clone_url).toBe(`${host.url}/${owner}/${repo}.git`);

    // A webhook with GitHub's config object; its pushes are signed so that @octokit/webhooks' own verify accepts them.
    const hook = await octokit.repos.createWebhook({ owner, repo, config: { url: receiver.url, content_type: 'json', secret: SECRET }, events: ['push', 'pull_request', 'status'] });
    expect(hook.status).toBe(201);
    expect(hook.data.config).toMatchObject({ url: receiver.url, content_type: 'json', secret: '********' });

    // Git data: blob (text and binary), tree on the initial commit's tree, commit, then a branch ref.
    const main = await octokit.git.getRef({ owner, repo, ref: 'heads/main' });
    const initial = await octokit.git.getCommit({ owner, repo, commit_sha: main.data.object.sha });
    expect(initial.data.message).toBe('Initial commit');
    expect(initial.data.author).toMatchObject({ name: 'Alice Liddell', email: 'alice@users.noreply.repohost' });
    const text = await octokit.git.createBlob({ owner, repo, content: 'hello from the api\n', encoding: 'utf-8' });
    const binaryBytes = Buffer.from([0, 1, 2, 250, 255]);
    const binary = await octokit.git.createBlob({ owner, repo, content: binaryBytes.toString('base64'), encoding: 'base64' });
    expect((await octokit.git.getBlob({ owner, repo, file_sha: binary.data.sha })).data).toMatchObject({ content: binaryBytes.toString('base64'), encoding: 'base64', size: 5 });
    const tree = await octokit.git.createTree({
      owner,
      repo,
      base_tree: initial.data.tree.sha,
      tree: [
        { path: 'src/hello.txt', mode: '100644', type: 'blob', sha: text.data.sha },
        { path: 'data.bin', mode: '100644', type: 'blob', sha: binary.data.sha },
      ],
    });
    expect(tree.data.tree.map((entry) => entry.path).sort()).toEqual(['README.md', 'data.bin', 'src']);
    const commit = await octokit.git.createCommit({ owner, repo, message: 'Add hello and data', tree: tree.data.sha, parents: [main.data.object.sha] });
    expect(commit.data.parents.map((parent) => parent.sha)).toEqual([main.data.object.sha]);
    const ref = await octokit.git.createRef({ owner, repo, ref: 'refs/heads/feature', sha: commit.data.sha });
    expect(ref.data).toMatchObject({ ref: 'refs/heads/feature', object: { type: 'commit', sha: commit.data.sha } });
    const recursive = await octokit.git.getTree({ owner, repo, tree_sha: commit.data.sha, recursive: 'true' });
    expect(recursive.data.tree.map((entry) => entry.path)).toContain('src/hello.txt');

    // The ref creation is a push for webhooks: signed with the secret, verified by @octokit/webhooks.
    const [pushHook] = await receiver.waitFor((received) => received.headers['x-github-event'] === 'push' && received.json?.ref === 'refs/heads/feature');
    const verifier = new Webhooks({ secret: SECRET });
    expect(await verifier.verify(pushHook!.body.toString('utf8'), String(pushHook!.headers['x-hub-signature-256']))).toBe(true);
    expect(pushHook!.json.after).toBe(commit.data.sha);

    // Contents: read the README on the branch, replace it (with its blob id), read it back.
    const readme = await octokit.repos.getContent({ owner, repo, path: 'README.md', ref: 'feature' });
    const readmeFile = readme.data as { sha: string; content: string; encoding: string; type: string };
    expect(readmeFile.type).toBe('file');
    expect(Buffer.from(readmeFile.content, 'base64').toString('utf8')).toBe(`# ${repo}\n\nmade by a bot\n`);
    const updated = await octokit.repos.createOrUpdateFileContents({
      owner,
      repo,
      path: 'README.md',
      branch: 'feature',
      message: 'Describe the bot',
      content: Buffer.from('# bot-target\n\nNow with a bot.\n').toString('base64'),
      sha: readmeFile.sha,
    });
    expect(updated.status).toBe(200);
    // What the answer says was written is what git holds.
    expect((await octokit.git.getCommit({ owner, repo, commit_sha: updated.data.commit.sha! })).data).toEqual(updated.data.commit);
    expect((await octokit.repos.getContent({ owner, repo, path: 'README.md', ref: 'feature' })).data).toEqual({ ...updated.data.content, content: expect.any(String), encoding: 'base64' });
    const newFile = await octokit.repos.createOrUpdateFileContents({ owner, repo, path: 'docs/new.md', branch: 'feature', message: 'Add docs', content: Buffer.from('docs\n').toString('base64') });
    expect(newFile.status).toBe(201);
    expect(newFile.data.content?.path).toBe('docs/new.md');
    const folder = await octokit.repos.getContent({ owner, repo, path: 'src', ref: 'feature' });
    expect((folder.data as Array<{ name: string; type: string }>).map((entry) => [entry.name, entry.type])).toEqual([['hello.txt', 'file']]);
    const head = newFile.data.commit.sha!;

    // A pull request, a status on its head, then the merge.
    const pull = await octokit.pulls.create({ owner, repo, title: 'Bot changes', head: 'feature', base: 'main', body: 'Please merge' });
    expect(pull.status).toBe(201);
    expect(pull.data).toMatchObject({ state: 'open', title: 'Bot changes', head: { ref: 'feature', sha: head }, base: { ref: 'main' }, merged: false });
    const commits = await octokit.pulls.listCommits({ owner, repo, pull_number: pull.data.number });
    expect(commits.data.map((entry) => entry.commit.message)).toEqual(['Add hello and data', 'Describe the bot', 'Add docs']);
    const files = await octokit.pulls.listFiles({ owner, repo, pull_number: pull.data.number });
    expect(files.data.map((file) => [file.filename, file.status]).sort()).toEqual([['README.md', 'modified'], ['data.bin', 'added'], ['docs/new.md', 'added'], ['src/hello.txt', 'added']]);
    const diff = await octokit.pulls.get({ owner, repo, pull_number: pull.data.number, mediaType: { format: 'diff' } });
    expect(String(diff.data)).toContain('+hello from the api');

    const status = await octokit.repos.createCommitStatus({ owner, repo, sha: head, state: 'success', context: 'ci/test', description: 'all green', target_url: 'https://ci.example.com/1' });
    expect(status.status).toBe(201);
    const combined = await octokit.repos.getCombinedStatusForRef({ owner, repo, ref: 'feature' });
    expect(combined.data).toMatchObject({ state: 'success', sha: head, total_count: 1 });
    expect(combined.data.statuses[0]).toMatchObject({ context: 'ci/test', state: 'success' });
    const statuses = await octokit.repos.listCommitStatusesForRef({ owner, repo, ref: head });
    expect(statuses.data.map((entry) => entry.context)).toEqual(['ci/test']);

    const merged = await octokit.pulls.merge({ owner, repo, pull_number: pull.data.number, merge_method: 'merge', sha: head, commit_title: 'Merge the bot' });
    expect(merged.data).toMatchObject({ merged: true });
    const after = await octokit.pulls.get({ owner, repo, pull_number: pull.data.number });
    expect(after.data).toMatchObject({ state: 'closed', merged: true, merge_commit_sha: merged.data.sha });
    expect((await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha).toBe(merged.data.sha);

    // The commits API sees the merge on main.
    const history = await octokit.repos.listCommits({ owner, repo, sha: 'main', per_page: 2 });
    expect(history.data[0]!.sha).toBe(merged.data.sha);
    expect(history.data[0]!.commit.message).toContain('Merge the bot');
    expect(history.data[0]!.author?.login).toBe(owner);
    expect(history.headers.link).toContain('per_page=2');
    const compare = await octokit.repos.compareCommits({ owner, repo, base: main.data.object.sha, head: 'main' });
    expect(compare.data).toMatchObject({ status: 'ahead', ahead_by: 4, behind_by: 0 });

    // The real git client finds exactly what the API wrote.
    const work = await tempDir('repohost-octokit-clone-');
    try {
      const url = new URL(`${host.url}/${owner}/${repo}.git`);
      url.username = owner;
      url.password = token;
      await git(work.path, ['clone', '-q', url.href, 'clone'], work.path);
      const dir = join(work.path, 'clone');
      expect(await git(dir, ['rev-parse', 'HEAD'], work.path)).toBe(merged.data.sha);
      expect(await readFile(join(dir, 'src/hello.txt'), 'utf8')).toBe('hello from the api\n');
      expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('# bot-target\n\nNow with a bot.\n');
      expect(await readFile(join(dir, 'docs/new.md'), 'utf8')).toBe('docs\n');
      expect(await readFile(join(dir, 'data.bin'))).toEqual(binaryBytes);
      expect(await git(dir, ['log', '--topo-order', '--format=%s|%an|%ae', 'HEAD'], work.path)).toBe(
        [
          'Merge the bot|Alice Liddell|alice@users.noreply.repohost',
          'Add docs|Alice Liddell|alice@users.noreply.repohost',
          'Describe the bot|Alice Liddell|alice@users.noreply.repohost',
          'Add hello and data|Alice Liddell|alice@users.noreply.repohost',
          'Initial commit|Alice Liddell|alice@users.noreply.repohost',
        ].join('\n'),
      );
      expect(await git(dir, ['rev-parse', 'HEAD^2'], work.path)).toBe(head);
    } finally {
      await work.cleanup();
    }
  });

  it('serves issues with pull requests in one numbering, labels on issues, and comments on both', async () => {
    const pulls = await octokit.pulls.list({ owner, repo, state: 'all' });
    const pullNumber = pulls.data[0]!.number;
    await octokit.issues.createLabel({ owner, repo, name: 'bug', color: 'd73a4a', description: 'Something is wrong' });
    await octokit.issues.createLabel({ owner, repo, name: 'later' });
    // A label that does not exist is made (fidelity.test.ts); one no label could be called is refused, and no issue made.
    const unnamable = await octokit.issues.create({ owner, repo, title: 'Labelled wrong', labels: ['n'.repeat(51)] }).catch((error: { status: number }) => error);
    expect((unnamable as { status: number }).status).toBe(422);
    const issue = await octokit.issues.create({ owner, repo, title: 'A bug', body: 'It breaks', labels: ['bug'] });
    expect(issue.status).toBe(201);
    expect(issue.data.number).toBe(pullNumber + 1);
    expect(issue.data.labels.map((label) => (typeof label === 'string' ? label : label.name))).toEqual(['bug']);

    const all = await octokit.issues.listForRepo({ owner, repo, state: 'all' });
    expect(all.data.map((item) => [item.number, item.pull_request !== undefined])).toEqual([
      [issue.data.number, false],
      [pullNumber, true],
    ]);
    const open = await octokit.issues.listForRepo({ owner, repo, state: 'open' });
    expect(open.data.map((item) => item.number)).toEqual([issue.data.number]);
    const asIssue = await octokit.issues.get({ owner, repo, issue_number: pullNumber });
    expect(asIssue.data.pull_request?.url).toBe(`${host.url}/api/v3/repos/${owner}/${repo}/pulls/${pullNumber}`);

    // Labels on the issue: add, set, remove; the repository's labels by name.
    expect((await octokit.issues.addLabels({ owner, repo, issue_number: issue.data.number, labels: ['later'] })).data.map((label) => label.name).sort()).toEqual(['bug', 'later']);
    expect((await octokit.issues.setLabels({ owner, repo, issue_number: issue.data.number, labels: ['later'] })).data.map((label) => label.name)).toEqual(['later']);
    expect((await octokit.issues.removeLabel({ owner, repo, issue_number: issue.data.number, name: 'later' })).data).toEqual([]);
    const renamed = await octokit.issues.updateLabel({ owner, repo, name: 'bug', new_name: 'defect', color: 'ff0000' });
    expect(renamed.data).toMatchObject({ name: 'defect', color: 'ff0000' });
    expect((await octokit.issues.listLabelsForRepo({ owner, repo })).data.map((label) => label.name).sort()).toEqual(['defect', 'later']);
    await octokit.issues.deleteLabel({ owner, repo, name: 'later' });
    expect((await octokit.issues.getLabel({ owner, repo, name: 'defect' })).data.description).toBe('Something is wrong');

    // Comments on the issue and on the pull request's conversation, by number and by comment id.
    const onIssue = await octokit.issues.createComment({ owner, repo, issue_number: issue.data.number, body: 'Confirmed' });
    const onPull = await octokit.issues.createComment({ owner, repo, issue_number: pullNumber, body: 'Shipped' });
    expect(onPull.data.id).not.toBe(onIssue.data.id);
    expect((await octokit.issues.getComment({ owner, repo, comment_id: onPull.data.id })).data.body).toBe('Shipped');
    const edited = await octokit.issues.updateComment({ owner, repo, comment_id: onIssue.data.id, body: 'Confirmed twice' });
    expect(edited.data.body).toBe('Confirmed twice');
    expect((await octokit.issues.listComments({ owner, repo, issue_number: pullNumber })).data.map((comment) => comment.body)).toEqual(['Shipped']);
    await octokit.issues.deleteComment({ owner, repo, comment_id: onPull.data.id });
    expect((await octokit.issues.listComments({ owner, repo, issue_number: pullNumber })).data).toEqual([]);

    // Closing as not planned, then reopening.
    const closed = await octokit.issues.update({ owner, repo, issue_number: issue.data.number, state: 'closed', state_reason: 'not_planned' });
    expect(closed.data).toMatchObject({ state: 'closed', state_reason: 'not_planned' });
    const reopened = await octokit.issues.update({ owner, repo, issue_number: issue.data.number, state: 'open' });
    expect(reopened.data).toMatchObject({ state: 'open', state_reason: 'reopened' });
  });
});
