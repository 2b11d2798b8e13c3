import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git } from '../helpers/git-cli.js';
import { cookie, http, register, startHost, tempDir } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';
import { failure } from '../helpers/octokit.js';

describe('GitHub-compatible users, repositories, refs, tags and webhooks', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let octokit: Octokit;
  let token: string;
  const owner = 'carol';

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    receiver = await HookReceiver.start();
    await host.admin.createUser({ username: owner, email: 'carol@example.com', password: 'password123' });
    token = await host.admin.createToken(owner);
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: token });
    await octokit.repos.createForAuthenticatedUser({ name: 'tools', description: 'Tools', auto_init: true });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('describes users and accepts `token` and `Bearer` authorization alike', async () => {
    expect((await octokit.users.getAuthenticated()).data).toMatchObject({ login: owner, type: 'User', site_admin: false, url: `${host.url}/api/v3/users/${owner}` });
    expect((await octokit.users.getByUsername({ username: owner })).data.login).toBe(owner);
    for (const authorization of [`token ${token}`, `Bearer ${token}`]) {
      expect((await http(`${host.url}/api/v3/user`, { headers: { authorization } })).json.login).toBe(owner);
    }
    expect((await http(`${host.url}/api/v3/users/nobody-here`)).status).toBe(404);
    const rate = await octokit.rateLimit.get();
    expect(rate.data.resources.core.remaining).toBe(Number(rate.headers['x-ratelimit-remaining']));
  });

  it('lists branches and tags, reads refs, annotated tags and the README, pushed with the real git client', async () => {
    const work = await tempDir('repohost-github-tags-');
    try {
      const url = new URL(`${host.url}/${owner}/tools.git`);
      url.username = owner;
      url.password = token;
      await git(work.path, ['clone', '-q', url.href, 'clone'], work.path);
      const dir = join(work.path, 'clone');
      await git(dir, ['tag', '-a', 'v1.0.0', '-m', 'First release'], work.path);
      await git(dir, ['branch', 'release/1.x'], work.path);
      await git(dir, ['push', '-q', 'origin', 'v1.0.0', 'release/1.x'], work.path);
      const head = await git(dir, ['rev-parse', 'HEAD'], work.path);
      const tagObject = await git(dir, ['rev-parse', 'v1.0.0'], work.path);

      const tags = await octokit.repos.listTags({ owner, repo: 'tools' });
      const api = `${host.url}/api/v3/repos/${owner}/tools`;
      expect(tags.data).toEqual([
        { name: 'v1.0.0', commit: { sha: head, url: `${api}/commits/${head}` }, zipball_url: `${api}/zipball/v1.0.0`, tarball_url: `${api}/tarball/v1.0.0`, node_id: Buffer.from('03:Refrefs/tags/v1.0.0').toString('base64') },
      ]);
      const ref = await octokit.git.getRef({ owner, repo: 'tools', ref: 'tags/v1.0.0' });
      expect(ref.data.object).toMatchObject({ type: 'tag', sha: tagObject });
      expect(ref.data.node_id).toBe(Buffer.from('03:Refrefs/tags/v1.0.0').toString('base64'));
      // No ref: every ref (octokit leaves the slash out).
      const every = await octokit.git.listMatchingRefs({ owner, repo: 'tools', ref: '' });
      expect(every.data.map((entry) => entry.ref)).toEqual(['refs/heads/main', 'refs/heads/release/1.x', 'refs/tags/v1.0.0']);
      const made = await octokit.git.createRef({ owner, repo: 'tools', ref: 'refs/heads/made', sha: head });
      expect([made.status, made.headers.location]).toEqual([201, `${api}/git/refs/heads/made`]);
      await octokit.git.deleteRef({ owner, repo: 'tools', ref: 'heads/made' });
      const tag = await octokit.git.getTag({ owner, repo: 'tools', tag_sha: tagObject });
      expect(tag.data).toMatchObject({ tag: 'v1.0.0', message: 'First release\n', object: { type: 'commit', sha: head }, tagger: { name: 'Test', email: 'test@example.com' } });

      const branches = await octokit.repos.listBranches({ owner, repo: 'tools' });
      expect(branches.data.map((branch) => [branch.name, branch.commit.sha, branch.protected])).toEqual([
        ['main', head, false],
        ['release/1.x', head, false],
      ]);
      const branch = await octokit.repos.getBranch({ owner, repo: 'tools', branch: 'release/1.x' });
      expect(branch.data.commit).toMatchObject({ sha: head, commit: { message: 'Initial commit' } });
      const matching = await octokit.git.listMatchingRefs({ owner, repo: 'tools', ref: 'heads/rel' });
      expect(matching.data.map((entry) => entry.ref)).toEqual(['refs/heads/release/1.x']);

      const readme = await octokit.repos.getReadme({ owner, repo: 'tools' });
      expect(Buffer.from(readme.data.content, 'base64').toString('utf8')).toBe('# tools\n\nTools\n');
      expect((await octokit.repos.get({ owner, repo: 'tools' })).data).toMatchObject({ default_branch: 'main', description: 'Tools', private: false });
    } finally {
      await work.cleanup();
    }
  });

  it('manages webhooks with the config object: ping, deliveries, redelivery, edit and delete', async () => {
    const hook = await octokit.repos.createWebhook({ owner, repo: 'tools', config: { url: receiver.url, content_type: 'json' }, events: ['issues'] });
    const [ping] = await receiver.waitForEvent('ping');
    expect(ping!.json.hook_id).toBe(hook.data.id);
    expect((await octokit.repos.listWebhooks({ owner, repo: 'tools' })).data.map((entry) => entry.id)).toEqual([hook.data.id]);

    await octokit.repos.pingWebhook({ owner, repo: 'tools', hook_id: hook.data.id });
    await receiver.waitForEvent('ping', 2);
    // The receiver has the request before the host has recorded its answer: wait for the deliveries to settle.
    await host.idle();
    const deliveries = await octokit.repos.listWebhookDeliveries({ owner, repo: 'tools', hook_id: hook.data.id });
    expect(deliveries.data.length).toBe(2);
    expect(deliveries.data[0]).toMatchObject({ event: 'ping', status_code: 200, redelivery: false });
    const delivery = await octokit.repos.getWebhookDelivery({ owner, repo: 'tools', hook_id: hook.data.id, delivery_id: deliveries.data[0]!.id });
    expect(delivery.data.request.payload).toMatchObject({ hook_id: hook.data.id });
    // GitHub's `url` of a delivery is where it went; the list pages, and `cursor` (GitHub's paging) is refused.
    expect(delivery.data.url).toBe(receiver.url);
    expect((await octokit.repos.listWebhooks({ owner, repo: 'tools', per_page: 1, page: 2 })).data).toEqual([]);
    expect((await failure(octokit.repos.listWebhookDeliveries({ owner, repo: 'tools', hook_id: hook.data.id, cursor: 'v1_1' }))).status).toBe(422);
    const redelivered = await octokit.repos.redeliverWebhookDelivery({ owner, repo: 'tools', hook_id: hook.data.id, delivery_id: deliveries.data[0]!.id });
    expect(redelivered.status).toBe(202);
    const again = await receiver.waitForEvent('ping', 3);
    expect(again[2]!.headers['x-github-delivery']).toBe(deliveries.data[0]!.guid);

    const edited = await octokit.repos.updateWebhook({ owner, repo: 'tools', hook_id: hook.data.id, add_events: ['push'], active: false });
    expect(edited.data).toMatchObject({ active: false, events: ['issues', 'push'] });
    const insecure = await octokit.repos.updateWebhook({ owner, repo: 'tools', hook_id: hook.data.id, config: { url: receiver.url, insecure_ssl: '1' } }).catch((error: { status: number }) => error);
    expect((insecure as { status: number }).status).toBe(422);
    await octokit.repos.deleteWebhook({ owner, repo: 'tools', hook_id: hook.data.id });
    expect((await octokit.repos.listWebhooks({ owner, repo: 'tools' })).data).toEqual([]);
  });

  it('deletes files through contents, shows a commit with its files, closes and reopens a pull request, serves its patch', async () => {
    const repo = 'tools';
    await octokit.git.createRef({ owner, repo, ref: 'refs/heads/cleanup', sha: (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha });
    const readme = (await octokit.repos.getContent({ owner, repo, path: 'README.md', ref: 'cleanup' })).data as { sha: string };
    const removed = await octokit.repos.deleteFile({ owner, repo, path: 'README.md', branch: 'cleanup', message: 'Drop the README', sha: readme.sha });
    expect(removed.data.content).toBeNull();
    const commit = await octokit.repos.getCommit({ owner, repo, ref: removed.data.commit.sha! });
    const site = `${host.url}/${owner}/${repo}`;
    const at = removed.data.commit.sha!;
    expect(commit.data.files).toEqual([
      {
        // A removed file's `sha` is the blob it had; its URLs name the commit, and its page and raw bytes are served.
        sha: readme.sha,
        filename: 'README.md',
        status: 'removed',
        additions: 0,
        deletions: 3,
        changes: 3,
        blob_url: `${site}/src/commit/${at}/README.md`,
        raw_url: `${site}/raw/commit/${at}/README.md`,
        contents_url: `${host.url}/api/v3/repos/${owner}/${repo}/contents/README.md?ref=${at}`,
        patch: expect.stringContaining('-# tools'),
      },
    ]);
    expect(commit.data.stats).toEqual({ additions: 0, deletions: 3, total: 3 });
    expect((await octokit.repos.getContent({ owner, repo, path: '', ref: 'cleanup' })).data).toEqual([]);

    const pull = await octokit.pulls.create({ owner, repo, title: 'Cleanup', head: `${owner}:cleanup`, base: 'main' });
    expect(pull.data.mergeable).toBe(true);
    const closed = await octokit.pulls.update({ owner, repo, pull_number: pull.data.number, state: 'closed', title: 'Cleanup (later)' });
    expect(closed.data).toMatchObject({ state: 'closed', title: 'Cleanup (later)', merged: false });
    expect((await octokit.pulls.list({ owner, repo })).data).toEqual([]);
    const reopened = await octokit.pulls.update({ owner, repo, pull_number: pull.data.number, state: 'open' });
    expect(reopened.data.state).toBe('open');
    const patch = await octokit.pulls.get({ owner, repo, pull_number: pull.data.number, mediaType: { format: 'patch' } });
    expect(String(patch.data)).toContain('Subject: [PATCH] Drop the README');
    expect((await http(`${host.url}/api/v3/repos/${owner}/${repo}/pulls/${pull.data.number + 1}`)).status).toBe(404);
  });

  it('renames and deletes repositories, refusing fields it cannot change', async () => {
    await octokit.repos.createForAuthenticatedUser({ name: 'scratch' });
    const refused = await octokit.repos.update({ owner, repo: 'scratch', has_wiki: false }).catch((error: { status: number; response: { data: any } }) => error);
    expect((refused as { status: number }).status).toBe(422);
    expect((refused as { response: { data: any } }).response.data.errors[0]).toMatchObject({ resource: 'Repository', field: 'has_wiki', code: 'custom' });
    const renamed = await octokit.repos.update({ owner, repo: 'scratch', name: 'scratch-2', private: false });
    expect(renamed.data.full_name).toBe(`${owner}/scratch-2`);
    expect((await octokit.repos.delete({ owner, repo: 'scratch-2' })).status).toBe(204);
    expect((await http(`${host.url}/api/v3/repos/${owner}/scratch-2`, { headers: { authorization: `token ${token}` } })).status).toBe(404);
  });

  it('keeps the request-forgery guard for cookie-authenticated writes from another site', async () => {
    const session = await register(host, 'dave');
    await http(`${host.url}/api/v3/user/repos`, { headers: cookie(session), json: { name: 'mine' } });
    const forged = await http(`${host.url}/api/v3/repos/dave/mine/issues`, { headers: { ...cookie(session), origin: 'http://evil.example' }, json: { title: 'forged' } });
    expect(forged.status).toBe(403);
    expect(forged.json.documentation_url).toBe('https://docs.github.com/rest');
    const script = await http(`${host.url}/api/v3/repos/dave/mine/issues`, { headers: cookie(session), json: { title: 'from a script' } });
    expect(script.status).toBe(201);
    expect(script.json.number).toBe(1);
  });
});

