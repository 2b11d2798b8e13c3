import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';
import { HookReceiver } from '../helpers/receiver.js';

// GitHub's repository dispatches (`POST /repos/{owner}/{repo}/dispatches`, octokit's `repos.createDispatchEvent`):
// a writer's own event, which the apps installed on the repository receive as `repository_dispatch` (GitHub sends it
// to apps only: a repository's own webhook never hears it).
describe('repository dispatches', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  const as: Record<string, Octokit> = {};
  const repo = { owner: 'alice', repo: 'dispatched' };
  let repositoryHook: number;
  let installation: number;

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    receiver = await HookReceiver.start();
    for (const username of ['alice', 'bob']) {
      await host.admin.createUser({ username, email: `${username}@example.com`, password: 'password123' });
      as[username] = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken(username, 'dispatch') });
    }
    await as.alice!.repos.createForAuthenticatedUser({ name: 'dispatched', auto_init: true });
    await as.alice!.repos.addCollaborator({ ...repo, username: 'bob', permission: 'pull' });
    repositoryHook = (await as.alice!.repos.createWebhook({ ...repo, config: { url: `${receiver.url}/repository`, content_type: 'json' }, events: ['*'] })).data.id;
    const app = await host.admin.createApp({ owner: 'alice', name: 'Dispatch App', webhookUrl: receiver.url, permissions: { contents: 'read' }, events: ['repository_dispatch'] });
    installation = (await host.admin.installApp(app.slug, 'alice')).id;
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('sends the apps that subscribe to it the event type as the action, the default branch and the payload', async () => {
    const answer = await as.alice!.repos.createDispatchEvent({ ...repo, event_type: 'deploy-staging', client_payload: { ref: 'main', nested: { ok: true } } });
    expect(answer.status).toBe(204);
    const [hook] = await receiver.waitForEvent('repository_dispatch');
    expect(hook!.headers['x-github-event']).toBe('repository_dispatch');
    expect(hook!.json).toMatchObject({ action: 'deploy-staging', branch: 'main', client_payload: { ref: 'main', nested: { ok: true } }, repository: { full_name: 'alice/dispatched' }, sender: { login: 'alice' }, installation: { id: installation } });
    await as.alice!.repos.createDispatchEvent({ ...repo, event_type: 'bare' });
    expect((await receiver.waitFor((received) => received.json?.action === 'bare'))[0]!.json.client_payload).toBeNull();
    // The repository's own webhook, though it asks for every event, heard neither.
    await host.idle();
    expect(receiver.ofEvent('repository_dispatch')).toHaveLength(2);
    expect(receiver.ofEvent('repository_dispatch').map((received) => Number(received.headers['x-github-hook-id']))).not.toContain(repositoryHook);
  });

  it('needs write access, and refuses what GitHub refuses', async () => {
    expect((await failure(as.bob!.repos.createDispatchEvent({ ...repo, event_type: 'deploy' }))).status).toBe(403);
    for (const body of [{}, { event_type: '' }, { event_type: 'x'.repeat(101) }, { event_type: 'deploy', client_payload: [1] }, { event_type: 'deploy', client_payload: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, i])) }]) {
      expect((await failure(as.alice!.request(`POST /repos/${repo.owner}/${repo.repo}/dispatches`, body))).status, JSON.stringify(body)).toBe(422);
    }
    expect((await failure(as.alice!.repos.createDispatchEvent({ owner: 'alice', repo: 'nothing', event_type: 'deploy' }))).status).toBe(404);
  });
});
