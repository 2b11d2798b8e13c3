import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Octokit } from '@octokit/rest';
import { createNodeMiddleware, Probot, type Context } from 'probot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';

/** Waits until `check` holds (the app answers webhooks as they arrive, after the host's request has returned). */
async function eventually<T>(check: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for the app');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Issue 20: a Probot app in app mode, unchanged: repohost delivers the webhook of an installed repository to it, and
// the app reads its configuration file and answers through an installation token (JWT, then access token, then REST).
describe('a Probot app in app mode', () => {
  let host: RepoHost;
  let server: Server;
  let alice: Octokit;
  const seen: string[] = [];

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    // The app's server first: its address is the app's webhook URL.
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const loaded = await host.admin.load({
      users: [{ username: 'alice', email: 'alice@example.com', password: 'password123' }],
      repositories: [
        {
          owner: 'alice',
          name: 'project',
          private: true,
          branches: { main: { commits: [{ message: 'configure the bot', files: { '.github/greeter.yml': 'greeting: Thanks for the report!\nlabel: triage\n' } }] } },
          labels: [{ name: 'triage', color: 'fbca04' }],
        },
      ],
      apps: [
        {
          owner: 'alice',
          name: 'Greeter',
          webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
          webhookSecret: 'probot-secret',
          permissions: { issues: 'write', contents: 'read', checks: 'write' },
          events: ['issues', 'check_run', 'check_suite'],
          installations: [{ account: 'alice' }],
        },
      ],
    });
    const app = loaded.apps[0]!;
    const probot = new Probot({ appId: app.id, privateKey: app.privateKey, secret: 'probot-secret', baseUrl: `${host.url}/api/v3`, logLevel: 'fatal' });
    const middleware = await createNodeMiddleware(
      (bot) => {
        bot.on('issues.opened', async (context: Context<'issues.opened'>) => {
          seen.push(`issues.opened:${context.payload.installation?.id}`);
          const config = (await context.config<{ greeting: string; label: string }>('greeter.yml'))!;
          await context.octokit.rest.issues.createComment(context.issue({ body: config.greeting }));
          await context.octokit.rest.issues.addLabels(context.issue({ labels: [config.label] }));
          const head = (await context.octokit.rest.repos.getBranch(context.repo({ branch: 'main' }))).data.commit.sha;
          await context.octokit.rest.checks.create(context.repo({ name: 'greeter', head_sha: head, status: 'completed', conclusion: 'success', output: { title: 'Greeted', summary: 'ok' } }));
        });
        // A CI app's usual start: a push asks for a suite, the app reports a run in it.
        bot.on('check_suite.requested', async (context: Context<'check_suite.requested'>) => {
          const { head_sha: sha } = context.payload.check_suite;
          await context.octokit.rest.checks.create(context.repo({ name: 'greeter-ci', head_sha: sha, status: 'completed', conclusion: 'success', output: { title: 'Built', summary: `built ${sha}` } }));
        });
        bot.on('check_run.completed', async (context: Context<'check_run.completed'>) => {
          seen.push(`check_run.completed:${context.payload.check_run.name}:${context.payload.check_run.app?.slug}`);
        });
      },
      { probot },
    );
    server.on('request', (request, response) => {
      void middleware(request, response, () => {
        response.writeHead(404).end();
      });
    });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice', 'test') });
  });

  afterAll(async () => {
    await host?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('hears an issue opened, reads its configuration and answers as its bot', async () => {
    const issue = (await alice.issues.create({ owner: 'alice', repo: 'project', title: 'Something is off' })).data;
    const comment = await eventually(async () => (await alice.issues.listComments({ owner: 'alice', repo: 'project', issue_number: issue.number })).data[0]);
    expect(comment.body).toBe('Thanks for the report!');
    expect(comment.user).toMatchObject({ login: 'greeter[bot]', type: 'Bot' });
    const labels = await eventually(async () => {
      const names = (await alice.issues.get({ owner: 'alice', repo: 'project', issue_number: issue.number })).data.labels.map((label) => (typeof label === 'string' ? label : label.name));
      return names.length > 0 ? names : undefined;
    });
    expect(labels).toEqual(['triage']);
    // Its check run names the app, and the app heard of it finishing.
    const runs = await eventually(async () => {
      const found = (await alice.checks.listForRef({ owner: 'alice', repo: 'project', ref: 'main' })).data.check_runs;
      return found.length > 0 ? found : undefined;
    });
    expect(runs[0]).toMatchObject({ name: 'greeter', conclusion: 'success', app: { slug: 'greeter', owner: { login: 'alice' } } });
    await eventually(async () => (seen.some((entry) => entry.startsWith('check_run.completed')) ? true : undefined));
    expect(seen).toContain('check_run.completed:greeter:greeter');
    expect(seen.some((entry) => /^issues\.opened:\d+$/.test(entry))).toBe(true);
  });

  it('runs its checks on a push it is asked about, in the suite it was asked for', async () => {
    const pushed = await alice.repos.createOrUpdateFileContents({ owner: 'alice', repo: 'project', path: 'new.txt', message: 'Something new', content: Buffer.from('new\n').toString('base64') });
    const sha = pushed.data.commit.sha!;
    const run = await eventually(async () => (await alice.checks.listForRef({ owner: 'alice', repo: 'project', ref: sha, check_name: 'greeter-ci' })).data.check_runs[0]);
    expect(run).toMatchObject({ conclusion: 'success', output: { summary: `built ${sha}` }, app: { slug: 'greeter' } });
    const suites = (await alice.checks.listSuitesForRef({ owner: 'alice', repo: 'project', ref: sha })).data.check_suites;
    expect(suites.map((suite) => [suite.id, suite.app?.slug, suite.conclusion])).toEqual([[run.check_suite!.id, 'greeter', 'success']]);
  });
});