describe('commits the GitHub-compatible API makes', () => {
  it('take their dates from the host clock and name the caller by the no-reply address', async () => {
    const host = await startHost({ now: () => new Date('2021-02-03T04:05:06Z'), noreplyEmailDomain: 'bots.example' });
    try {
      await host.admin.createUser({ username: 'erin', email: 'erin@example.com', password: 'password123', fullName: 'Erin' });
      const octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('erin') });
      await octokit.repos.createForAuthenticatedUser({ name: 'clocked', auto_init: true });
      const written = await octokit.repos.createOrUpdateFileContents({ owner: 'erin', repo: 'clocked', path: 'a.txt', message: 'Add a', content: Buffer.from('a').toString('base64') });
      const identity = { name: 'Erin', email: 'erin@bots.example', date: '2021-02-03T04:05:06Z' };
      expect(written.data.commit).toMatchObject({ author: identity, committer: identity });
      const [latest] = (await octokit.repos.listCommits({ owner: 'erin', repo: 'clocked' })).data;
      expect(latest).toMatchObject({ commit: { author: identity }, author: { login: 'erin' } });
      expect((await octokit.repos.get({ owner: 'erin', repo: 'clocked' })).data.created_at).toBe('2021-02-03T04:05:06Z');
    } finally {
      await host.close();
    }
  });
});
