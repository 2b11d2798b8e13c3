import { createHmac } from 'node:crypto';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verify } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { HookReceiver, type ReceivedHook } from '../helpers/receiver.js';
import { WorkTree } from '../git/fixtures.js';

const run = promisify(execFile);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SECRET = 'It’s a Secret to Everybody';

/** Webhooks (issue 9): hooks, payloads and headers as GitHub sends them, retries, redelivery, timeouts. */
describe('webhooks', () => {
  let host: RepoHost;
  let owner: TestUser;
  let writer: TestUser;
  let receiver: HookReceiver;
  let work: { path: string; cleanup: () => Promise<void> };
  let tree: WorkTree;
  let hookId: number;
  const api = (repo = 'hooked') => `${host.url}/api/v1/repos/owner/${repo}`;
  const remote = (repo = 'hooked') => {
    const url = new URL(`${host.url}/owner/${repo}.git`);
    url.username = owner.username;
    url.password = owner.token;
    return url.toString();
  };
  const push = (...args: string[]) =>
    run('git', ['push', '-q', remote(), ...args], { cwd: tree.dir, env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' } });
  const createHook = (body: Record<string, unknown>, repo = 'hooked', who = owner) => http(`${api(repo)}/hooks`, { headers: bearer(who.token), json: body });
  const deliveries = async (id = hookId) => (await http(`${api()}/hooks/${id}/deliveries?limit=100`, { headers: bearer(owner.token) })).json;
  /** Waits for the next request of an event on the shared receiver, counting from now. */
  const next = async (event: string, match: (hook: ReceivedHook) => boolean = () => true): Promise<ReceivedHook> => {
    const seen = receiver.received.length;
    const [hook] = await receiver.waitFor((candidate) => receiver.received.indexOf(candidate) >= seen && candidate.headers['x-github-event'] === event && match(candidate));
    return hook!;
  };
  /** Starts waiting before `action`, then returns the first matching request that follows it. */
  const during = async (event: string, action: () => Promise<unknown>, match?: (hook: ReceivedHook) => boolean) => {
    const arriving = next(event, match);
    await action();
    return arriving;
  };

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true, webhookRetryDelayMs: 50, webhookTimeoutMs: 700, webhookMaxAttempts: 5 });
    owner = await newUser(host, 'owner');
    writer = await newUser(host, 'writer');
    await newRepo(host, owner, 'hooked');
    await http(`${api()}/collaborators/writer`, { method: 'PUT', headers: bearer(owner.token), json: { permission: 'write' } });
    receiver = await HookReceiver.start();
    work = await tempDir('repohost-hooks-');
    tree = await WorkTree.init(join(work.path, 'work'));
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
    await work?.cleanup();
  });

  it('creates a hook (201, secret never shown) and pings it first, signed as GitHub and Gitea sign', async () => {
    const ping = next('ping');
    const created = await createHook({ url: receiver.url, secret: SECRET, events: ['*'] });
    expect(created.status).toBe(201);
    hookId = created.json.id;
    expect(created.json).toMatchObject({ url: receiver.url, content_type: 'json', events: ['*'], active: true, has_secret: true, config: { url: receiver.url, content_type: 'json' } });
    expect(JSON.stringify(created.json)).not.toContain(SECRET);
    const hook = await ping;
    expect(hook.headers['x-github-event']).toBe('ping');
    expect(hook.headers['x-gitea-event']).toBe('ping');
    expect(hook.headers['x-github-delivery']).toMatch(UUID);
    expect(hook.headers['x-gitea-delivery']).toBe(hook.headers['x-github-delivery']);
    expect(hook.headers['x-github-hook-id']).toBe(String(hookId));
    expect(hook.headers['user-agent']).toMatch(/^GitHub-Hookshot\/repohost-\d+\.\d+\.\d+/);
    expect(hook.headers['content-type']).toBe('application/json');
    const signature = String(hook.headers['x-hub-signature-256']);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await verify(SECRET, hook.body.toString('utf8'), signature)).toBe(true);
    expect(await verify('another secret', hook.body.toString('utf8'), signature)).toBe(false);
    expect(hook.headers['x-gitea-signature']).toBe(signature.slice('sha256='.length));
    // GitHub's SHA-1 signature beside it, of the same bytes.
    expect(hook.headers['x-hub-signature']).toBe(`sha1=${createHmac('sha1', SECRET).update(hook.body).digest('hex')}`);
    expect(hook.json).toMatchObject({ hook_id: hookId, hook: { id: hookId, type: 'Repository', events: ['*'], config: { url: receiver.url } }, repository: { full_name: 'owner/hooked' }, sender: { login: 'owner' } });
    expect(typeof hook.json.zen).toBe('string');
  });

  it('manages hooks with admin only, and refuses bad input with clear messages', async () => {
    expectError(await createHook({ url: receiver.url }, 'hooked', writer), 403);
    expectError(await http(`${api()}/hooks`, { headers: bearer(writer.token) }), 403);
    expectError(await http(`${api()}/hooks`), 401);
    expectError(await createHook({ url: 'ftp://example.com/x' }), 400, 'url must be an http or https URL');
    expectError(await createHook({}), 400, 'url is required');
    expectError(await createHook({ url: 'http://user:pw@example.com/' }), 400, 'credentials');
    expectError(await createHook({ url: receiver.url, events: ['push', 'explode'] }), 400, 'explode');
    expectError(await createHook({ url: receiver.url, content_type: 'xml' }), 400, "content_type must be 'json' or 'form'");
    expectError(await createHook({ url: receiver.url, active: 'perhaps' }), 400, 'active must be true or false');
    const list = await http(`${api()}/hooks`, { headers: bearer(owner.token) });
    expect(list.json.map((hook: { id: number }) => hook.id)).toEqual([hookId]);
    const single = await http(`${api()}/hooks/${hookId}`, { headers: bearer(owner.token) });
    expect(single.json.id).toBe(hookId);
    expectError(await http(`${api()}/hooks/999999`, { headers: bearer(owner.token) }), 404, 'Hook not found');
    // A private repository's hooks do not exist for others.
    await newRepo(host, owner, 'secret-repo', 'private');
    expectError(await http(`${api('secret-repo')}/hooks`, { headers: bearer(writer.token) }), 404);
    // Twenty hooks at most.
    for (let index = 0; index < 20; index += 1) expect((await createHook({ url: receiver.url, active: false }, 'secret-repo')).status).toBe(201);
    expectError(await createHook({ url: receiver.url, active: false }, 'secret-repo'), 400, 'at most 20 webhooks');
    // Paged like every list.
    const paged = await http(`${api('secret-repo')}/hooks?limit=15&page=2`, { headers: bearer(owner.token) });
    expect(paged.json).toHaveLength(5);
    expect(paged.headers['x-total-count']).toBe('20');
    expect(String(paged.headers.link)).toContain('rel="prev"');
  });

  it('sends push events for a branch created, fast-forwarded, forced and deleted, and for a tag', async () => {
    const first = await tree.commit('first commit', { 'README.md': 'hello\n', 'old.txt': 'old\n' });
    const createEvent = next('create', (hook) => hook.json.ref === 'main');
    const created = await during('push', () => push('main'), (hook) => hook.json.ref === 'refs/heads/main');
    expect(created.json).toMatchObject({
      ref: 'refs/heads/main',
      before: '0'.repeat(40),
      after: first,
      created: true,
      deleted: false,
      forced: false,
      base_ref: null,
      repository: { name: 'hooked', full_name: 'owner/hooked', private: false, owner: { login: 'owner' }, default_branch: 'main' },
      pusher: { name: 'owner', email: 'owner@users.noreply.repohost' },
      sender: { login: 'owner', type: 'User' },
    });
    expect(created.json.commits).toHaveLength(1);
    expect(created.json.commits[0]).toMatchObject({ id: first, message: 'first commit', author: { name: 'Test', email: 'test@example.com' }, added: ['README.md', 'old.txt'], removed: [], modified: [] });
    expect(created.json.head_commit.id).toBe(first);
    expect((await createEvent).json).toMatchObject({ ref: 'main', ref_type: 'branch', master_branch: 'main', pusher_type: 'user' });
    expect(await verify(SECRET, created.body.toString('utf8'), String(created.headers['x-hub-signature-256']))).toBe(true);

    const second = await tree.commit('second commit', { 'README.md': 'hello again\n', 'old.txt': null, 'new.txt': 'new\n' });
    const third = await tree.commit('third commit', { 'new.txt': 'newer\n' });
    const forward = await during('push', () => push('main'), (hook) => hook.json.after === third);
    expect(forward.json).toMatchObject({ ref: 'refs/heads/main', before: first, after: third, created: false, deleted: false, forced: false });
    expect(forward.json.commits.map((commit: { id: string }) => commit.id)).toEqual([second, third]);
    expect(forward.json.commits[0]).toMatchObject({ added: ['new.txt'], removed: ['old.txt'], modified: ['README.md'] });
    expect(forward.json.head_commit).toMatchObject({ id: third, message: 'third commit' });
    expect(forward.json.commits.map((commit: { distinct: boolean }) => commit.distinct)).toEqual([true, true]);

    // Commits pushed before (to another branch) are listed again when main reaches them, but not as distinct.
    await tree.git(['checkout', '-q', '-b', 'side']);
    const onTopic = await tree.commit('on side', { 'side.txt': 'side\n' });
    await during('push', () => push('side'), (hook) => hook.json.after === onTopic);
    await tree.git(['checkout', '-q', 'main']);
    await tree.git(['merge', '-q', '--ff-only', 'side']);
    await tree.git(['branch', '-q', '-D', 'side']);
    const onMain = await tree.commit('on main', { 'main.txt': 'main\n' });
    const reached = await during('push', () => push('main'), (hook) => hook.json.ref === 'refs/heads/main' && hook.json.after === onMain);
    expect(reached.json.commits.map((commit: { id: string; distinct: boolean }) => [commit.id, commit.distinct])).toEqual([
      [onTopic, false],
      [onMain, true],
    ]);
    await tree.git(['reset', '-q', '--hard', third]);
    await push('--force', 'main');

    await tree.git(['reset', '-q', '--hard', first]);
    const rewritten = await tree.commit('rewritten', { 'README.md': 'rewritten\n' });
    const forced = await during('push', () => push('--force', 'main'), (hook) => hook.json.after === rewritten);
    expect(forced.json).toMatchObject({ before: third, after: rewritten, forced: true, created: false });
    expect(forced.json.commits.map((commit: { id: string }) => commit.id)).toEqual([rewritten]);

    await push('main:refs/heads/doomed');
    const deleteEvent = next('delete');
    const deleted = await during('push', () => push(':refs/heads/doomed'), (hook) => hook.json.ref === 'refs/heads/doomed' && hook.json.deleted);
    expect(deleted.json).toMatchObject({ ref: 'refs/heads/doomed', before: rewritten, after: '0'.repeat(40), deleted: true, created: false, commits: [], head_commit: null });
    expect(deleted.json.compare).toMatch(new RegExp(`/compare/${rewritten.slice(0, 12)}\\.\\.\\.0{12}$`));
    expect((await deleteEvent).json).toMatchObject({ ref: 'doomed', ref_type: 'branch' });

    await tree.git(['tag', '-a', 'v1.0', '-m', 'release 1.0']);
    const tagCreate = next('create', (hook) => hook.json.ref === 'v1.0');
    const tag = await during('push', () => push('v1.0'), (hook) => hook.json.ref === 'refs/tags/v1.0');
    expect(tag.json).toMatchObject({ ref: 'refs/tags/v1.0', created: true, commits: [], head_commit: { id: rewritten } });
    expect((await tagCreate).json).toMatchObject({ ref: 'v1.0', ref_type: 'tag' });
  });

  it('sends issues, issue_comment, pull_request and status events with the objects GitHub sends', async () => {
    const opened = await during('issues', () => http(`${api()}/issues`, { headers: bearer(writer.token), json: { title: 'Broken', body: 'It broke' } }));
    expect(opened.json).toMatchObject({ action: 'opened', issue: { number: expect.any(Number), title: 'Broken', body: 'It broke', state: 'open', user: { login: 'writer' } }, sender: { login: 'writer' } });
    const issueId = opened.json.issue.id;
    const commented = await during('issue_comment', () => http(`${api()}/issues/${issueId}/comments`, { headers: bearer(owner.token), json: { body: 'Looking' } }));
    expect(commented.json).toMatchObject({ action: 'created', issue: { id: issueId, comments: 1 }, comment: { body: 'Looking', user: { login: 'owner' } }, sender: { login: 'owner' } });
    const closed = await during('issues', () => http(`${api()}/issues/${issueId}`, { method: 'PATCH', headers: bearer(owner.token), json: { status: 'closed' } }));
    expect(closed.json).toMatchObject({ action: 'closed', issue: { id: issueId, state: 'closed' }, sender: { login: 'owner' } });

    await tree.git(['checkout', '-q', '-b', 'topic']);
    const topic = await tree.commit('topic work', { 'topic.txt': 'topic\n' });
    await push('topic');
    const pullOpened = await during('pull_request', () => http(`${api()}/pulls`, { headers: bearer(writer.token), json: { title: 'Add topic', description: 'Please', head: 'topic', base: 'main' } }));
    expect(pullOpened.json).toMatchObject({
      action: 'opened',
      pull_request: { title: 'Add topic', body: 'Please', state: 'open', merged: false, head: { ref: 'topic', sha: topic }, base: { ref: 'main' }, user: { login: 'writer' } },
      sender: { login: 'writer' },
    });
    expect(pullOpened.json.number).toBe(pullOpened.json.pull_request.number);
    const pullId = pullOpened.json.pull_request.id;

    const status = await during('status', () => http(`${api()}/statuses/${topic}`, { headers: bearer(writer.token), json: { state: 'success', context: 'ci/build', description: 'green', target_url: 'https://ci.example.com/1' } }));
    expect(status.json).toMatchObject({ sha: topic, state: 'success', context: 'ci/build', description: 'green', target_url: 'https://ci.example.com/1', name: 'owner/hooked', branches: [{ name: 'topic', commit: { sha: topic } }], sender: { login: 'writer' } });
    // The commit as GitHub's status event carries it (issue 20).
    expect(status.json.branches).toEqual([{ name: 'topic', commit: { sha: topic, url: `${host.url}/api/v3/repos/owner/hooked/commits/${topic}` }, protected: false }]);
    expect(status.json.commit).toMatchObject({ sha: topic, url: `${host.url}/api/v3/repos/owner/hooked/commits/${topic}`, commit: { tree: { sha: expect.stringMatching(/^[0-9a-f]{40}$/) } } });

    const pullComment = await during('issue_comment', () => http(`${api()}/pulls/${pullId}/comments`, { headers: bearer(owner.token), json: { text: 'Nice' } }));
    expect(pullComment.json).toMatchObject({ action: 'created', issue: { number: pullOpened.json.number, pull_request: { merged_at: null } }, comment: { body: 'Nice' } });

    const pushAfterMerge = next('push', (hook) => hook.json.ref === 'refs/heads/main');
    const merged = await during('pull_request', () => http(`${api()}/pulls/${pullId}/merge`, { headers: bearer(owner.token), json: { method: 'merge' } }));
    expect(merged.json).toMatchObject({ action: 'closed', pull_request: { state: 'closed', merged: true, merged_by: { login: 'owner' } }, sender: { login: 'owner' } });
    expect(merged.json.pull_request.merge_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    const basePush = await pushAfterMerge;
    expect(basePush.json.after).toBe(merged.json.pull_request.merge_commit_sha);
    expect(basePush.json.commits.map((commit: { id: string }) => commit.id)).toEqual([topic, merged.json.pull_request.merge_commit_sha]);

    await tree.git(['checkout', '-q', '-b', 'second-topic']);
    await tree.commit('more work', { 'more.txt': 'more\n' });
    await push('second-topic');
    const another = await during('pull_request', () => http(`${api()}/pulls`, { headers: bearer(writer.token), json: { title: 'More', head: 'second-topic', base: 'main' } }));
    const moved = await tree.commit('even more', { 'more.txt': 'even more\n' });
    const synchronized = await during('pull_request', () => push('second-topic'), (hook) => hook.json.action === 'synchronize');
    expect(synchronized.json).toMatchObject({ action: 'synchronize', after: moved, pull_request: { head: { sha: moved } } });
    const closedUnmerged = await during('pull_request', () => http(`${api()}/pulls/${another.json.pull_request.id}`, { method: 'PATCH', headers: bearer(writer.token), json: { status: 'closed' } }));
    expect(closedUnmerged.json).toMatchObject({ action: 'closed', pull_request: { state: 'closed', merged: false } });
  });

  it('reports the spec CI callback as a status event on the commit', async () => {
    const sha = await tree.git(['rev-parse', 'HEAD']);
    const repoId = (await http(`${api()}`, { headers: bearer(owner.token) })).json.id;
    const status = await during('status', () =>
      http(`${host.url}/api/v1/ci/status`, { headers: bearer(owner.token), json: { repo_id: String(repoId), run_id: '77', commit_hash: sha, branch: 'second-topic', status: 'running' } }),
    );
    expect(status.json).toMatchObject({ sha, state: 'pending', context: 'ci/77' });
  });

  it('retries a receiver that fails twice, then records the success with every attempt counted', async () => {
    const flaky = await HookReceiver.start();
    try {
      flaky.answerWith((index) => (index < 2 ? 500 : 200));
      const hook = (await createHook({ url: flaky.url, events: ['issues'] })).json;
      await flaky.waitForEvent('ping', 3);
      // The third answer reaches the receiver before the sender records it.
      await expect.poll(async () => ((await deliveries(hook.id)) as Array<{ state: string }>)[0]?.state, { timeout: 5000 }).toBe('delivered');
      const [ping] = (await deliveries(hook.id)) as Array<Record<string, any>>;
      expect(ping).toMatchObject({ event: 'ping', state: 'delivered', attempts: 3, status_code: 200, status: 'OK', error: null, redelivery: false });
      expect(ping!.response).toMatchObject({ headers: { 'x-receiver': 'test' }, payload: 'answer 200' });
      expect(ping!.request.headers['X-GitHub-Event']).toBe('ping');
      expect(ping!.request.payload.hook_id).toBe(hook.id);
      expect(ping!.duration).toBeGreaterThanOrEqual(0);
      // All three requests carried the same delivery id.
      expect(new Set(flaky.received.map((request) => request.headers['x-github-delivery'])).size).toBe(1);
    } finally {
      await flaky.close();
    }
  });

  it('redelivers a delivery as a new one with the same guid and payload', async () => {
    const [latest] = (await deliveries()) as Array<Record<string, any>>;
    const again = next(latest!.event, (hook) => hook.headers['x-github-delivery'] === latest!.guid);
    const redelivered = await http(`${api()}/hooks/${hookId}/deliveries/${latest!.id}/redeliver`, { method: 'POST', headers: bearer(owner.token) });
    expect(redelivered.status).toBe(202);
    expect(redelivered.json).toMatchObject({ guid: latest!.guid, event: latest!.event, redelivery: true });
    expect(redelivered.json.id).not.toBe(latest!.id);
    const request = await again;
    expect(request.json).toEqual(latest!.request.payload);
    expectError(await http(`${api()}/hooks/${hookId}/deliveries/999999/redeliver`, { method: 'POST', headers: bearer(owner.token) }), 404, 'Delivery not found');
  });

  it('sends form-encoded payloads signed over the exact body', async () => {
    const formReceiver = await HookReceiver.start();
    try {
      await createHook({ url: formReceiver.url, content_type: 'form', secret: 'form-secret', events: ['issues'] });
      await http(`${api()}/issues`, { headers: bearer(owner.token), json: { title: 'Form please' } });
      const [request] = await formReceiver.waitForEvent('issues');
      expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const payload = JSON.parse(new URLSearchParams(request!.body.toString('utf8')).get('payload')!);
      expect(payload).toMatchObject({ action: 'opened', issue: { title: 'Form please' } });
      expect(await verify('form-secret', request!.body.toString('utf8'), String(request!.headers['x-hub-signature-256']))).toBe(true);
    } finally {
      await formReceiver.close();
    }
  });

  it('records a timeout for a receiver that never answers, while other hooks keep receiving', async () => {
    const silent = await HookReceiver.start();
    try {
      silent.answerWith(() => 'hang');
      const hook = (await createHook({ url: silent.url, events: ['issues'] })).json;
      const started = performance.now();
      const arrived = next('issues', (request) => request.json.issue.title === 'While one hangs');
      await http(`${api()}/issues`, { headers: bearer(owner.token), json: { title: 'While one hangs' } });
      await arrived;
      // The healthy hook got its delivery long before the silent one timed out.
      expect(performance.now() - started).toBeLessThan(600);
      await expect.poll(async () => ((await deliveries(hook.id)) as Array<{ error: string | null }>).at(-1)?.error, { timeout: 5000 }).toContain('timed out after 700 ms');
      const ping = ((await deliveries(hook.id)) as Array<Record<string, any>>).at(-1)!;
      expect(ping).toMatchObject({ event: 'ping', status_code: null });
    } finally {
      await silent.close();
    }
  });

  it('stops sending to a hook that was deactivated, and lists deliveries newest first with paging', async () => {
    const list = await http(`${api()}/hooks/${hookId}/deliveries?limit=2`, { headers: bearer(owner.token) });
    expect(list.json).toHaveLength(2);
    expect(Number(list.headers['x-total-count'])).toBeGreaterThan(10);
    expect(list.json[0].id).toBeGreaterThan(list.json[1].id);
    const patched = await http(`${api()}/hooks/${hookId}`, { method: 'PATCH', headers: bearer(owner.token), json: { active: false } });
    expect(patched.json.active).toBe(false);
    const before = receiver.received.length;
    await http(`${api()}/issues`, { headers: bearer(owner.token), json: { title: 'Nobody hears' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.length).toBe(before);
    await http(`${api()}/hooks/${hookId}`, { method: 'PATCH', headers: bearer(owner.token), json: { active: true } });
  });

  it('keeps deliveries of one hook in the order of their events', async () => {
    const titles = Array.from({ length: 8 }, (_, index) => `ordered ${index}`);
    const arrived = receiver.waitFor((request) => request.headers['x-github-event'] === 'issues' && String(request.json.issue.title).startsWith('ordered '), titles.length);
    await Promise.all(titles.map((title) => http(`${api()}/issues`, { headers: bearer(owner.token), json: { title } })));
    const numbers = (await arrived).map((request) => request.json.issue.number as number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  });

  it('deletes a hook (204) and its deliveries with it', async () => {
    const hook = (await createHook({ url: receiver.url, events: ['star'] })).json;
    expect((await http(`${api()}/hooks/${hook.id}`, { method: 'DELETE', headers: bearer(owner.token) })).status).toBe(204);
    expectError(await http(`${api()}/hooks/${hook.id}/deliveries`, { headers: bearer(owner.token) }), 404);
  });
});
