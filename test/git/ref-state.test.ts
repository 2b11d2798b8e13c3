import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { openHostCore } from '../../lib/host.js';
import { createApp } from '../../lib/http/app.js';
import { closeListener, listenStrict, nodeHandlerOf } from '../../lib/http/node-listener.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { sh, WorkTree } from './fixtures.js';

const run = promisify(execFile);

/** What `git push` printed, and whether it succeeded. */
async function pushFrom(dir: string, remote: string, ...refspecs: string[]): Promise<{ ok: boolean; output: string }> {
  return run('git', ['push', '--porcelain', remote, ...refspecs], { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' } }).then(
    ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
    (error: { stdout: string; stderr: string }) => ({ ok: false, output: error.stdout + error.stderr }),
  );
}

function pktLine(text: string): Buffer {
  return Buffer.from((text.length + 4).toString(16).padStart(4, '0') + text, 'latin1');
}

/**
 * A receive-pack request written by hand, so a test can hold the upload half-way: the ref update, then the pack in
 * two parts, the second sent once `release` is called.
 */
async function heldPush(url: string, auth: string, update: { before: string; after: string; ref: string }, pack: Buffer, signal?: AbortSignal) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const half = Math.floor(pack.length / 2);
  async function* body() {
    yield Buffer.concat([pktLine(`${update.before} ${update.after} ${update.ref}\0report-status side-band-64k\n`), Buffer.from('0000')]);
    yield pack.subarray(0, half);
    await released;
    yield pack.subarray(half);
  }
  const answer = request(`${url}/git-receive-pack`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-git-receive-pack-request', authorization: `Basic ${Buffer.from(auth).toString('base64')}` },
    body: Readable.from(body()),
    signal,
  }).then(async (response) => ({ status: response.statusCode, text: await response.body.text() }));
  return { release, answer };
}

