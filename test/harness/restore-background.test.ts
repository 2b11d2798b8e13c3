import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';
import { BOT_TOKEN, sampleFixtures } from './sample-fixtures.js';

const alice = bearer(BOT_TOKEN);

/** Restoring with work under way: webhook deliveries in flight or pending, failed logins counted. */
describe('restore and background work', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  const hooks = () => http(`${host.url}/api/v1/repos/alice/project/hooks`, { headers: alice });

  beforeAll(async () => {
    receiver = await HookReceiver.start();
    host = await startHost({ fixtures: sampleFixtures(), allowLocalNetwork: true, webhookTimeoutMs: 60_000, maxFailedLoginsPerAccount: 2 });
  });
  afterAll(async () => {
    await host?.close();
    await receiver?.close();
  });

  it('cuts off an attempt in flight and sends the deliveries pending in the restored state', async () => {
    const empty = await host.snapshot();
    // The receiver hangs: the ping is in flight, recorded as pending.
    receiver.answerWith(() => 'hang');
    const created = await http(`${host.url}/api/v1/repos/alice/project/hooks`, { headers: alice, json: { url: receiver.url, events: ['*'] } });
    expect(created.status).toBe(201);
    await receiver.waitForEvent('ping');
    const pending = await host.snapshot();

    // Back to before the hook: the hanging attempt is cut off, nothing is left to send, idle() has nothing to wait for.
    await host.restore(empty);
    expect((await hooks()).json).toEqual([]);
    await host.idle();
    expect(receiver.ofEvent('ping')).toHaveLength(1);

    // Back to the pending ping: it goes out again and is recorded, and idle() waits for it.
    receiver.answerWith(() => 200);
    await host.restore(pending);
    await host.idle();
    expect(receiver.ofEvent('ping')).toHaveLength(2);
    const deliveries = (await http(`${host.url}/api/v1/repos/alice/project/hooks/${created.json.id}/deliveries`, { headers: alice })).json;
    expect(deliveries.map((delivery: { event: string; state: string }) => [delivery.event, delivery.state])).toEqual([['ping', 'delivered']]);
  });

  it('forgets failed logins counted before a reset', async () => {
    const basic = (password: string) => ({ authorization: `Basic ${Buffer.from(`alice:${password}`).toString('base64')}` });
    for (const attempt of ['wrong-1', 'wrong-2']) expect((await http(`${host.url}/api/v1/me`, { headers: basic(attempt) })).status).toBe(401);
    expect((await http(`${host.url}/api/v1/me`, { headers: basic('password123') })).status).toBe(429);
    await host.reset();
    expect((await http(`${host.url}/api/v1/me`, { headers: basic('password123') })).status).toBe(200);
  });
});
