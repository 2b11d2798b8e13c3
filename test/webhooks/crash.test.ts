import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, tempDir } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';
import { startCliServer, type ServerProcess } from '../cli/processes.js';

/** Durable delivery (issue 9): a push acknowledged before a SIGKILL is delivered after the restart, once. */
describe('webhook outbox across a SIGKILL', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  const servers: ServerProcess[] = [];
  let receiver: HookReceiver | undefined;

  beforeAll(async () => {
    dir = await tempDir('repohost-outbox-');
  });

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.kill('SIGKILL');
    await receiver?.close();
    await dir.cleanup();
  });

  it('sends the pending push delivery after restart, and only once', async () => {
    const db = join(dir.path, 'forge.db');
    // A port with nobody listening yet: the first attempt is refused and the delivery stays pending.
    const probe = await HookReceiver.start();
    const port = probe.port;
    await probe.close();

    const first = await startCliServer(['--db', db, '--allow-local-network']);
    servers.push(first);
    const host = { url: first.url } as RepoHost;
    const owner = await newUser(host, 'owner');
    await newRepo(host, owner, 'durable');
    const hooks = `${first.url}/api/v1/repos/owner/durable/hooks`;
    // Created inactive (no ping to wait behind), then switched on.
    const hook = (await http(hooks, { headers: bearer(owner.token), json: { url: `http://127.0.0.1:${port}/hook`, events: ['push'], active: false } })).json;
    await http(`${hooks}/${hook.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { active: true } });
    const { main } = await pushTwoBranches(host, 'owner', owner.token, 'durable');
    // The older push delivery was attempted and refused (connection refused); both are pending on disk.
    const pending = async () => (await http(`${hooks}/${hook.id}/deliveries`, { headers: bearer(owner.token) })).json as Array<{ state: string; attempts: number }>;
    await expect.poll(async () => (await pending()).map((delivery) => delivery.state === 'pending' && delivery.attempts > 0), { timeout: 5000 }).toEqual([false, true]);
    expect((await pending()).map((delivery) => delivery.state)).toEqual(['pending', 'pending']);
    expect(await first.kill('SIGKILL')).toBe('SIGKILL');

    receiver = await HookReceiver.start(port);
    const second = await startCliServer(['--db', db, '--allow-local-network']);
    servers.push(second);
    const arrived = await receiver.waitFor((request) => request.headers['x-github-event'] === 'push', 2, 10_000);
    // In the order git updated the refs (the order of the push's commands), as its post-receive hook lists them.
    expect(arrived.map((request) => request.json.ref)).toEqual(['refs/heads/main', 'refs/heads/feature']);
    expect(arrived.find((request) => request.json.ref === 'refs/heads/main')!.json).toMatchObject({ after: main, created: true, pusher: { name: 'owner' } });
    // Nothing arrives twice, however long we wait for a duplicate.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toHaveLength(2);
    const states = (await http(`${second.url}/api/v1/repos/owner/durable/hooks/${hook.id}/deliveries`, { headers: bearer(owner.token) })).json.map((d: { state: string }) => d.state);
    expect(states).toEqual(['delivered', 'delivered']);
  });
});