async function packOf(dir: string, include: string, exclude: string): Promise<Buffer> {
  const { stdout } = await new Promise<{ stdout: Buffer }>((resolve, reject) => {
    const child = execFile('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: dir, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, out) => (error ? reject(error) : resolve({ stdout: out })));
    child.stdin!.end(`${include}\n^${exclude}\n`);
  });
  return stdout;
}

/** Exact git state (issue 17): pushes recorded from git's own list, rules read as refs move, merges and protection. */
describe('refs recorded exactly', () => {
  let host: RepoHost;
  let owner: TestUser;
  let work: { path: string; cleanup: () => Promise<void> };
  const remote = (repo: string, user: TestUser = owner) => {
    const url = new URL(`${host.url}/${owner.username}/${repo}.git`);
    url.username = user.username;
    url.password = user.token;
    return url.toString();
  };
  const branches = async (repo: string) =>
    Object.fromEntries(((await http(`${host.url}/api/v1/repos/${owner.username}/${repo}/branches?limit=100`, { headers: bearer(owner.token) })).json as Array<{ name: string; commit: string }>).map((b) => [b.name, b.commit]));
  const lsRemote = async (repo: string) => {
    const out = await sh(work.path, ['ls-remote', '--heads', remote(repo)]);
    return Object.fromEntries(out.split('\n').filter(Boolean).map((line) => line.split('\t').reverse()).map(([ref, sha]) => [ref!.replace('refs/heads/', ''), sha]));
  };

  beforeAll(async () => {
    host = await startHost({ gitIdleTimeoutMs: 1500 });
    owner = await newUser(host, 'owner');
    work = await tempDir('repohost-refstate-');
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('reports each of two racing pushes to one repository exactly once, as git moved the refs', async () => {
    await newRepo(host, owner, 'race');
    const a = await WorkTree.init(join(work.path, 'race-a'));
    await a.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(a.dir, remote('race'), 'main')).ok).toBe(true);
    const b = join(work.path, 'race-b');
    await sh(work.path, ['clone', '-q', remote('race'), b]);
    const seen: Array<{ ref: string; before: string; after: string }> = [];
    const stop = host.events.on('push', (payload) => void seen.push({ ref: payload.ref, before: payload.before, after: payload.after }));
    try {
      const expected: Array<{ ref: string; after: string }> = [];
      for (let round = 0; round < 12; round++) {
        const tipA = await a.commit(`a ${round}`, { [`a-${round}.txt`]: `${round}\n` });
        await sh(b, ['-c', 'user.name=B', '-c', 'user.email=b@example.com', 'commit', '-q', '--allow-empty', '-m', `b ${round}`]);
        const tipB = await sh(b, ['rev-parse', 'HEAD']);
        // Two pushes at once, to two branches (every third round to the same new branch: one of them loses).
        const shared = round % 3 === 0;
        const targetA = shared ? `shared-${round}` : `a-${round}`;
        const targetB = shared ? `shared-${round}` : `b-${round}`;
        const [pa, pb] = await Promise.all([pushFrom(a.dir, remote('race'), `HEAD:refs/heads/${targetA}`), pushFrom(b, remote('race'), `HEAD:refs/heads/${targetB}`)]);
        if (pa.ok) expected.push({ ref: `refs/heads/${targetA}`, after: tipA });
        if (pb.ok) expected.push({ ref: `refs/heads/${targetB}`, after: tipB });
        expect(pa.ok || pb.ok).toBe(true);
      }
      await host.idle();
      // Each landed update once, nothing else (before: a diff of the refs around each push also saw the other's).
      const pushed = seen.filter((event) => event.ref !== 'refs/heads/main');
      expect(pushed.map(({ ref, after }) => ({ ref, after })).sort((x, y) => x.ref.localeCompare(y.ref))).toEqual(expected.sort((x, y) => x.ref.localeCompare(y.ref)));
      expect(pushed.every((event) => /^0+$/.test(event.before))).toBe(true);
      expect(await branches('race')).toEqual(await lsRemote('race'));
    } finally {
      stop();
    }
  });

  it('applies a protection rule saved while a push is still uploading', async () => {
    await newRepo(host, owner, 'held');
    const tree = await WorkTree.init(join(work.path, 'held'));
    const base = await tree.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(tree.dir, remote('held'), 'main')).ok).toBe(true);
    const next = await tree.commit('direct', { 'big.bin': 'x'.repeat(200_000) + Math.random() });
    const pack = await packOf(tree.dir, next, base);
    const push = await heldPush(`${host.url}/owner/held.git`, `owner:${owner.token}`, { before: base, after: next, ref: 'refs/heads/main' }, pack);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rule = await http(`${host.url}/api/v1/repos/owner/held/branch_protections/main`, { method: 'PUT', headers: bearer(owner.token), json: { require_pull_request: true } });
    expect(rule.status).toBe(200);
    push.release();
    const answer = await push.answer;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('changes reach it through pull requests only');
    expect(answer.text).toMatch(/ng refs\/heads\/main/);
    expect((await branches('held')).main).toBe(base);
    expect((await lsRemote('held')).main).toBe(base);
  });

  it('moves the refs of a small push with no rule to check without its hook; one with a rule still asks it', async () => {
    // One instance (sql.js) admits such a push itself; with several (PostgreSQL) every push's hook reads the rules.
    const severalInstances = process.env.REPOHOST_TEST_POSTGRES_URL !== undefined;
    for (const name of ['free', 'ruled']) await newRepo(host, owner, name);
    const free = await WorkTree.init(join(work.path, 'free'));
    await free.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(free.dir, remote('free'), 'main')).ok).toBe(true);
    const ruled = await WorkTree.init(join(work.path, 'ruled'));
    await ruled.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(ruled.dir, remote('ruled'), 'main')).ok).toBe(true);
    expect((await http(`${host.url}/api/v1/repos/owner/ruled/branch_protections/main`, { method: 'PUT', headers: bearer(owner.token), json: { allow_deletion: false } })).status).toBe(200);
    // Hooks that refuse everything: whoever still runs them is refused.
    const hooks = join(host.options.dataDir, 'repositories', '.hooks');
    const originals = await Promise.all(['whole', 'per-ref'].map(async (folder) => [join(hooks, folder, 'pre-receive'), await readFile(join(hooks, folder, 'pre-receive'), 'utf8')] as const));
    try {
      for (const [path] of originals) await writeFile(path, '#!/bin/sh\necho "the hook ran" >&2\nexit 1\n');
      const next = await free.commit('small', { 'b.txt': 'b\n' });
      const unchecked = await pushFrom(free.dir, remote('free'), 'main');
      expect(unchecked.ok).toBe(!severalInstances);
      expect((await branches('free')).main === next).toBe(!severalInstances);
      expect(await branches('free')).toEqual(await lsRemote('free'));
      await ruled.commit('small', { 'b.txt': 'b\n' });
      const checked = await pushFrom(ruled.dir, remote('ruled'), 'main');
      expect(checked.ok).toBe(false);
      expect(checked.output).toContain('the hook ran');
    } finally {
      for (const [path, text] of originals) await writeFile(path, text);
    }
  });

  it('records what git did when one push names a ref twice (one of its two commands lands, the other is refused)', async () => {
    await newRepo(host, owner, 'twice');
    const tree = await WorkTree.init(join(work.path, 'twice'));
    const base = await tree.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(tree.dir, remote('twice'), 'main', 'main:refs/heads/x')).ok).toBe(true);
    const b = await tree.commit('b', { 'b.txt': 'b\n' });
    await sh(tree.dir, ['reset', '-q', '--hard', base]);
    const c = await tree.commit('c', { 'c.txt': 'c\n' });
    const { stdout: pack } = await new Promise<{ stdout: Buffer }>((resolve, reject) => {
      const child = execFile('git', ['pack-objects', '--stdout', '--revs', '-q'], { cwd: tree.dir, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, out) => (error ? reject(error) : resolve({ stdout: out })));
      child.stdin!.end(`${b}\n${c}\n^${base}\n`);
    });
    const body = Buffer.concat([pktLine(`${base} ${b} refs/heads/x\0report-status\n`), pktLine(`${base} ${c} refs/heads/x\n`), Buffer.from('0000'), pack]);
    const answer = await request(`${host.url}/owner/twice.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request', authorization: `Basic ${Buffer.from(`owner:${owner.token}`).toString('base64')}` },
      body,
    });
    expect(answer.statusCode).toBe(200);
    await answer.body.text();
    // git says `ok` for x once and `ng` once; the record follows git's refs, not the later command.
    const onDisk = (await lsRemote('twice')).x;
    expect([b, c]).toContain(onDisk);
    for (let tries = 0; (await branches('twice')).x !== onDisk && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await branches('twice')).toEqual(await lsRemote('twice'));
  });

  it('never takes a ref back when two records of it cross (a late record of an older push), and compares with git', async () => {
    const core = await openHostCore({ bcryptCost: 4 });
    const listener = await listenStrict(nodeHandlerOf(createApp(core.ctx, () => undefined), Promise.resolve(true)), 0, '127.0.0.1');
    const url = `http://127.0.0.1:${listener.address.port}`;
    core.setBaseUrl(url);
    const dir = await tempDir('repohost-crossed-');
    try {
      await core.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      const token = await core.admin.createToken('owner');
      await core.admin.createRepo({ owner: 'owner', name: 'crossed' });
      const remoteUrl = `http://owner:${token}@127.0.0.1:${listener.address.port}/owner/crossed.git`;
      const tree = await WorkTree.init(join(dir.path, 'crossed'));
      const base = await tree.commit('base', { 'a.txt': 'a\n' });
      expect((await pushFrom(tree.dir, remoteUrl, 'main')).ok).toBe(true);
      const a = await tree.commit('a', { 'b.txt': 'b\n' });
      expect((await pushFrom(tree.dir, remoteUrl, 'main')).ok).toBe(true);
      const b = await tree.commit('b', { 'c.txt': 'c\n' });
      expect((await pushFrom(tree.dir, remoteUrl, 'main')).ok).toBe(true);
      // The record of the push base→a arrives now, after the one of a→b: as if its commits had taken long to read.
      const repo = (await core.ctx.repos.findByName('owner', 'crossed'))!;
      await core.ctx.refUpdates.recordChanges(repo, [{ ref: 'refs/heads/main', before: base, after: a }], 'main', undefined, await core.ctx.refUpdates.intend(repo));
      for (let tries = 0; tries < 50 && (await core.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM ref_intents'))!.n > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await core.ctx.store.get<{ sha: string }>("SELECT commit_sha AS sha FROM branches WHERE name = 'main'"))!.sha).toBe(b);
      expect((await core.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM ref_intents'))!.n).toBe(0);
    } finally {
      await closeListener(listener);
      await core.close();
      await dir.cleanup();
    }
  });

  it('refuses a branch named HEAD, as GitHub does', async () => {
    await newRepo(host, owner, 'headname');
    const tree = await WorkTree.init(join(work.path, 'headname'));
    await tree.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(tree.dir, remote('headname'), 'main')).ok).toBe(true);
    const refused = await pushFrom(tree.dir, remote('headname'), 'main:refs/heads/HEAD');
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain('refusing to create a branch named HEAD');
    expect(Object.keys(await lsRemote('headname'))).toEqual(['main']);
    expect(Object.keys(await branches('headname'))).toEqual(['main']);
  });

  it('removes the quarantine folder of a push that was cut off (on PostgreSQL, once it is an hour old)', async () => {
    await newRepo(host, owner, 'cutoff');
    const tree = await WorkTree.init(join(work.path, 'cutoff'));
    const base = await tree.commit('base', { 'a.txt': 'a\n' });
    expect((await pushFrom(tree.dir, remote('cutoff'), 'main')).ok).toBe(true);
    const next = await tree.commit('large', { 'big.bin': 'y'.repeat(300_000) + Math.random() });
    const pack = await packOf(tree.dir, next, base);
    // The second half never comes: the idle limit kills receive-pack (SIGKILL leaves git no time to clean up).
    const client = new AbortController();
    const push = await heldPush(`${host.url}/owner/cutoff.git`, `owner:${owner.token}`, { before: base, after: next, ref: 'refs/heads/main' }, pack, client.signal);
    push.answer.catch(() => undefined);
    const objects = join(host.options.dataDir, 'repositories', 'owner', 'cutoff.git', 'objects');
    const quarantines = async () => (await readdir(objects)).filter((name) => name.startsWith('tmp_objdir-incoming-'));
    try {
      await expect.poll(quarantines, { timeout: 5000 }).toHaveLength(1);
      if (host.options.databaseUrl === undefined) await expect.poll(quarantines, { timeout: 8000 }).toEqual([]);
      else {
        // On PostgreSQL other instances may share the folder and be receiving into theirs: a young quarantine stays
        // (removed once an hour old). Checked well after the idle limit (1.5 s) cut the push off and its clean-up ran.
        await new Promise((resolve) => setTimeout(resolve, 4000));
        expect(await quarantines()).toHaveLength(1);
      }
    } finally {
      client.abort();
    }
    expect((await branches('cutoff')).main).toBe(base);
  });

  it('keeps a protected head branch that a merge was asked to delete', async () => {
    await newRepo(host, owner, 'keep');
    const tree = await WorkTree.init(join(work.path, 'keep'));
    await tree.commit('base', { 'a.txt': 'a\n' });
    await tree.git(['checkout', '-q', '-b', 'topic']);
    const topic = await tree.commit('topic', { 't.txt': 't\n' });
    expect((await pushFrom(tree.dir, remote('keep'), 'main', 'topic')).ok).toBe(true);
    const api = `${host.url}/api/v1/repos/owner/keep`;
    expect((await http(`${api}/branch_protections/topic`, { method: 'PUT', headers: bearer(owner.token), json: { allow_deletion: false } })).status).toBe(200);
    const pull = await http(`${api}/pulls`, { headers: bearer(owner.token), json: { title: 'Topic', head: 'topic', base: 'main' } });
    const merged = await http(`${api}/pulls/${pull.json.id}/merge`, { headers: bearer(owner.token), json: { method: 'merge', delete_branch: true } });
    expect(merged.status).toBe(200);
    expect((await lsRemote('keep')).topic).toBe(topic);
    expect((await branches('keep')).topic).toBe(topic);
  });

  it('answers 404 or 409, never 500, to merges racing a delete or a rename of their repository', async () => {
    const tree = await WorkTree.init(join(work.path, 'racing-merges'));
    await tree.commit('base', { 'a.txt': 'a\n' });
    const topics = ['t1', 't2', 't3', 't4'];
    for (const topic of topics) {
      await tree.git(['checkout', '-q', '-B', topic, 'main']);
      await tree.commit(topic, { [`${topic}.txt`]: `${topic}\n` });
    }
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const name = `merge-race-${round}`;
      await newRepo(host, owner, name);
      expect((await pushFrom(tree.dir, remote(name), 'main', ...topics)).ok).toBe(true);
      const api = `${host.url}/api/v1/repos/owner/${name}`;
      const pulls = await Promise.all(topics.map((head) => http(`${api}/pulls`, { headers: bearer(owner.token), json: { title: head, head, base: 'main' } })));
      const merges = pulls.map((pull) => http(`${api}/pulls/${pull.json.id}/merge`, { headers: bearer(owner.token), json: { method: 'merge' } }));
      await new Promise((resolve) => setTimeout(resolve, round * 3));
      const rival = round % 2 === 0 ? http(api, { method: 'DELETE', headers: bearer(owner.token) }) : http(api, { method: 'PATCH', headers: bearer(owner.token), json: { name: `${name}-renamed` } });
      const answers = await Promise.all([...merges, rival]);
      statuses.push(...answers.map((answer) => answer.status));
      for (const merge of answers.slice(0, -1)) expect([200, 404, 405, 409]).toContain(merge.status);
    }
    expect(statuses).not.toContain(500);
  });
});

