import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCliServer, type ServerProcess } from '../cli/processes.js';
import { Clone } from '../helpers/clone.js';
import { bearer, http, tempDir } from '../helpers/host.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { HookReceiver } from '../helpers/receiver.js';

const exec = promisify(execFile);

/** Polls `check` until it holds or `withinMs` passed; answers whether it held. */
async function eventually(check: () => boolean | Promise<boolean>, withinMs: number): Promise<boolean> {
  for (const deadline = Date.now() + withinMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) if (await check()) return true;
  return await check();
}

// Issue 19: three `repohost serve` instances on one PostgreSQL database and one data folder, bounded mixed load
// through all three (issues, pushes, a merge, clones, webhooks), one of them SIGKILLed mid-load and started again.
// Afterwards every acknowledged write is readable through every instance, the recorded refs equal git's, every event
// of an acknowledged write reached the receiver at least once under one delivery id, and a push through one instance
// shows at once in a listing through another.
describe('three instances on PostgreSQL, one killed mid-load (issue 19)', () => {
  let postgres: PostgresServer;
  let data: { path: string; cleanup: () => Promise<void> };
  let receiver: HookReceiver;
  const instances: ServerProcess[] = [];
  let args: string[];
  let token: string;

  const start = async () => startCliServer([...args]);

  beforeAll(async () => {
    postgres = await startPostgres();
    data = await tempDir('repohost-instances-');
    receiver = await HookReceiver.start();
    const url = await postgres.createDatabase();
    args = ['--database-url', url, '--data', join(data.path, 'data'), '--allow-local-network'];
    instances.push(await start());
    instances.push(...(await Promise.all([start(), start()])));
    const added = await runCli(['user', 'add', 'alice', '--email', 'alice@example.com', '--password-stdin', '--database-url', url, '--data', join(data.path, 'data')], { input: 'password123\n' });
    expect(added.code, added.stderr).toBe(0);
    const minted = await runCli(['token', 'create', 'alice', '--name', 'load', '--database-url', url, '--data', join(data.path, 'data')]);
    expect(minted.code, minted.stderr).toBe(0);
    token = minted.stdout.trim();
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) if (instance.child.exitCode === null && instance.child.signalCode === null) await instance.kill('SIGKILL');
    await receiver?.close();
    await postgres?.stop();
    await data?.cleanup();
  });

  it('keeps every acknowledged write, the refs and the deliveries through a SIGKILL', async () => {
    const [a, , c] = instances as [ServerProcess, ServerProcess, ServerProcess];
    const api = (instance: ServerProcess, path: string) => `${instance.url}/api/v3/repos/alice/app${path}`;
    expect((await http(`${a.url}/api/v3/user/repos`, { headers: bearer(token), json: { name: 'app' } })).status).toBe(201);
    const hook = await http(api(a, '/hooks'), { headers: bearer(token), json: { config: { url: receiver.url, content_type: 'json' }, events: ['issues', 'push'] } });
    expect(hook.status, hook.text).toBeLessThan(300);

    // A clone pushes its main through instance a, so there is something to branch from.
    const home = join(data.path, 'home');
    const clone = await Clone.of({ url: a.url } as never, { username: 'alice', token } as never, 'app', join(data.path, 'clone'), home);
    await clone.commit('root', { 'README.md': 'hello\n' });
    await clone.git('push', '-q', 'origin', 'main');

    // Bounded mixed load, round robin over the three, with b killed once half of it is under way.
    const acknowledged: number[] = [];
    const pushed = new Map<string, string>();
    const remote = (instance: ServerProcess) => {
      const url = new URL(`${instance.url}/alice/app.git`);
      url.username = 'alice';
      url.password = token;
      return url.toString();
    };
    const work = Array.from({ length: 24 }, (_, index) => async () => {
      const instance = instances[index % 3]!;
      if (index % 4 === 3) {
        // A branch pushed through this instance.
        const branch = `topic-${index}`;
        await clone.git('checkout', '-q', '-B', branch, 'main');
        const sha = await clone.commit(`work ${index}`, { [`f${index}.txt`]: `${index}\n` });
        try {
          await clone.git('push', '-q', remote(instance), `${branch}:refs/heads/${branch}`);
          pushed.set(branch, sha);
        } catch {
          /* a push to the instance being killed is not acknowledged */
        }
        return;
      }
      const created = await http(api(instance, '/issues'), { headers: bearer(token), json: { title: `load ${index}` } }).catch(() => undefined);
      if (created?.status === 201) acknowledged.push((created.json as { number: number }).number);
    });
    let killed: Promise<number | string> | undefined;
    for (const [index, task] of work.entries()) {
      if (index === 12) killed = instances[1]!.kill('SIGKILL');
      await task();
    }
    expect(await killed).toBe('SIGKILL');
    instances[1] = await start();

    // A pull request merged through the restarted instance.
    const merged = [...pushed.keys()][0]!;
    const pull = await http(api(instances[1]!, '/pulls'), { headers: bearer(token), json: { title: 'Merge it', head: merged, base: 'main' } });
    expect(pull.status, pull.text).toBe(201);
    const merge = await http(api(c, `/pulls/${(pull.json as { number: number }).number}/merge`), { method: 'PUT', headers: bearer(token), json: { merge_method: 'merge' } });
    expect(merge.status, merge.text).toBe(200);

    // Every acknowledged issue, through every instance.
    expect(acknowledged.length).toBeGreaterThan(10);
    for (const instance of instances) {
      for (const issue of acknowledged) expect((await http(api(instance, `/issues/${issue}`), { headers: bearer(token) })).status).toBe(200);
    }
    // The refs the database holds are git's.
    const gitDir = join(data.path, 'data', 'repositories', 'alice', 'app.git');
    const onDisk = new Map(
      (await exec('git', ['--git-dir', gitDir, 'for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads/'])).stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    for (const instance of instances) {
      const branches = await http(`${api(instance, '/branches')}?per_page=100`, { headers: bearer(token) });
      const recorded = new Map((branches.json as Array<{ name: string; commit: { sha: string } }>).map((branch) => [branch.name, branch.commit.sha]));
      expect(recorded).toEqual(onDisk);
    }
    for (const [branch, sha] of pushed) expect(onDisk.get(branch)).toBe(sha);

    // Every acknowledged issue's event arrived at least once (a dead sender is taken over within 5 s); each delivery
    // id always with the same payload.
    const delivered = () => new Set(receiver.ofEvent('issues').map((request) => (request.json as { issue: { number: number } }).issue.number));
    const missing = () => acknowledged.filter((issue) => !delivered().has(issue));
    expect(await eventually(() => missing().length === 0, 20_000), `no delivery for issues ${missing().join(', ')}`).toBe(true);
    const byDelivery = new Map<string, string>();
    for (const request of receiver.received) {
      const id = String(request.headers['x-github-delivery']);
      const body = request.body.toString('utf8');
      expect(byDelivery.get(id) ?? body).toBe(body);
      byDelivery.set(id, body);
    }

    // A push through one instance shows at once in a listing through another.
    await clone.git('checkout', '-q', '-B', 'late', 'main');
    const late = await clone.commit('late', { 'late.txt': 'late\n' });
    await clone.git('push', '-q', remote(a), 'late:refs/heads/late');
    const listed = await http(`${api(c, '/branches')}?per_page=100`, { headers: bearer(token) });
    expect((listed.json as Array<{ name: string; commit: { sha: string } }>).find((branch) => branch.name === 'late')?.commit.sha).toBe(late);
  }, 180_000);
});
