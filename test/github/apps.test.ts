import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { Webhooks } from '@octokit/webhooks';
import { generateKeyPairSync, createSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure, installationOctokit } from '../helpers/octokit.js';
import { HookReceiver } from '../helpers/receiver.js';
import { git } from '../helpers/git-cli.js';
import { tempDir } from '../helpers/host.js';

// Issue 20: GitHub Apps. An app signs JSON web tokens with its private key, trades them for installation tokens, and
// acts with those as its bot on the repositories it is installed on; its webhook hears of their events with
// `installation` in the payload.
describe('GitHub Apps', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let app: { id: number; slug: string; privateKey: string; installations: Record<string, number> };
  let alice: Octokit;
  let installationId: number;
  const api = () => `${host.url}/api/v3`;
  /** Octokit speaking as the app (JWT), or as one of its installations (installation token). */
  const asApp = () => new Octokit({ baseUrl: api(), authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey } });
  const asInstallation = (installation: number) =>
    new Octokit({ baseUrl: api(), authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey, installationId: installation } });

  beforeAll(async () => {
    receiver = await HookReceiver.start();
    host = await startHost({ allowLocalNetwork: true });
    const loaded = await host.admin.load({
      users: [
        { username: 'alice', email: 'alice@example.com', password: 'password123' },
        { username: 'bob', email: 'bob@example.com', password: 'password123', tokens: [{ name: 'fixed', token: 'ghs_personalTokenOfBob0123456789abcd' }] },
      ],
      repositories: [
        { owner: 'alice', name: 'tool', private: true, branches: { main: { commits: [{ message: 'first', files: { 'README.md': 'hello\n' } }] } } },
        { owner: 'alice', name: 'other', private: true },
        { owner: 'bob', name: 'secret', private: true },
        { owner: 'bob', name: 'open', branches: { main: { commits: [{ message: 'open', files: { 'a.txt': 'a\n' } }] } } },
      ],
      apps: [
        {
          owner: 'alice',
          name: 'Triage Bot',
          webhookUrl: `${receiver.url}/app`,
          webhookSecret: 'app-secret',
          permissions: { issues: 'write', contents: 'write', checks: 'write' },
          events: ['issues', 'issue_comment', 'check_run', 'check_suite'],
          installations: [{ account: 'alice', repositories: ['tool'] }],
        },
      ],
    });
    app = loaded.apps[0]!;
    installationId = app.installations.alice!;
    alice = new Octokit({ baseUrl: api(), auth: await host.admin.createToken('alice', 'test') });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('answers GET /app and the installations to the app, signed with its JSON web token', async () => {
    expect(app.slug).toBe('triage-bot');
    expect(app.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const self = await asApp().apps.getAuthenticated();
    expect(self.data).toMatchObject({ id: app.id, slug: 'triage-bot', name: 'Triage Bot', owner: { login: 'alice' }, installations_count: 1 });
    expect(self.data!.permissions).toEqual({ metadata: 'read', issues: 'write', contents: 'write', checks: 'write' });
    const installations = await asApp().apps.listInstallations();
    expect(installations.data).toHaveLength(1);
    expect(installations.data[0]).toMatchObject({ id: installationId, account: { login: 'alice' }, repository_selection: 'selected', app_id: app.id, target_type: 'User' });
    const forRepo = await asApp().apps.getRepoInstallation({ owner: 'alice', repo: 'tool' });
    expect(forRepo.data.id).toBe(installationId);
    expect((await failure(asApp().apps.getRepoInstallation({ owner: 'alice', repo: 'other' }))).status).toBe(404);
    expect((await failure(asApp().apps.getRepoInstallation({ owner: 'bob', repo: 'secret' }))).status).toBe(404);
    expect((await asApp().apps.getUserInstallation({ username: 'alice' })).data.id).toBe(installationId);
    expect((await new Octokit({ baseUrl: api() }).apps.getBySlug({ app_slug: 'triage-bot' })).data).toMatchObject({ id: app.id, slug: 'triage-bot' });
  });

  it('refuses tokens that are not the app\'s: another key, expired, too long-lived, or none', async () => {
    const jwt = (key: string, claims: Record<string, unknown>) => {
      const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const body = `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}`;
      return `${body}.${createSign('RSA-SHA256').update(body).sign(key, 'base64url')}`;
    };
    const now = Math.floor(Date.now() / 1000);
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    const ask = async (token: string) => await fetch(`${api()}/app`, { headers: { authorization: `Bearer ${token}` } });
    expect((await ask(jwt(app.privateKey, { iss: app.id, iat: now - 30, exp: now + 500 }))).status).toBe(200);
    expect((await ask(jwt(app.privateKey, { iss: String(app.id), iat: now - 30, exp: now + 500 }))).status).toBe(200);
    const wrongKey = await ask(jwt(other, { iss: app.id, iat: now - 30, exp: now + 500 }));
    expect(wrongKey.status).toBe(401);
    expect(await wrongKey.json()).toMatchObject({ message: 'A JSON web token could not be decoded' });
    const expired = await ask(jwt(app.privateKey, { iss: app.id, iat: now - 1200, exp: now - 600 }));
    expect(expired.status).toBe(401);
    expect((await expired.json()).message).toMatch(/'Expiration time' claim \('exp'\) must be a numeric value/);
    const tooLong = await ask(jwt(app.privateKey, { iss: app.id, iat: now, exp: now + 3600 }));
    expect((await tooLong.json()).message).toBe("'Expiration time' claim ('exp') is too far in the future");
    expect((await ask(jwt(app.privateKey, { iss: app.id + 99, iat: now, exp: now + 300 }))).status).toBe(401);
    expect((await fetch(`${api()}/app`)).status).toBe(401);
    // A personal token is no app's.
    expect((await failure(alice.apps.getAuthenticated())).status).toBe(401);
  });

  it('gives installation tokens that act as the bot on the installed repositories only', async () => {
    const bot = asInstallation(installationId);
    const issue = await bot.issues.create({ owner: 'alice', repo: 'tool', title: 'Filed by the app' });
    expect(issue.data.user).toMatchObject({ login: 'triage-bot[bot]', type: 'Bot' });
    const repos = await bot.apps.listReposAccessibleToInstallation();
    expect(repos.data.total_count).toBe(1);
    expect(repos.data.repositories.map((repo) => repo.full_name)).toEqual(['alice/tool']);
    expect(repos.data.repositories[0]!.permissions).toMatchObject({ push: true, admin: false });
    // Not installed there: private repositories stay invisible, as to anyone.
    expect((await failure(bot.issues.create({ owner: 'alice', repo: 'other', title: 'x' }))).status).toBe(404);
    expect((await failure(bot.repos.get({ owner: 'bob', repo: 'secret' }))).status).toBe(404);
    // A change needs the write permission of its kind: this installation has no `statuses` nor `administration`.
    const sha = (await bot.repos.getBranch({ owner: 'alice', repo: 'tool', branch: 'main' })).data.commit.sha;
    const status = await failure(bot.repos.createCommitStatus({ owner: 'alice', repo: 'tool', sha, state: 'success' }));
    expect(status).toMatchObject({ status: 403, data: { message: 'Resource not accessible by integration' } });
    expect((await failure(bot.repos.update({ owner: 'alice', repo: 'tool', description: 'mine now' }))).status).toBe(403);
    // What belongs to an account is not the app's.
    const profile = await failure(bot.users.getAuthenticated());
    expect(profile).toMatchObject({ status: 403, data: { message: 'Resource not accessible by integration' } });
  });

  it('narrows a token to fewer permissions or repositories, never more than the installation has', async () => {
    const jwtOctokit = asApp();
    const readOnly = await jwtOctokit.apps.createInstallationAccessToken({ installation_id: installationId, permissions: { issues: 'read' } });
    expect(readOnly.status).toBe(201);
    expect(readOnly.data.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(readOnly.data.permissions).toEqual({ metadata: 'read', issues: 'read' });
    expect(Date.parse(readOnly.data.expires_at) - Date.now()).toBeGreaterThan(3_500_000);
    await alice.issues.create({ owner: 'alice', repo: 'tool', title: 'For the reader' });
    const reader = new Octokit({ baseUrl: api(), auth: readOnly.data.token });
    expect((await reader.issues.listForRepo({ owner: 'alice', repo: 'tool' })).data.length).toBeGreaterThan(0);
    expect((await failure(reader.issues.create({ owner: 'alice', repo: 'tool', title: 'no' }))).status).toBe(403);

    const more = await failure(jwtOctokit.apps.createInstallationAccessToken({ installation_id: installationId, permissions: { administration: 'write' } }));
    expect(more.status).toBe(422);
    const elsewhere = await failure(jwtOctokit.apps.createInstallationAccessToken({ installation_id: installationId, repositories: ['other'] }));
    expect(elsewhere.status).toBe(422);
    const narrowed = await jwtOctokit.apps.createInstallationAccessToken({ installation_id: installationId, repositories: ['tool'] });
    expect(narrowed.data.repositories?.map((repo) => repo.full_name)).toEqual(['alice/tool']);
    expect((await failure(jwtOctokit.apps.createInstallationAccessToken({ installation_id: 987654 }))).status).toBe(404);

    // A revoked token is refused from then on, as GitHub refuses it: 401, not an anonymous caller.
    await reader.apps.revokeInstallationAccessToken();
    expect(await failure(reader.issues.listForRepo({ owner: 'alice', repo: 'tool' }))).toMatchObject({ status: 401, data: { message: 'Bad credentials' } });
  });

  it('lets the bot clone and push over HTTP with x-access-token', async () => {
    const { data } = await asApp().apps.createInstallationAccessToken({ installation_id: installationId });
    const remote = (repo: string) => {
      const url = new URL(`${host.url}/alice/${repo}.git`.replace('/alice/', repo === 'secret' ? '/bob/' : '/alice/'));
      url.username = 'x-access-token';
      url.password = data.token;
      return url.toString();
    };
    const work = await tempDir('repohost-app-clone-');
    try {
      await git(work.path, ['clone', '-q', remote('tool'), 'tool'], work.path);
      const dir = `${work.path}/tool`;
      await git(dir, ['checkout', '-q', '-b', 'bot-change'], work.path);
      await git(dir, ['commit', '-q', '--allow-empty', '-m', 'from the app'], work.path);
      await git(dir, ['push', '-q', 'origin', 'bot-change'], work.path);
      const branch = await alice.repos.getBranch({ owner: 'alice', repo: 'tool', branch: 'bot-change' });
      expect(branch.data.commit.commit.message.trim()).toBe('from the app');
      await expect(git(work.path, ['clone', '-q', remote('secret'), 'secret'], work.path)).rejects.toThrow(/not found|403|401/i);
    } finally {
      await work.cleanup();
    }
  });

  it('delivers the events of installed repositories to the app with its installation, signed with its secret', async () => {
    const seen = receiver.received.length;
    await alice.issues.create({ owner: 'alice', repo: 'other', title: 'not installed here' });
    const opened = await alice.issues.create({ owner: 'alice', repo: 'tool', title: 'Hello app' });
    const [delivery] = await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.json?.issue?.number === opened.data.number);
    expect(delivery!.headers['x-github-event']).toBe('issues');
    expect(delivery!.json).toMatchObject({ action: 'opened', installation: { id: installationId }, repository: { full_name: 'alice/tool' } });
    expect(typeof delivery!.json.installation.node_id).toBe('string');
    const webhooks = new Webhooks({ secret: 'app-secret' });
    expect(await webhooks.verify(delivery!.body.toString('utf8'), String(delivery!.headers['x-hub-signature-256']))).toBe(true);
    expect(receiver.received.slice(seen).some((hook) => hook.json?.repository?.full_name === 'alice/other')).toBe(false);
    // The app's hook rows are not the repository's hooks.
    expect((await alice.repos.listWebhooks({ owner: 'alice', repo: 'tool' })).data).toEqual([]);
  });

  it('never lets a token narrowed to a deleted repository reach the next one made (whose id is never the same)', async () => {
    const made = await host.admin.createApp({ owner: 'alice', name: 'Narrow Bot', permissions: { contents: 'read' } });
    const doomed = (await alice.repos.createForAuthenticatedUser({ name: 'doomed' })).data;
    const { id } = await host.admin.installApp('narrow-bot', 'alice');
    const jwt = new Octokit({ baseUrl: api(), authStrategy: createAppAuth, auth: { appId: made.id, privateKey: made.privateKey } });
    const bot = new Octokit({ baseUrl: api(), auth: (await jwt.apps.createInstallationAccessToken({ installation_id: id, repositories: ['doomed'] })).data.token });
    expect((await bot.repos.get({ owner: 'alice', repo: 'doomed' })).status).toBe(200);
    await alice.repos.delete({ owner: 'alice', repo: 'doomed' });
    const successor = (await alice.repos.createForAuthenticatedUser({ name: 'successor', private: true })).data;
    // Ids are never given twice on either engine (SQLite's row ids came back for the highest one deleted; issue 38).
    expect(successor.id).toBeGreaterThan(doomed.id);
    expect((await failure(bot.repos.get({ owner: 'alice', repo: 'successor' }))).status).toBe(404);
    expect((await bot.apps.listReposAccessibleToInstallation()).data.repositories).toEqual([]);
  });

  it('ends every token of an installation when it is deleted, and a new installation gets an id never given before (issue 38)', async () => {
    const made = await host.admin.createApp({ owner: 'alice', name: 'Short Lived', permissions: { metadata: 'read' } });
    const { id } = await host.admin.installApp('short-lived', 'alice');
    const jwt = new Octokit({ baseUrl: api(), authStrategy: createAppAuth, auth: { appId: made.id, privateKey: made.privateKey } });
    const token = (await jwt.apps.createInstallationAccessToken({ installation_id: id })).data.token;
    const bot = new Octokit({ baseUrl: api(), auth: token });
    expect((await bot.apps.listReposAccessibleToInstallation()).status).toBe(200);
    expect((await jwt.apps.deleteInstallation({ installation_id: id })).status).toBe(204);
    expect((await failure(bot.apps.listReposAccessibleToInstallation())).status).toBe(401);
    const again = await host.admin.installApp('short-lived', 'alice');
    expect(again.id).not.toBe(id);
    expect((await failure(bot.apps.listReposAccessibleToInstallation())).status).toBe(401);
  });

  it('covers repositories made later when installed on all of an account\'s repositories', async () => {
    const made = await host.admin.createApp({ owner: 'bob', name: 'All Seeing', webhookUrl: `${receiver.url}/all`, events: ['issues'], permissions: { issues: 'write' } });
    expect(made.bot).toBe('all-seeing[bot]');
    const { id } = await host.admin.installApp('all-seeing', 'bob');
    const bob = new Octokit({ baseUrl: api(), auth: await host.admin.createToken('bob', 'test') });
    await bob.repos.createForAuthenticatedUser({ name: 'later', private: true });
    const seen = receiver.received.length;
    await bob.issues.create({ owner: 'bob', repo: 'later', title: 'in a new repository' });
    const [delivery] = await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.json?.repository?.full_name === 'bob/later');
    expect(delivery!.json.installation.id).toBe(id);
    const octokit = new Octokit({ baseUrl: api(), authStrategy: createAppAuth, auth: { appId: made.id, privateKey: made.privateKey, installationId: id } });
    expect((await octokit.apps.listReposAccessibleToInstallation()).data.repositories.map((repo) => repo.name).sort()).toEqual(['later', 'open', 'secret']);
  });

  it('names the app on its check runs, tells it of them, and filters runs by app', async () => {
    const bot = asInstallation(installationId);
    const head = (await alice.repos.getBranch({ owner: 'alice', repo: 'tool', branch: 'main' })).data.commit.sha;
    const seen = receiver.received.length;
    const run = (await bot.checks.create({ owner: 'alice', repo: 'tool', name: 'app-check', head_sha: head })).data;
    expect(run.app).toMatchObject({ id: app.id, slug: 'triage-bot', owner: { login: 'alice' } });
    expect(run.details_url).toBe(`${host.url}/apps/triage-bot`);
    // GitHub takes check runs from apps only: a personal token's is refused in its words.
    expect((await failure(alice.checks.create({ owner: 'alice', repo: 'tool', name: 'token-check', head_sha: head }))).data.message).toBe('You must authenticate via a GitHub App.');
    await bot.checks.update({ owner: 'alice', repo: 'tool', check_run_id: run.id, conclusion: 'failure', output: { title: 'Failed', summary: 'x' } });
    const byApp = await alice.checks.listForRef({ owner: 'alice', repo: 'tool', ref: head, app_id: app.id });
    expect(byApp.data.check_runs.map((found) => found.name)).toEqual(['app-check']);
    const events = await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.headers['x-github-event'] === 'check_run' && hook.json.action === 'completed' && hook.json.check_run.name === 'app-check');
    expect(events[0]!.json.check_run).toMatchObject({ conclusion: 'failure', app: { slug: 'triage-bot' } });
    const actions = receiver.received.slice(seen).filter((hook) => hook.headers['x-github-event'] === 'check_run').map((hook) => `${hook.json.check_run.name}.${hook.json.action}`);
    expect(actions).toEqual(expect.arrayContaining(['app-check.created', 'app-check.completed']));
  });

  it('asks the app for a check suite on a push, keeps its runs in it, and tells it when the suite completes or is asked again', async () => {
    const bot = asInstallation(installationId);
    const before = (await alice.repos.getBranch({ owner: 'alice', repo: 'tool', branch: 'main' })).data.commit.sha;
    const seen = receiver.received.length;
    const pushed = await alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'tool', path: 'suite.txt', message: 'For the suite', content: Buffer.from('s\n').toString('base64') });
    const head = pushed.data.commit.sha!;
    const suiteEvent = async (action: string) =>
      (await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.headers['x-github-event'] === 'check_suite' && hook.json.action === action))[0]!;
    const requested = await suiteEvent('requested');
    expect(requested.json).toMatchObject({
      installation: { id: installationId },
      check_suite: { head_sha: head, head_branch: 'main', before, after: head, status: 'queued', conclusion: null, app: { id: app.id, slug: 'triage-bot' }, head_commit: { id: head, message: 'For the suite' } },
    });
    const suiteId = requested.json.check_suite.id as number;
    // The app's run goes in the suite it was asked for; another app's run goes in that app's own.
    const run = (await bot.checks.create({ owner: 'alice', repo: 'tool', name: 'ci', head_sha: head, status: 'in_progress' })).data;
    expect(run.check_suite?.id).toBe(suiteId);
    const otherRun = (await (await installationOctokit(host, 'alice', 'Other CI')).checks.create({ owner: 'alice', repo: 'tool', name: 'manual', head_sha: head })).data;
    expect(otherRun.check_suite?.id).not.toBe(suiteId);
    const suites = (await alice.checks.listSuitesForRef({ owner: 'alice', repo: 'tool', ref: head })).data;
    expect(suites.check_suites.map((suite) => [suite.id, suite.app?.slug ?? null])).toEqual([[suiteId, 'triage-bot'], [otherRun.check_suite!.id, 'other-ci']]);
    expect((await alice.checks.listSuitesForRef({ owner: 'alice', repo: 'tool', ref: head, app_id: app.id })).data.check_suites.map((suite) => suite.id)).toEqual([suiteId]);
    await bot.checks.update({ owner: 'alice', repo: 'tool', check_run_id: run.id, conclusion: 'success', output: { title: 'ok', summary: 'ok' } });
    const completed = await suiteEvent('completed');
    expect(completed.json.check_suite).toMatchObject({ id: suiteId, status: 'completed', conclusion: 'success', latest_check_runs_count: 1 });
    // Asked again: only the app hears it (the repository's hooks hear `completed` only).
    expect((await alice.checks.rerequestSuite({ owner: 'alice', repo: 'tool', check_suite_id: suiteId })).status).toBe(201);
    const rerequested = await suiteEvent('rerequested');
    expect(rerequested.json).toMatchObject({ action: 'rerequested', check_suite: { id: suiteId, status: 'queued', conclusion: null }, sender: { login: 'alice' } });
    // GitHub's documented reset: queued, its conclusion cleared, until a run of it changes; the runs are untouched.
    const suiteNow = async () => (await alice.checks.getSuite({ owner: 'alice', repo: 'tool', check_suite_id: suiteId })).data;
    expect(await suiteNow()).toMatchObject({ status: 'queued', conclusion: null, latest_check_runs_count: 1 });
    expect((await alice.checks.get({ owner: 'alice', repo: 'tool', check_run_id: run.id })).data).toMatchObject({ status: 'completed', conclusion: 'success' });
    await bot.checks.update({ owner: 'alice', repo: 'tool', check_run_id: run.id, status: 'in_progress' });
    expect(await suiteNow()).toMatchObject({ status: 'in_progress', conclusion: null });
    await bot.checks.update({ owner: 'alice', repo: 'tool', check_run_id: run.id, conclusion: 'failure', output: { title: 'no', summary: 'no' } });
    expect(await suiteNow()).toMatchObject({ status: 'completed', conclusion: 'failure' });
    // Asking for one run again queues its suite too, and leaves the run as it was.
    expect((await alice.checks.rerequestRun({ owner: 'alice', repo: 'tool', check_run_id: run.id })).status).toBe(201);
    const runEvent = await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.headers['x-github-event'] === 'check_run' && hook.json.action === 'rerequested' && hook.json.check_run.id === run.id);
    expect(runEvent[0]!.json.check_run).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(await suiteNow()).toMatchObject({ status: 'queued', conclusion: null });
    expect((await alice.checks.get({ owner: 'alice', repo: 'tool', check_run_id: run.id })).data).toMatchObject({ status: 'completed', conclusion: 'failure' });
    // A new run of the suite gives it its state from its runs again.
    await bot.checks.create({ owner: 'alice', repo: 'tool', name: 'ci', head_sha: head, conclusion: 'success', output: { title: 'ok', summary: 'ok' } });
    expect(await suiteNow()).toMatchObject({ status: 'completed', conclusion: 'success', latest_check_runs_count: 1 });
    // An app makes a suite of its own for a commit; a person cannot.
    // A commit no branch points at yet: no push asked for a suite of it.
    const tree = (await alice.git.getCommit({ owner: 'alice', repo: 'tool', commit_sha: head })).data.tree.sha;
    const other = (await alice.git.createCommit({ owner: 'alice', repo: 'tool', message: 'loose', tree, parents: [head] })).data.sha;
    const made = await bot.checks.createSuite({ owner: 'alice', repo: 'tool', head_sha: other });
    expect(made.status).toBe(201);
    expect((await bot.checks.createSuite({ owner: 'alice', repo: 'tool', head_sha: other })).status).toBe(200);
    expect((await failure(alice.checks.createSuite({ owner: 'alice', repo: 'tool', head_sha: other }))).status).toBe(403);
  });

  it('tells apps of checks only with the Checks permission, and asks for suites only apps that may write them', async () => {
    const noChecks = await host.admin.createApp({ owner: 'alice', name: 'No Checks', webhookUrl: `${receiver.url}/none`, permissions: { issues: 'write' }, events: ['check_run', 'issues'] });
    const readsChecks = await host.admin.createApp({ owner: 'alice', name: 'Reads Checks', webhookUrl: `${receiver.url}/reads`, permissions: { checks: 'read' }, events: ['check_run', 'check_suite'] });
    for (const slug of ['no-checks', 'reads-checks']) await host.admin.installApp(slug, 'alice', ['tool']);
    const seen = receiver.received.length;
    const pushed = await alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'tool', path: 'permission.txt', message: 'Permissions', content: Buffer.from('p\n').toString('base64') });
    const run = (await asInstallation(installationId).checks.create({ owner: 'alice', repo: 'tool', name: 'perm', head_sha: pushed.data.commit.sha!, conclusion: 'success', output: { title: 't', summary: 's' } })).data;
    // The app that made it hears it, and so does the one that may read checks; the one without Checks does not.
    await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.headers['x-github-event'] === 'check_run' && hook.json.check_run.id === run.id && hook.headers['x-github-hook-installation-target-id'] === String(readsChecks.id));
    await alice.issues.create({ owner: 'alice', repo: 'tool', title: 'After the run' });
    await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.json?.issue?.title === 'After the run' && hook.headers['x-github-hook-installation-target-id'] === String(noChecks.id));
    const heardBy = (appId: number) => receiver.received.slice(seen).filter((hook) => hook.headers['x-github-hook-installation-target-id'] === String(appId)).map((hook) => `${String(hook.headers['x-github-event'])}.${hook.json.action}`);
    expect(heardBy(noChecks.id)).toEqual(['issues.opened']);
    // Reading checks is no writing them: no suite is asked of it on a push.
    expect(heardBy(readsChecks.id).filter((kind) => kind.startsWith('check_suite'))).toEqual([]);
    expect(heardBy(app.id)).toContain('check_suite.requested');
  });

  it('does not let an app push without contents: write', async () => {
    const made = await host.admin.createApp({ owner: 'alice', name: 'Reader', permissions: { contents: 'read', issues: 'write' } });
    const { id } = await host.admin.installApp('reader', 'alice', ['tool']);
    const auth = createAppAuth({ appId: made.id, privateKey: made.privateKey, request: new Octokit({ baseUrl: api() }).request });
    const { token } = await auth({ type: 'installation', installationId: id });
    const work = await tempDir('repohost-app-reader-');
    try {
      const remote = new URL(`${host.url}/alice/tool.git`);
      remote.username = 'x-access-token';
      remote.password = token;
      await git(work.path, ['clone', '-q', remote.toString(), 'tool'], work.path);
      await git(`${work.path}/tool`, ['commit', '-q', '--allow-empty', '-m', 'not allowed'], work.path);
      await expect(git(`${work.path}/tool`, ['push', '-q', 'origin', 'HEAD:refs/heads/reader'], work.path)).rejects.toThrow(/403|Permission denied/);
    } finally {
      await work.cleanup();
    }
  });

  it('keeps each request within the installation: its repositories for changes, the permission of each kind', async () => {
    const bot = asInstallation(installationId);
    // Not installed on bob/open: it reads what anyone reads there, and changes nothing.
    expect((await bot.repos.get({ owner: 'bob', repo: 'open' })).status).toBe(200);
    expect(await failure(bot.issues.create({ owner: 'bob', repo: 'open', title: 'drive-by' }))).toMatchObject({ status: 403, data: { message: 'Resource not accessible by integration' } });
    // Merging writes the base branch: pull_requests alone does not merge (this app has contents: write, a reader has not).
    const made = await host.admin.createApp({ owner: 'alice', name: 'Narrow', permissions: { pull_requests: 'write', checks: 'read' } });
    const { id } = await host.admin.installApp('narrow', 'alice', ['tool']);
    const narrow = new Octokit({ baseUrl: api(), authStrategy: createAppAuth, auth: { appId: made.id, privateKey: made.privateKey, installationId: id } });
    await alice.git.createRef({ owner: 'alice', repo: 'tool', ref: 'refs/heads/narrow-topic', sha: (await alice.repos.getBranch({ owner: 'alice', repo: 'tool', branch: 'main' })).data.commit.sha });
    await alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'tool', branch: 'narrow-topic', path: 'n.txt', message: 'n', content: Buffer.from('n\n').toString('base64') });
    const pull = (await narrow.pulls.create({ owner: 'alice', repo: 'tool', head: 'narrow-topic', base: 'main', title: 'By a narrow app' })).data;
    expect((await failure(narrow.pulls.merge({ owner: 'alice', repo: 'tool', pull_number: pull.number }))).status).toBe(403);
    // Reads need their permission too: no contents, no statuses for this one.
    expect((await failure(narrow.repos.getContent({ owner: 'alice', repo: 'tool', path: 'README.md' }))).status).toBe(403);
    expect((await failure(narrow.repos.listCommitStatusesForRef({ owner: 'alice', repo: 'tool', ref: 'main' }))).status).toBe(403);
    expect((await narrow.checks.listForRef({ owner: 'alice', repo: 'tool', ref: 'main' })).status).toBe(200);
    // Release assets are contents.
    const release = (await alice.repos.createRelease({ owner: 'alice', repo: 'tool', tag_name: 'v1' })).data;
    const upload = await failure(narrow.request({ method: 'POST', url: release.upload_url, name: 'a.txt', data: 'a', headers: { 'content-type': 'text/plain' } }));
    expect(upload.status).toBe(403);
    // Nor may it clone without contents.
    const { token } = await createAppAuth({ appId: made.id, privateKey: made.privateKey, request: new Octokit({ baseUrl: api() }).request })({ type: 'installation', installationId: id });
    const work = await tempDir('repohost-app-narrow-');
    try {
      const remote = new URL(`${host.url}/alice/tool.git`);
      remote.username = 'x-access-token';
      remote.password = token;
      await expect(git(work.path, ['clone', '-q', remote.toString(), 'tool'], work.path)).rejects.toThrow(/403|denied/i);
    } finally {
      await work.cleanup();
    }
  });

  it('takes installation tokens only where GitHub does: not on pages, forms or /api/v1', async () => {
    const { data } = await asApp().apps.createInstallationAccessToken({ installation_id: installationId });
    const headers = { authorization: `Bearer ${data.token}` };
    // /api/v1/user answers an anonymous caller 404 (the spec's), as it does here.
    expect((await fetch(`${host.url}/api/v1/user`, { headers })).status).toBe(404);
    const form = await fetch(`${host.url}/new`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=botrepo', redirect: 'manual' });
    expect(form.status).not.toBe(201);
    expect((await fetch(`${api()}/repos/triage-bot[bot]/botrepo`)).status).toBe(404);
    // A personal token may still have the shape of an installation token (fixtures choose theirs).
    const bob = new Octokit({ baseUrl: api(), auth: 'ghs_personalTokenOfBob0123456789abcd' });
    expect((await bob.users.getAuthenticated()).data.login).toBe('bob');
  });

  it('names the app as the target of its deliveries, and keeps apps across a snapshot and restore', async () => {
    const seen = receiver.received.length;
    await alice.issues.create({ owner: 'alice', repo: 'tool', title: 'target' });
    // Other apps installed there hear it too (their deliveries name them): this app's delivery names this app.
    const [delivery] = await receiver.waitFor((hook) => receiver.received.indexOf(hook) >= seen && hook.json?.issue?.title === 'target' && hook.json?.installation?.id === installationId);
    expect(delivery!.headers['x-github-hook-installation-target-type']).toBe('integration');
    expect(delivery!.headers['x-github-hook-installation-target-id']).toBe(String(app.id));
    const snapshot = await host.snapshot();
    await host.restore(snapshot);
    expect((await asApp().apps.getAuthenticated()).data!.slug).toBe('triage-bot');
    expect((await asInstallation(installationId).issues.create({ owner: 'alice', repo: 'tool', title: 'after restore' })).status).toBe(201);
  });

  it('refuses bad apps and installations clearly', async () => {
    await expect(host.admin.createApp({ owner: 'alice', name: 'Triage Bot' })).rejects.toThrow(/already exists/);
    await expect(host.admin.createApp({ owner: 'alice', name: 'x', permissions: { secrets: 'write' } })).rejects.toThrow(/permissions may only name/);
    await expect(host.admin.createApp({ owner: 'alice', name: 'x', permissions: { metadata: 'write' } })).rejects.toThrow(/metadata can only be read/);
    await expect(host.admin.createApp({ owner: 'alice', name: 'y', events: ['everything'] })).rejects.toThrow(/events may only name/);
    await expect(host.admin.createApp({ owner: 'alice', name: 'z', privateKey: 'not a key' })).rejects.toThrow(/RSA private key/);
    await expect(host.admin.installApp('triage-bot', 'alice')).rejects.toThrow(/already installed/);
    await expect(host.admin.load({ apps: [{ owner: 'nobody', name: 'n', installations: [{ account: 'alice', repositories: ['missing'] }] }] })).rejects.toThrow(
      /fixtures\.apps\[0\]\.owner[\s\S]*fixtures\.apps\[0\]\.installations\[0\]\.repositories\[0\]/,
    );
  });
});
