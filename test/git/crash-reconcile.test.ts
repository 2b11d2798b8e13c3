import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHostCore } from '../../lib/host.js';
import { readRefs } from '../../lib/git/refs.js';
import { recordedRefs } from '../../lib/store/queries/refs.js';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { HookReceiver } from '../helpers/receiver.js';
import { startCliServer, type ServerProcess } from '../cli/processes.js';
import { sh, WorkTree } from './fixtures.js';

const run = promisify(execFile);

async function push(dir: string, remote: string, ...refspecs: string[]): Promise<boolean> {
  return run('git', ['push', '-q', remote, ...refspecs], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' } }).then(
    () => true,
    () => false,
  );
}

/** Refs in the database against `git for-each-ref`, for every repository, read with the host stopped. */
async function compareAll(dbPath: string): Promise<Array<{ repo: string; recorded: Record<string, string>; onDisk: Record<string, string>; intents: number }>> {
  const core = await openHostCore({ dbPath });
  try {
    const rows = await core.ctx.store.all<{ id: number; name: string; owner: string }>('SELECT r.id, r.name, u.username AS owner FROM repositories r JOIN users u ON u.id = r.owner_id ORDER BY r.id');
    const result = [];
    for (const row of rows) {
      const onDisk = await readRefs(core.ctx.git.pathOf(row.owner, row.name));
      const intents = (await core.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM ref_intents WHERE repo_id = ?', [row.id]))!.n;
      result.push({ repo: `${row.owner}/${row.name}`, recorded: Object.fromEntries(await recordedRefs(core.ctx.store, row.id)), onDisk: Object.fromEntries(onDisk), intents });
    }
    return result;
  } finally {
    await core.close();
  }
}

/** Issue 17: the database and the repositories never disagree after a crash. */
describe('refs after a crash', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let receiver: HookReceiver;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = await tempDir('repohost-reconcile-');
    receiver = await HookReceiver.start();
  });

  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.kill('SIGKILL');
    await receiver?.close();
    await dir?.cleanup();
  });

  it('records at start what moved under an intent a crash left, announces it marked, and recomputes pull requests', async () => {
    const dbPath = join(dir.path, 'exact.db');
    const first = await startHost({ dbPath, allowLocalNetwork: true });
    let owner: TestUser;
    let topic: string;
    let pullId: number;
    try {
      owner = await newUser(first, 'owner');
      await newRepo(first, owner, 'app');
      const tree = await WorkTree.init(join(dir.path, 'app'));
      await tree.commit('base', { 'a.txt': 'a\n' });
      await tree.git(['checkout', '-q', '-b', 'topic']);
      topic = await tree.commit('topic', { 't.txt': 't\n' });
      const remote = new URL(`${first.url}/owner/app.git`);
      remote.username = 'owner';
      remote.password = owner.token;
      expect(await push(tree.dir, remote.toString(), 'main', 'topic')).toBe(true);
      const api = `${first.url}/api/v1/repos/owner/app`;
      pullId = (await http(`${api}/pulls`, { headers: bearer(owner.token), json: { title: 'Topic', head: 'topic', base: 'main' } })).json.id;
      await http(`${api}/hooks`, { headers: bearer(owner.token), json: { url: receiver.url, events: ['push', 'create'] } });
      await first.idle();
    } finally {
      await first.close();
    }
    // A crash after the intent was durable and git moved refs, before the record: made by hand here.
    const core = await openHostCore({ dbPath });
    const gitDir = core.ctx.git.pathOf('owner', 'app');
    await core.ctx.refUpdates.intend((await core.ctx.repos.findByName('owner', 'app'))!);
    await core.close();
    await sh(gitDir, ['update-ref', 'refs/heads/main', topic!]);
    await sh(gitDir, ['update-ref', 'refs/heads/extra', topic!]);
    await sh(gitDir, ['update-ref', 'refs/tags/v1', topic!]);
    receiver.received.length = 0;

    const second = await startHost({ dbPath, allowLocalNetwork: true });
    try {
      // Before the host answered anything, the database already followed git.
      const branches = (await http(`${second.url}/api/v1/repos/owner/app/branches`, { headers: bearer(owner!.token) })).json;
      expect(branches).toEqual([
        { name: 'extra', commit: topic! },
        { name: 'main', commit: topic! },
        { name: 'topic', commit: topic! },
      ]);
      // The pull request whose head reached its base by the lost push is merged, as after any push.
      await second.idle();
      expect((await http(`${second.url}/api/v1/repos/owner/app/pulls/${pullId!}`, { headers: bearer(owner!.token) })).json.status).toBe('merged');
      const pushes = await receiver.waitFor((request) => request.headers['x-github-event'] === 'push', 3, 10_000);
      expect(pushes.map((request) => request.json.ref).sort()).toEqual(['refs/heads/extra', 'refs/heads/main', 'refs/tags/v1']);
      expect(pushes.every((request) => request.json.repohost_reconciled === true)).toBe(true);
      expect(pushes.find((request) => request.json.ref === 'refs/heads/main')!.json).toMatchObject({ after: topic!, created: false });
    } finally {
      await second.close();
    }
    for (const repo of await compareAll(dbPath)) {
      expect(repo.recorded).toEqual(repo.onDisk);
      expect(repo.intents).toBe(0);
    }
  });

  it('SIGKILLed at random points during pushes, merges and API writes: every acknowledged change survives, refs match git, each push is delivered', async () => {
    const dbPath = join(dir.path, 'crash.db');
    const start = async () => {
      const server = await startCliServer(['--db', dbPath, '--allow-local-network']);
      servers.push(server);
      return server;
    };
    receiver.received.length = 0;
    try {
      let server = await start();
      const host = { url: server.url } as RepoHost;
      const owner = await newUser(host, 'owner');
      await newRepo(host, owner, 'crash');
      await http(`${server.url}/api/v1/repos/owner/crash/hooks`, { headers: bearer(owner.token), json: { url: receiver.url, events: ['push'] } });
      const tree = await WorkTree.init(join(dir.path, 'crash'));
      await tree.commit('base', { 'base.txt': 'base\n' });
      const remoteOf = (url: string) => {
        const remote = new URL(`${url}/owner/crash.git`);
        remote.username = 'owner';
        remote.password = owner.token;
        return remote.toString();
      };
      expect(await push(tree.dir, remoteOf(server.url), 'main')).toBe(true);

      const pushed = new Map<string, string>();
      const merged: Array<{ id: number; sha: string }> = [];
      const issues: number[] = [];
      const ROUNDS = 20;
      for (let round = 0; round < ROUNDS; round++) {
        const url = server.url;
        const api = `${url}/api/v1/repos/owner/crash`;
        let stop = false;
        let acknowledged = () => {};
        const firstPush = new Promise<void>((resolve) => (acknowledged = resolve));
        const pushing = (async () => {
          for (let i = 0; !stop; i++) {
            const branch = `r${round}-p${i}`;
            await tree.git(['checkout', '-q', '-B', branch, 'main']);
            const sha = await tree.commit(`${branch}`, { [`${branch}.txt`]: `${branch}\n` });
            if (await push(tree.dir, remoteOf(url), branch)) {
              pushed.set(branch, sha);
              acknowledged();
            } else break;
          }
        })();
        const merging = (async () => {
          // Each branch this round pushed becomes a pull request that is merged at once.
          const tried = new Set<string>();
          while (!stop) {
            const head = [...pushed.keys()].find((branch) => branch.startsWith(`r${round}-`) && !tried.has(branch));
            if (!head) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              continue;
            }
            tried.add(head);
            const pull = await http(`${api}/pulls`, { headers: bearer(owner.token), json: { title: `merge ${head}`, head, base: 'main' } }).catch(() => undefined);
            if (pull?.status !== 200) continue;
            const merge = await http(`${api}/pulls/${pull.json.id}/merge`, { headers: bearer(owner.token), json: { method: 'merge' } }).catch(() => undefined);
            if (merge?.status === 200) merged.push({ id: pull.json.id, sha: merge.json.sha });
          }
        })();
        const writing = (async () => {
          while (!stop) {
            const issue = await http(`${api}/issues`, { headers: bearer(owner.token), json: { title: `round ${round}` } }).catch(() => undefined);
            if (!issue) break;
            if (issue.status === 200) issues.push(issue.json.id);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        })();
        // Killed at a random point once the round had a push acknowledged (on a loaded machine one push may take more
        // than a second): the kill falls among the round's later pushes, merges and writes.
        await Promise.race([firstPush, new Promise((resolve) => setTimeout(resolve, 15_000))]);
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 750)));
        await server.kill('SIGKILL');
        stop = true;
        await Promise.all([pushing, merging, writing]);
        server = await start();
      }
      // Let the last server deliver what is pending, then stop it cleanly and read the files.
      const host2 = { url: server.url };
      const api = `${host2.url}/api/v1/repos/owner/crash`;
      const branches = new Map<string, string>();
      for (let page = 1; ; page++) {
        const batch = (await http(`${api}/branches?limit=100&page=${page}`, { headers: bearer(owner.token) })).json as Array<{ name: string; commit: string }>;
        for (const branch of batch) branches.set(branch.name, branch.commit);
        if (batch.length < 100) break;
      }
      expect(pushed.size).toBeGreaterThan(ROUNDS / 4);
      expect(merged.length).toBeGreaterThan(0);
      for (const [branch, sha] of pushed) expect(branches.get(branch), branch).toBe(sha);
      for (const merge of merged) expect((await http(`${api}/pulls/${merge.id}`, { headers: bearer(owner.token) })).json.status).toBe('merged');
      const gitDir = join(dir.path, 'crash-data', 'repositories', 'owner', 'crash.git');
      for (const merge of merged) await sh(gitDir, ['merge-base', '--is-ancestor', merge.sha, 'refs/heads/main']);
      for (const id of issues) expect((await http(`${api}/issues/${id}`, { headers: bearer(owner.token) })).status).toBe(200);
      // Every acknowledged push reached the receiver, each under one delivery id however often it was sent.
      const deliveries = async () => {
        const ids = new Map<string, Set<string>>();
        for (const request of receiver.received) {
          if (request.headers['x-github-event'] !== 'push') continue;
          const key = `${request.json.ref} ${request.json.after}`;
          if (!ids.has(key)) ids.set(key, new Set());
          ids.get(key)!.add(String(request.headers['x-github-delivery']));
        }
        return ids;
      };
      const undelivered = () => [...pushed].filter(([branch, sha]) => !receiver.received.some((r) => r.json?.ref === `refs/heads/${branch}` && r.json?.after === sha));
      await expect.poll(() => undelivered().length, { timeout: 30_000, interval: 500 }).toBe(0);
      const ids = await deliveries();
      for (const [branch, sha] of pushed) expect(ids.get(`refs/heads/${branch} ${sha}`)?.size, branch).toBe(1);
      await server.kill('SIGTERM');
      for (const repo of await compareAll(dbPath)) {
        expect(repo.recorded, repo.repo).toEqual(repo.onDisk);
        expect(repo.intents).toBe(0);
      }
    } finally {
      for (const server of servers) if (server.child.exitCode === null && server.child.signalCode === null) await server.kill('SIGKILL');
    }
  }, 180_000);
});
