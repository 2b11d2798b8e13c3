import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventTimeoutError, type PushEvent, type RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';
import { pushTwoBranches } from '../helpers/git-cli.js';

/** Events inside the process (issue 9): `host.events` carries what webhooks carry, and waits instead of polling. */
describe('host.events', () => {
  let host: RepoHost;
  let owner: TestUser;
  let fan: TestUser;
  let receiver: HookReceiver;
  const api = () => `${host.url}/api/v1/repos/owner/evented`;

  beforeAll(async () => {
    host = await startHost({ allowLocalNetwork: true });
    owner = await newUser(host, 'owner');
    fan = await newUser(host, 'fan');
    await newRepo(host, owner, 'evented');
    receiver = await HookReceiver.start();
    await http(`${api()}/hooks`, { headers: bearer(owner.token), json: { url: receiver.url, events: ['*'] } });
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('waitFor resolves with the payload a webhook carries, for the event the predicate picks', async () => {
    const pushed = host.events.waitFor('push', (event) => event.ref === 'refs/heads/feature');
    const branches = await pushTwoBranches(host, 'owner', owner.token, 'evented');
    const payload: PushEvent = await pushed;
    expect(payload).toMatchObject({ ref: 'refs/heads/feature', after: branches.feature, created: true, sender: { login: 'owner' } });
    const [delivered] = await receiver.waitFor((request) => request.headers['x-github-event'] === 'push' && request.json.ref === 'refs/heads/feature');
    expect(delivered!.json).toEqual(payload);
  });

  it('on() hears every event of its name until stopped; a throwing or rejecting listener never breaks the server', async () => {
    const heard: string[] = [];
    const everything: string[] = [];
    host.events.on('issues', () => {
      throw new Error('listener bug');
    });
    host.events.on('issues', async () => Promise.reject(new Error('async listener bug')));
    const stop = host.events.on('issues', (payload, event) => {
      heard.push(`${event.action}:${payload.issue.title}`);
    });
    const stopAll = host.events.on('*', (_payload, event) => {
      everything.push(event.name);
    });
    const opened = host.events.waitFor('issues', (event) => event.issue.title === 'second');
    const first = await http(`${api()}/issues`, { headers: bearer(owner.token), json: { title: 'first' } });
    expect(first.status).toBe(200);
    await http(`${api()}/issues`, { headers: bearer(owner.token), json: { title: 'second' } });
    await opened;
    stop();
    stopAll();
    await http(`${api()}/issues`, { headers: bearer(owner.token), json: { title: 'third' } });
    expect(heard).toEqual(['opened:first', 'opened:second']);
    expect(everything).toEqual(['issues', 'issues']);
    expect((await http(`${api()}/issues`)).status).toBe(200);
  });

  it('waitFor rejects after its time limit and on abort', async () => {
    const started = performance.now();
    await expect(host.events.waitFor('star', undefined, { timeoutMs: 50 })).rejects.toBeInstanceOf(EventTimeoutError);
    expect(performance.now() - started).toBeLessThan(1000);
    const controller = new AbortController();
    const waiting = host.events.waitFor('star', undefined, { signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
  });

  it('star, watch and repository (renamed) events', async () => {
    const repoId = (await http(api(), { headers: bearer(owner.token) })).json.id;
    const starred = host.events.waitFor('star');
    await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: bearer(fan.token) });
    expect(await starred).toMatchObject({ action: 'created', sender: { login: 'fan' }, repository: { stargazers_count: 1 } });
    const unstarred = host.events.waitFor('star');
    await http(`${host.url}/api/v1/repos/${repoId}/star`, { method: 'POST', headers: bearer(fan.token) });
    expect(await unstarred).toMatchObject({ action: 'deleted', starred_at: null });
    const watched = host.events.waitFor('watch');
    await http(`${host.url}/api/v1/repos/${repoId}/watch`, { method: 'POST', headers: bearer(fan.token) });
    expect(await watched).toMatchObject({ action: 'started', sender: { login: 'fan' } });
    const renamed = host.events.waitFor('repository');
    await http(api(), { method: 'PATCH', headers: bearer(owner.token), json: { name: 'renamed' } });
    expect(await renamed).toMatchObject({ action: 'renamed', changes: { repository: { name: { from: 'evented' } } }, repository: { name: 'renamed', full_name: 'owner/renamed' } });
  });
});

/** The address guard (issue 9): loopback hooks are refused by default, at creation and again at delivery time. */
describe('webhook targets', () => {
  it('refuses loopback and private targets by default, and checks the address again at every delivery', async () => {
    const data = await tempDir();
    const receiver = await HookReceiver.start();
    const dbPath = `${data.path}/guard.db`;
    try {
      // A host that may reach local addresses records a hook to the local receiver...
      const open = await startHost({ dbPath, allowLocalNetwork: true });
      const owner = await newUser(open, 'owner');
      await newRepo(open, owner, 'guarded');
      const created = await http(`${open.url}/api/v1/repos/owner/guarded/hooks`, { headers: bearer(owner.token), json: { url: receiver.url, events: ['issues'] } });
      expect(created.status).toBe(201);
      await receiver.waitForEvent('ping');
      await open.close();

      // ...which the same database, served with the default, refuses to create and refuses to send to.
      const strict = await startHost({ dbPath });
      try {
        expect(strict.options.allowLocalNetwork).toBe(false);
        for (const url of [receiver.url, 'http://localhost:9/x', 'http://10.1.2.3/x', 'http://[::1]:9/x', 'http://169.254.169.254/latest', 'http://[::ffff:127.0.0.1]/x']) {
          const refused = await http(`${strict.url}/api/v1/repos/owner/guarded/hooks`, { headers: bearer(owner.token), json: { url } });
          expect(refused.status, url).toBe(400);
          expect(refused.json).toEqual({ success: false, message: 'url points to a local or private address' });
        }
        const issue = strict.events.waitFor('issues');
        await http(`${strict.url}/api/v1/repos/owner/guarded/issues`, { headers: bearer(owner.token), json: { title: 'not for localhost' } });
        await issue;
        const deliveries = async () => (await http(`${strict.url}/api/v1/repos/owner/guarded/hooks/${created.json.id}/deliveries`, { headers: bearer(owner.token) })).json;
        await expect.poll(async () => (await deliveries())[0].error, { timeout: 5000 }).toMatch(/^refused: 127\.0\.0\.1 points to a local or private address/);
        expect(receiver.ofEvent('issues')).toHaveLength(0);
      } finally {
        await strict.close();
      }
    } finally {
      await receiver.close();
      await data.cleanup();
    }
  });
});