/** A push notes its intent as its upload begins (off the pusher's wait), so a push that never reaches its hook must take it back. */
describe('the intent of a push', () => {
  it('is noted while the pack arrives and taken back when the push is cut off before its hook asked', async () => {
    const core = await openHostCore({ gitIdleTimeoutMs: 1500, bcryptCost: 4 });
    const listener = await listenStrict(nodeHandlerOf(createApp(core.ctx, () => undefined), Promise.resolve(true)), 0, '127.0.0.1');
    const url = `http://127.0.0.1:${listener.address.port}`;
    core.setBaseUrl(url);
    const work = await tempDir('repohost-intent-');
    try {
      await core.admin.createUser({ username: 'owner', email: 'owner@example.com', password: 'password123' });
      const token = await core.admin.createToken('owner');
      await core.admin.createRepo({ owner: 'owner', name: 'held' });
      const repoId = (await core.ctx.repos.findByName('owner', 'held'))!.id;
      const intents = async () => (await core.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM ref_intents WHERE repo_id = ?', [repoId]))!.n;
      const tree = await WorkTree.init(join(work.path, 'held'));
      const base = await tree.commit('base', { 'a.txt': 'a\n' });
      expect((await pushFrom(tree.dir, `http://owner:${token}@127.0.0.1:${listener.address.port}/owner/held.git`, 'main')).ok).toBe(true);
      expect(await intents()).toBe(0);
      const next = await tree.commit('large', { 'big.bin': 'z'.repeat(300_000) + Math.random() });
      const client = new AbortController();
      const push = await heldPush(`${url}/owner/held.git`, `owner:${token}`, { before: base, after: next, ref: 'refs/heads/main' }, await packOf(tree.dir, next, base), client.signal);
      push.answer.catch(() => undefined);
      try {
        // Half the pack is in, the hook has not run: the intent is on disk already.
        await expect.poll(intents, { timeout: 5000 }).toBe(1);
        // The idle limit ends receive-pack before its hook ran: nothing moved, and the intent goes.
        await expect.poll(intents, { timeout: 8000 }).toBe(0);
      } finally {
        client.abort();
      }
      expect((await core.ctx.store.get<{ commit_sha: string }>("SELECT commit_sha FROM branches WHERE repo_id = ? AND name = 'main'", [repoId]))!.commit_sha).toBe(base);
    } finally {
      await closeListener(listener);
      await core.close();
      await work.cleanup();
    }
  });
});
