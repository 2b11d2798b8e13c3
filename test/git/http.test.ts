import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateSync, gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { cookie, http, startHost } from '../helpers/host.js';
import { buildTrickyHistory, sh, WorkTree } from './fixtures.js';

const exec = promisify(execFile);

let host: RepoHost;
let temp: string;
let alice: TestUser;
let bob: TestUser;

/** Runs git and returns stdout and stderr, or the failure with its stderr. */
async function gitRun(cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LANG: 'C', ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ok: true, stdout: stdout.trim(), stderr };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    return { ok: false, stdout: String(failure.stdout ?? '').trim(), stderr: String(failure.stderr ?? '') };
  }
}

function remote(owner: string, repo: string, user?: string, secret?: string): string {
  const url = new URL(`${host.url}/${owner}/${repo}.git`);
  if (user) url.username = user;
  if (secret) url.password = secret;
  return url.toString();
}

async function counts(user: TestUser, owner: string, repo: string, branch: string): Promise<{ branches: unknown; commits: unknown }> {
  const branches = await http(`${host.url}/api/v1/${owner}/${repo}/branches/count`, { headers: cookie(user.session) });
  const commits = await http(`${host.url}/api/v1/${owner}/${repo}/${branch}/commits/count`, { headers: cookie(user.session) });
  return { branches: branches.json, commits: commits.json };
}

/** git processes started by this test process; with `dataDir`, only those working in that host's repositories. */
async function gitChildren(dataDir?: string): Promise<string[]> {
  const lines = await exec('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)]).then(
    ({ stdout }) => stdout.split('\n').filter((line) => /\bgit\b/.test(line)),
    () => [],
  );
  if (!dataDir) return lines;
  const mine = await Promise.all(
    lines.map(async (line) => {
      // The other hosts of this file run their own background upkeep: tell them apart by GIT_DIR.
      const environ = await readFile(`/proc/${line.trim().split(/\s+/)[0]}/environ`, 'utf8').catch(() => '');
      return environ.split('\0').some((entry) => entry.startsWith(`GIT_DIR=${dataDir}`));
    }),
  );
  return lines.filter((_line, index) => mine[index]);
}

/** The upload-pack / pack-objects children still running after waiting up to 5 s for them to end. */
async function transfersLeftAfterWaiting(): Promise<string[]> {
  let left: string[] = [];
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = (await gitChildren()).filter((line) => /upload-pack|pack-objects/.test(line));
    if (left.length === 0) break;
  }
  return left;
}

let work: WorkTree;

beforeAll(async () => {
  host = await startHost();
  temp = await mkdtemp(join(tmpdir(), 'repohost-git-http-'));
  alice = await newUser(host, 'alice');
  bob = await newUser(host, 'bob');
  await newRepo(host, alice, 'project');
  await newRepo(host, alice, 'secret', 'private');
  work = await buildTrickyHistory(join(temp, 'work'));
});

afterAll(async () => {
  await host?.close();
  await rm(temp, { recursive: true, force: true });
});

