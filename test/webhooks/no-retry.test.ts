import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';

/** Issue 20: a host started from code delivers once, as GitHub does, so `idle()` is never held by retries. */
describe('deliveries of a host started from code', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let owner: TestUser;

  beforeAll(async () => {
    receiver = await HookReceiver.start();
    receiver.answerWith(() => 500);
    host = await startHost({ allowLocalNetwork: true });
    owner = await newUser(host, 'owner');
    await newRepo(host, owner, 'app');
  });

  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('makes one attempt of a delivery that fails, and idle() does not wait for a retry', async () => {
    const api = `${host.url}/api/v1/repos/owner/app`;
    const hook = (await http(`${api}/hooks`, { headers: bearer(owner.token), json: { url: receiver.url, events: ['issues'] } })).json;
    await host.idle();
    receiver.received.length = 0;
    await http(`${api}/issues`, { headers: bearer(owner.token), json: { title: 'Undelivered' } });
    // With retries, idle() would wait for them (1 s, 4 s, 16 s, 64 s: past the test's time limit) and the delivery would
    // still be pending after the first failure.
    await host.idle();
    expect(receiver.received.filter((request) => request.headers['x-github-event'] === 'issues')).toHaveLength(1);
    const deliveries = (await http(`${api}/hooks/${hook.id}/deliveries`, { headers: bearer(owner.token) })).json as Array<{ event: string; state: string; attempts: number }>;
    expect(deliveries.find((delivery) => delivery.event === 'issues')).toMatchObject({ state: 'failed', attempts: 1 });
  });
});
