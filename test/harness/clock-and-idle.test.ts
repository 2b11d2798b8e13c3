import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';
import { sh } from '../git/fixtures.js';
import { BOT_TOKEN, sampleFixtures } from './sample-fixtures.js';

const alice = bearer(BOT_TOKEN);

/** The `now` option and `host.idle()` on one host whose clock the test sets. */
describe('a controllable clock and waiting for effects', () => {
  let host: RepoHost;
  let receiver: HookReceiver;
  let dir: { path: string; cleanup: () => Promise<void> };
  let clock = new Date('2030-05-06T07:08:09.000Z');

  beforeAll(async () => {
    dir = await tempDir();
    receiver = await HookReceiver.start();
    host = await startHost({ now: () => clock, fixtures: sampleFixtures(), allowLocalNetwork: true, webhookRetryDelayMs: 20, webhookMaxAttempts: 5 });
  });
  afterAll(async () => {
    await host?.close();
    await receiver?.close();
    await dir?.cleanup();
  });

  it('dates what the host writes and the commits it makes with the clock', async () => {
    // Written while loading the fixtures: the accounts, issues and the token.
    const [user] = await host.admin.listUsers();
    expect(user!.created_at).toBe('2030-05-06T07:08:09.000Z');
    expect((await host.admin.listTokens('alice'))[0]!.created_at).toBe('2030-05-06T07:08:09.000Z');

    clock = new Date('2031-01-02T03:04:05.000Z');
    const issue = await http(`${host.url}/api/v1/repos/alice/project/issues`, { headers: alice, form: { title: 'Timed', body: 'b' } });
    expect(issue.json).toMatchObject({ created_at: '2031-01-02T03:04:05.000Z', updated_at: '2031-01-02T03:04:05.000Z' });
    const opened = host.events.waitFor('issue_comment');
    const comment = await http(`${host.url}/api/v1/repos/alice/project/issues/${issue.json.id}/comments`, { headers: alice, json: { body: 'later' } });
    expect(comment.json).toMatchObject({ created_at: '2031-01-02T03:04:05.000Z' });
    // The event payload is GitHub's shape: whole seconds (the spec's /api/v1 answer above keeps milliseconds).
    expect((await opened).comment.created_at).toBe('2031-01-02T03:04:05Z');

    // A merge commit: committer date from the clock, checked with git.
    clock = new Date('2032-03-04T05:06:07.000Z');
    const pull = (await http(`${host.url}/api/v1/repos/alice/project/pulls`)).json[0];
    const merged = await http(`${host.url}/api/v1/repos/alice/project/pulls/${pull.id}/merge`, { headers: alice, json: { method: 'merge' } });
    expect(merged.status).toBe(200);
    const clone = `${dir.path}/clone`;
    await sh(dir.path, ['clone', '-q', `${host.url}/alice/project.git`, clone]);
    expect(await sh(clone, ['show', '-s', '--format=%H %cI %P', 'origin/main'])).toBe(`${merged.json.sha} 2032-03-04T05:06:07+00:00 ${pull.base_sha} ${pull.head_sha}`);
    const closed = (await http(`${host.url}/api/v1/repos/alice/project/pulls/${pull.id}`)).json;
    expect(closed).toMatchObject({ status: 'merged', updated_at: '2032-03-04T05:06:07.000Z' });

    // Seeded commits too.
    await host.admin.seedRepo({ owner: 'alice', name: 'seeded' });
    await sh(clone, ['fetch', '-q', `${host.url}/alice/seeded.git`, 'main']);
    expect(await sh(clone, ['show', '-s', '--format=%aI %cI', 'FETCH_HEAD'])).toBe('2032-03-04T05:06:07+00:00 2032-03-04T05:06:07+00:00');
  });

  it('idle() resolves once a push has been delivered to its webhook, with times from the clock', async () => {
    clock = new Date('2033-01-01T00:00:00.000Z');
    await host.admin.createRepo({ owner: 'alice', name: 'pushed' });
    const hook = await http(`${host.url}/api/v1/repos/alice/pushed/hooks`, { headers: alice, json: { url: receiver.url, events: ['push'] } });
    expect(hook.status).toBe(201);
    // The receiver fails the first attempt: idle() waits for the retry as well.
    receiver.answerWith((index) => (index === 0 ? 500 : 200));
    await pushTwoBranches(host, 'alice', BOT_TOKEN, 'pushed');
    await host.idle();
    const pushes = receiver.received.filter((request) => request.headers['x-github-event'] === 'push');
    expect(pushes.length).toBe(2); // the refused attempt and its retry
    const deliveries = (await http(`${host.url}/api/v1/repos/alice/pushed/hooks/${hook.json.id}/deliveries`, { headers: alice })).json;
    expect(deliveries.every((delivery: { state: string }) => delivery.state !== 'pending')).toBe(true);
    expect(deliveries.find((delivery: { state: string }) => delivery.state === 'delivered')).toMatchObject({ created_at: '2033-01-01T00:00:00.000Z', delivered_at: '2033-01-01T00:00:00.000Z' });
  });

  it('rejects a clock that is not one', async () => {
    await expect(startHost({ now: 'noon' as never })).rejects.toThrow('option now must be a function returning a Date');
  });
});