describe('git smart HTTP', () => {
  it('pushes several branches with username + API token, and the counts see them', async () => {
    const pushed = await gitRun(work.dir, ['push', remote('alice', 'project', 'alice', alice.token), 'main', 'feature', 'pick', 'conflict']);
    expect(pushed.stderr).not.toContain('error');
    expect(pushed.ok).toBe(true);
    const listed = await gitRun(temp, ['ls-remote', remote('alice', 'project')]);
    expect(listed.ok).toBe(true);
    expect(listed.stdout).toContain(`${await sh(work.dir, ['rev-parse', 'main'])}\trefs/heads/main`);
    expect(listed.stdout).toContain('refs/heads/feature');
    expect(await counts(alice, 'alice', 'project', 'main')).toEqual({
      branches: { success: true, result: 4 },
      commits: { success: true, result: Number(await sh(work.dir, ['rev-list', '--count', 'main'])) },
    });
    expect((await counts(alice, 'alice', 'project', 'nope')).commits).toEqual({ success: true, result: 0 });
    const branches = await http(`${host.url}/api/v1/repos/alice/project/branches`, { headers: cookie(alice.session) });
    expect(JSON.stringify(branches.json)).toContain('feature');
  });

  it('pushes with username + password', async () => {
    await newRepo(host, alice, 'by-password');
    const pushed = await gitRun(work.dir, ['push', remote('alice', 'by-password', 'alice', 'password123'), 'feature']);
    expect(pushed.ok, pushed.stderr).toBe(true);
    // main never arrived: HEAD (and the default branch) moved to the first pushed branch.
    const summary = await http(`${host.url}/api/v1/repos/alice/by-password`, { headers: cookie(alice.session) });
    expect(summary.json.default_branch).toBe('feature');
    const head = await gitRun(temp, ['ls-remote', '--symref', remote('alice', 'by-password'), 'HEAD']);
    expect(head.stdout).toContain('ref: refs/heads/feature\tHEAD');
  });

  it('refuses pushes without credentials, with wrong ones, and from another user', async () => {
    const before = await gitRun(temp, ['ls-remote', remote('alice', 'project')]);
    const anonymous = await gitRun(work.dir, ['push', remote('alice', 'project'), 'o1']);
    expect(anonymous.ok).toBe(false);
    expect(anonymous.stderr).toMatch(/could not read Username|Authentication failed/);
    const wrong = await gitRun(work.dir, ['push', remote('alice', 'project', 'alice', 'not-the-password'), 'o1']);
    expect(wrong.ok).toBe(false);
    expect(wrong.stderr).toContain('Authentication failed');
    const other = await gitRun(work.dir, ['push', remote('alice', 'project', 'bob', bob.token), 'o1']);
    expect(other.ok).toBe(false);
    // bob can read the public repository but not push to it: refused as forbidden (issue 8), not hidden.
    expect(other.stderr).toMatch(/Permission denied: bob may not push/);
    expect((await gitRun(temp, ['ls-remote', remote('alice', 'project')])).stdout).toBe(before.stdout);
    const challenge = await http(`${host.url}/alice/project.git/info/refs?service=git-receive-pack`);
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toBe('Basic realm="repohost"');
    const post = await http(`${host.url}/alice/project.git/git-receive-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    expect(post.status).toBe(401);
  });

  it("answers git's pre-push probe (a lone flush packet) without running receive-pack", async () => {
    const authorization = `Basic ${Buffer.from(`alice:${alice.token}`).toString('base64')}`;
    const probe = await http(`${host.url}/alice/project.git/git-receive-pack`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-git-receive-pack-request' },
      body: '0000',
    });
    expect(probe.status).toBe(200);
    expect(probe.headers['content-type']).toBe('application/x-git-receive-pack-result');
    expect(probe.text).toBe('');
  });

  for (const version of ['0', '2']) {
    it(`clones and fetches with protocol v${version}, with and without .git`, async () => {
      const dir = join(temp, `clone-v${version}`);
      const cloned = await gitRun(temp, ['-c', `protocol.version=${version}`, 'clone', '-q', remote('alice', 'project'), dir], { GIT_TRACE_PACKET: '1' });
      expect(cloned.ok, cloned.stderr).toBe(true);
      if (version === '2') expect(cloned.stderr).toContain('version 2');
      else expect(cloned.stderr).not.toMatch(/git< version 2/);
      expect(await sh(dir, ['rev-parse', 'HEAD'])).toBe(await sh(work.dir, ['rev-parse', 'main']));
      expect(await sh(dir, ['branch', '-r'])).toContain('origin/feature');
      const fetched = await gitRun(dir, ['-c', `protocol.version=${version}`, 'fetch', '-q', `${host.url}/alice/project`, 'feature']);
      expect(fetched.ok, fetched.stderr).toBe(true);
      expect(await sh(dir, ['rev-parse', 'FETCH_HEAD'])).toBe(await sh(work.dir, ['rev-parse', 'feature']));
    });
  }

  it('answers with the smart content types and no-cache headers', async () => {
    const v0 = await request(`${host.url}/alice/project.git/info/refs?service=git-upload-pack`);
    expect(v0.statusCode).toBe(200);
    expect(v0.headers['content-type']).toBe('application/x-git-upload-pack-advertisement');
    expect(v0.headers['cache-control']).toBe('no-cache, max-age=0, must-revalidate');
    expect(v0.headers.pragma).toBe('no-cache');
    expect(v0.headers.expires).toBeDefined();
    expect((await v0.body.text()).startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    const v2 = await request(`${host.url}/alice/project.git/info/refs?service=git-upload-pack`, { headers: { 'git-protocol': 'version=2' } });
    const text = await v2.body.text();
    expect(text.startsWith('000eversion 2\n')).toBe(true);
    const dumb = await http(`${host.url}/alice/project.git/info/refs`);
    expect(dumb.status).toBe(403);
    const badType = await http(`${host.url}/alice/project.git/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '0000' });
    expect(badType.status).toBe(415);
    const badEncoding = await http(`${host.url}/alice/project.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'br' },
      body: '0000',
    });
    expect(badEncoding.status).toBe(415);
    // A Git-Protocol header that is not key=value pairs is ignored rather than passed to git.
    const hostile = await request(`${host.url}/alice/project.git/info/refs?service=git-upload-pack`, { headers: { 'git-protocol': 'version=2; rm -rf /' } });
    expect((await hostile.body.text()).startsWith('001e# service=git-upload-pack')).toBe(true);
  });

  for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync]] as const) {
    it(`decompresses ${encoding} request bodies`, async () => {
      const want = await sh(work.dir, ['rev-parse', 'main']);
      const line = `want ${want} ofs-delta\n`;
      const body = `${(line.length + 4).toString(16).padStart(4, '0')}${line}00000009done\n`;
      const response = await request(`${host.url}/alice/project.git/git-upload-pack`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': encoding },
        body: compress(Buffer.from(body)),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/x-git-upload-pack-result');
      const bytes = Buffer.from(await response.body.arrayBuffer());
      expect(bytes.subarray(0, 8).toString()).toBe('0008NAK\n');
      expect(bytes.includes(Buffer.from('PACK'))).toBe(true);
    });
  }

  it('serves a fetch with enough haves that git gzips its request', async () => {
    const dir = join(temp, 'many-haves');
    expect((await gitRun(temp, ['clone', '-q', remote('alice', 'project'), dir])).ok).toBe(true);
    // Local-only commits become haves the server does not know, so the negotiation request is large.
    for (let i = 0; i < 40; i++) await sh(dir, ['commit', '-q', '--allow-empty', '-m', `local ${i}`]);
    await sh(dir, ['branch', 'local-only']);
    await sh(dir, ['reset', '-q', '--hard', 'origin/main']);
    await sh(work.dir, ['commit', '-q', '--allow-empty', '-m', 'new upstream']);
    expect((await gitRun(work.dir, ['push', '-q', remote('alice', 'project', 'alice', alice.token), 'main'])).ok).toBe(true);
    const fetched = await gitRun(dir, ['-c', 'protocol.version=0', 'fetch', 'origin'], { GIT_TRACE_CURL: '1', GIT_TRACE_CURL_NO_DATA: '1' });
    expect(fetched.ok, fetched.stderr.slice(-2000)).toBe(true);
    expect(fetched.stderr).toMatch(/Content-Encoding: gzip/i);
    expect(await sh(dir, ['rev-parse', 'origin/main'])).toBe(await sh(work.dir, ['rev-parse', 'main']));
  });

  it('hides private repositories from anonymous users and other users, over git and the API', async () => {
    const pushed = await gitRun(work.dir, ['push', '-q', remote('alice', 'secret', 'alice', alice.token), 'main']);
    expect(pushed.ok, pushed.stderr).toBe(true);
    const anonymous = await gitRun(temp, ['ls-remote', remote('alice', 'secret')]);
    expect(anonymous.ok).toBe(false);
    expect(anonymous.stderr).toMatch(/could not read Username/);
    const other = await gitRun(temp, ['clone', '-q', remote('alice', 'secret', 'bob', bob.token), join(temp, 'stolen')]);
    expect(other.ok).toBe(false);
    expect(other.stderr).toMatch(/not found/i);
    const owner = await gitRun(temp, ['ls-remote', remote('alice', 'secret', 'alice', alice.token)]);
    expect(owner.ok, owner.stderr).toBe(true);
    expect(owner.stdout).toContain('refs/heads/main');
    // Unknown repositories answer like private ones: no existence leak.
    expect((await http(`${host.url}/alice/secret.git/info/refs?service=git-upload-pack`)).status).toBe(401);
    expect((await http(`${host.url}/alice/nothing-here.git/info/refs?service=git-upload-pack`)).status).toBe(401);
    const bobAuth = { authorization: `Basic ${Buffer.from(`bob:${bob.token}`).toString('base64')}` };
    expect((await http(`${host.url}/alice/secret.git/info/refs?service=git-upload-pack`, { headers: bobAuth })).status).toBe(404);
    expect((await http(`${host.url}/alice/nothing-here.git/info/refs?service=git-upload-pack`, { headers: bobAuth })).status).toBe(404);
    expect((await http(`${host.url}/api/v1/repos/alice/secret`)).status).toBe(404);
    expect((await http(`${host.url}/api/v1/repos/alice/secret`, { headers: cookie(bob.session) })).status).toBe(404);
    expect((await http(`${host.url}/api/v1/repos/alice/secret`, { headers: cookie(alice.session) })).status).toBe(200);
  });

  it('reflects a branch delete and a force push in the counts', async () => {
    await newRepo(host, alice, 'history');
    const url = remote('alice', 'history', 'alice', alice.token);
    expect((await gitRun(work.dir, ['push', '-q', url, 'main', 'feature', 'o1'])).ok).toBe(true);
    const mainCount = Number(await sh(work.dir, ['rev-list', '--count', 'main']));
    expect(await counts(alice, 'alice', 'history', 'main')).toEqual({ branches: { success: true, result: 3 }, commits: { success: true, result: mainCount } });
    const deleted = await gitRun(work.dir, ['push', '-q', url, ':o1']);
    expect(deleted.ok, deleted.stderr).toBe(true);
    expect((await counts(alice, 'alice', 'history', 'o1')).branches).toEqual({ success: true, result: 2 });
    expect((await counts(alice, 'alice', 'history', 'o1')).commits).toEqual({ success: true, result: 0 });
    const forced = await gitRun(work.dir, ['push', '-q', '--force', url, 'main~3:main']);
    expect(forced.ok, forced.stderr).toBe(true);
    expect((await counts(alice, 'alice', 'history', 'main')).commits).toEqual({ success: true, result: Number(await sh(work.dir, ['rev-list', '--count', 'main~3'])) });
    const branches = await http(`${host.url}/api/v1/repos/alice/history/branches`, { headers: cookie(alice.session) });
    expect(JSON.stringify(branches.json)).not.toContain('o1');
    expect(JSON.stringify(branches.json)).toContain(await sh(work.dir, ['rev-parse', 'main~3']));
  });

  it('lists files (endpoint 13) entry by entry like git log -1 -- <path>, with sub-folders', async () => {
    const summary = await http(`${host.url}/api/v1/repos/alice/project`);
    const id = summary.json.id as number;
    for (const [branch, folder] of [['main', ''], ['main', 'src'], ['main', 'src/lib'], ['main', 'docs'], ['feature', ''], ['conflict', 'src/lib']] as const) {
      const query = new URLSearchParams({ branch, ...(folder ? { path: folder } : {}) });
      const listing = await http(`${host.url}/api/v1/repos/${id}/tree/files?${query}`);
      expect(listing.status, listing.text).toBe(200);
      expect(listing.json.success).toBe(true);
      const tree = await sh(work.dir, ['ls-tree', '-z', '-l', folder ? `${branch}:${folder}` : `${branch}^{tree}`]);
      const entries = tree.split('\0').filter(Boolean);
      expect(listing.json.result).toHaveLength(entries.length);
      for (const record of entries) {
        const tab = record.indexOf('\t');
        const [, type, , size] = record.slice(0, tab).split(/ +/);
        const name = record.slice(tab + 1);
        const [hash, time, msg] = (await sh(work.dir, ['log', '-1', '--format=%H%x00%cI%x00%s', branch, '--', folder ? `${folder}/${name}` : name])).split('\0');
        const entry = listing.json.result.find((item: { name: string }) => item.name === name);
        expect(entry, `${branch}:${folder}/${name}`).toEqual({
          name,
          last_msg: msg,
          last_hash: hash,
          last_time: new Date(time!).toISOString().replace('.000Z', 'Z'),
          size: type === 'blob' ? size : '0',
        });
      }
    }
    const unknown = await http(`${host.url}/api/v1/repos/${id}/tree/files?branch=nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ success: false, message: 'branch not found' });
    const empty = await newRepo(host, alice, 'still-empty');
    const none = await http(`${host.url}/api/v1/repos/${empty.id}/tree/files?branch=main`);
    expect(none.json).toEqual({ success: true, result: [] });
  });

  it('imports a repository from clone_url (opt-in for local addresses) with all branches and tags', async () => {
    await sh(work.dir, ['tag', '-f', 'v1.0', 'feature']);
    expect((await gitRun(work.dir, ['push', '-q', '-f', remote('alice', 'project', 'alice', alice.token), 'v1.0'])).ok).toBe(true);
    const created = await http(`${host.url}/new`, {
      headers: cookie(bob.session),
      form: { name: 'copy', description: '', clone_url: `${host.url}/alice/project.git`, repo_visibility: 'public', no_redirect: '1' },
    });
    expect(created.status, created.text).toBe(200);
    const source = await gitRun(temp, ['ls-remote', remote('alice', 'project')]);
    const copy = await gitRun(temp, ['ls-remote', remote('bob', 'copy')]);
    expect(copy.stdout.split('\n').filter((l) => !l.endsWith('HEAD')).sort()).toEqual(source.stdout.split('\n').filter((l) => !l.endsWith('HEAD')).sort());
    expect(copy.stdout).toContain('refs/tags/v1.0');
    expect((await counts(bob, 'bob', 'copy', 'main')).commits).toEqual((await counts(alice, 'alice', 'project', 'main')).commits);
    const failed = await http(`${host.url}/new`, {
      headers: cookie(bob.session),
      form: { name: 'broken', description: '', clone_url: `${host.url}/alice/does-not-exist.git`, repo_visibility: 'public', no_redirect: '1' },
    });
    expect(failed.status).toBe(400);
    expect((await http(`${host.url}/api/v1/repos/bob/broken`)).status).toBe(404);
  });

  it('keeps the source default branch on import when it is not main', async () => {
    await newRepo(host, alice, 'trunky');
    expect((await gitRun(work.dir, ['push', '-q', remote('alice', 'trunky', 'alice', alice.token), 'feature:refs/heads/trunk'])).ok).toBe(true);
    expect((await gitRun(work.dir, ['push', '-q', remote('alice', 'trunky', 'alice', alice.token), 'feature:refs/heads/alpha'])).ok).toBe(true);
    expect((await http(`${host.url}/api/v1/repos/alice/trunky`)).json.default_branch).toBe('trunk');
    const created = await http(`${host.url}/new`, {
      headers: cookie(bob.session),
      form: { name: 'trunk-copy', description: '', clone_url: `${host.url}/alice/trunky.git`, repo_visibility: 'public', no_redirect: '1' },
    });
    expect(created.status, created.text).toBe(200);
    expect((await http(`${host.url}/api/v1/repos/bob/trunk-copy`)).json.default_branch).toBe('trunk');
    const head = await gitRun(temp, ['ls-remote', '--symref', remote('bob', 'trunk-copy'), 'HEAD']);
    expect(head.stdout).toContain('ref: refs/heads/trunk\tHEAD');
  });

  it('refuses an import from a local address without the opt-in', async () => {
    const strict = await startHost({ allowLocalImport: false });
    try {
      const carol = await newUser(strict, 'carol');
      for (const url of [`${host.url}/alice/project.git`, 'file:///etc', '/etc', 'ssh://example.com/x']) {
        const refused = await http(`${strict.url}/new`, {
          headers: cookie(carol.session),
          form: { name: 'copy', description: '', clone_url: url, repo_visibility: 'public', no_redirect: '1' },
        });
        expect(refused.status, url).toBe(400);
        expect(refused.text).toMatch(/clone_url/);
      }
      expect((await http(`${strict.url}/api/v1/repos/carol/copy`)).status).toBe(404);
    } finally {
      await strict.close();
    }
  });

  it('stops git when the client disconnects mid-transfer, and keeps serving', async () => {
    await newRepo(host, alice, 'big');
    const dir = join(temp, 'big');
    const big = await WorkTree.init(dir);
    const { randomBytes } = await import('node:crypto');
    await big.commit('big blobs', { 'a.bin': randomBytes(12 * 1024 * 1024).toString('base64') });
    expect((await gitRun(dir, ['push', '-q', remote('alice', 'big', 'alice', alice.token), 'main'])).ok).toBe(true);
    const want = await sh(dir, ['rev-parse', 'HEAD']);
    const line = `want ${want}\n`;
    const controller = new AbortController();
    const response = await request(`${host.url}/alice/big.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request' },
      body: `${(line.length + 4).toString(16).padStart(4, '0')}${line}00000009done\n`,
      signal: controller.signal,
    });
    expect(response.statusCode).toBe(200);
    const reader = response.body[Symbol.asyncIterator]();
    await reader.next();
    controller.abort();
    await reader.return?.().catch(() => undefined);
    expect(await transfersLeftAfterWaiting()).toEqual([]);
    expect((await gitRun(temp, ['ls-remote', remote('alice', 'big')])).ok).toBe(true);
  });

  it('leaves no git child behind when a host closes right after a push (background upkeep stopped)', async () => {
    const other = await startHost();
    const carol = await newUser(other, 'carol');
    await newRepo(other, carol, 'quick');
    const url = new URL(`${other.url}/carol/quick.git`);
    url.username = 'carol';
    url.password = carol.token;
    expect((await gitRun(work.dir, ['push', '-q', url.toString(), 'main', 'feature'])).ok).toBe(true);
    await other.close();
    expect((await gitChildren(other.options.dataDir)).filter((line) => /commit-graph|gc --auto|receive-pack/.test(line))).toEqual([]);
    const head = await request(`${host.url}/alice/project.git/info/refs?service=git-upload-pack`, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('application/x-git-upload-pack-advertisement');
    await head.body.dump();
  });

  it('clones a large repository through a real git client killed halfway without harming the server', async () => {
    const child = spawn('git', ['clone', '-q', remote('alice', 'big'), join(temp, 'killed')], {
      env: { PATH: process.env.PATH ?? '', HOME: temp, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      stdio: 'ignore',
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));
    expect(await transfersLeftAfterWaiting()).toEqual([]);
    await writeFile(join(temp, 'marker'), 'still alive');
    expect((await http(`${host.url}/api/v1/repos/alice/big`)).status).toBe(200);
  });
});
