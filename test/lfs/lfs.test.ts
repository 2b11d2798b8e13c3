import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 22: Git LFS with the real git-lfs client, over HTTP and over SSH (git-lfs-authenticate).

const run = promisify(execFile);
const MB = 1024 * 1024;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

describe('Git LFS', () => {
  let host: RepoHost;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let alice: TestUser;
  let bob: TestUser;
  let key: string;
  let env: NodeJS.ProcessEnv;
  const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  const git = async (cwd: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<Outcome> => {
    try {
      const { stdout, stderr } = await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...env, ...extra }, maxBuffer: 64 * MB });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  };
  const ok = async (cwd: string, args: string[], extra?: NodeJS.ProcessEnv) => {
    const outcome = await git(cwd, args, extra);
    expect(outcome.code, `git ${args.join(' ')}: ${outcome.stderr}`).toBe(0);
    return outcome.stdout.trim();
  };
  const remote = (user: TestUser, repo: string) => {
    const url = new URL(`${host.url}/alice/${repo}.git`);
    url.username = user.username;
    url.password = user.token;
    return url.toString();
  };
  const batch = (repo: string, body: unknown, headers: Record<string, string> = bearer(alice.token)) =>
    http(`${host.url}/alice/${repo}.git/info/lfs/objects/batch`, { headers: { ...headers, accept: 'application/vnd.git-lfs+json' }, json: body });

  beforeAll(async () => {
    host = await startHost({ sshPort: 0, maxLfsBytesPerRepository: 60 * MB });
    work = await tempDir('repohost-lfs-');
    env = { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' };
    await run('git', ['lfs', 'install', '--skip-repo'], { env });
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    await newRepo(host, alice, 'media', 'private');
    await newRepo(host, alice, 'small', 'private');
    key = join(work.path, 'id_ed25519');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    expect((await http(`${host.url}/api/v3/user/keys`, { headers: bearer(alice.token), json: { key: await readFile(`${key}.pub`, 'utf8') } })).status).toBe(201);
    expect((await http(`${host.url}/api/v1/repos/alice/media/collaborators/bob`, { method: 'PUT', headers: bearer(alice.token), json: { permission: 'write' } })).status).toBeLessThan(300);
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('pushes a 50 MB object over HTTP, checks and keeps it by oid, and a fresh clone smudges it back', async () => {
    const repo = join(work.path, 'media');
    await ok(work.path, ['init', '-q', repo]);
    await ok(repo, ['lfs', 'track', '*.bin']);
    const big = randomBytes(50 * MB);
    await writeFile(join(repo, 'big.bin'), big);
    await writeFile(join(repo, 'notes.txt'), 'plain text\n');
    await ok(repo, ['add', '.gitattributes', 'big.bin', 'notes.txt']);
    await ok(repo, ['commit', '-q', '-m', 'Add a big file']);
    await ok(repo, ['push', '-q', remote(alice, 'media'), 'main']);
    const oid = sha256(big);
    const stored = join(host.options.dataDir, 'repositories', 'alice', 'media.git', 'lfs', 'objects', oid);
    expect((await stat(stored)).size).toBe(50 * MB);
    // The batch API now offers it for download, and knows it is there for an upload.
    const download = await batch('media', { operation: 'download', transfers: ['basic'], objects: [{ oid, size: 50 * MB }] });
    expect(download.status).toBe(200);
    expect(String(download.headers['content-type'])).toContain('application/vnd.git-lfs+json');
    expect(download.json).toMatchObject({ transfer: 'basic', hash_algo: 'sha256', objects: [{ oid, size: 50 * MB, actions: { download: { href: `${host.url}/alice/media.git/info/lfs/objects/${oid}` } } }] });
    const upload = await batch('media', { operation: 'upload', objects: [{ oid, size: 50 * MB }] });
    expect(upload.json.objects[0].actions).toBeUndefined();

    const clone = join(work.path, 'media-clone');
    await ok(work.path, ['clone', '-q', remote(alice, 'media'), clone]);
    expect(sha256(await readFile(join(clone, 'big.bin')))).toBe(oid);
    // What git itself holds is the pointer.
    expect(await ok(clone, ['cat-file', 'blob', 'HEAD:big.bin'])).toContain(`oid sha256:${oid}`);
    // Pages show the file it stands for, and raw (or GitHub's media path) answers the object's bytes.
    const page = await http(`${host.url}/alice/media/src/branch/main/big.bin`, { headers: bearer(alice.token) });
    expect(page.text).toContain('Stored with Git LFS');
    expect(page.text).toContain('50.0 MiB');
    expect(page.text).toContain('This file is too large to show here');
    for (const kind of ['raw', 'media']) {
      const bytes = await http(`${host.url}/alice/media/${kind}/branch/main/big.bin`, { headers: bearer(alice.token) });
      expect([bytes.status, bytes.headers['content-length'], bytes.headers['content-type']]).toEqual([200, String(50 * MB), 'application/octet-stream']);
    }
    expect((await http(`${host.url}/alice/media/raw/branch/main/big.bin`, { headers: bearer(bob.token) })).status).toBe(200);
    // The contents API answers the pointer, with GitHub's media URL as the download; other files download raw.
    const contents = await http(`${host.url}/api/v3/repos/alice/media/contents/big.bin`, { headers: bearer(alice.token) });
    expect(Buffer.from(contents.json.content, 'base64').toString('utf8')).toContain(`oid sha256:${oid}`);
    expect(contents.json.download_url).toBe(`${host.url}/alice/media/media/branch/main/big.bin`);
    const notes = await http(`${host.url}/api/v3/repos/alice/media/contents/notes.txt`, { headers: bearer(alice.token) });
    expect(notes.json.download_url).toBe(`${host.url}/alice/media/raw/branch/main/notes.txt`);
    expect((await http(notes.json.download_url, { headers: bearer(alice.token) })).text).toBe('plain text\n');
  }, 180_000);

  it('refuses bytes that do not match their oid, unknown objects, and callers without access', async () => {
    const bytes = Buffer.from('the real content\n');
    const oid = sha256(bytes);
    // What a crash left of an upload an hour ago goes with the folder's first upload in this process; one still
    // arriving stays.
    const folder = join(host.options.dataDir, 'repositories', 'alice', 'small.git', 'lfs', 'objects');
    const leftover = join(folder, '.incoming-cut-off-by-a-crash');
    const arriving = join(folder, '.incoming-still-arriving');
    await mkdir(folder, { recursive: true });
    await Promise.all([writeFile(leftover, 'half'), writeFile(arriving, 'half')]);
    const anHourAgo = new Date(Date.now() - 61 * 60_000);
    await utimes(leftover, anHourAgo, anHourAgo);
    const wrong = await http(`${host.url}/alice/small.git/info/lfs/objects/${oid}`, { method: 'PUT', headers: bearer(alice.token), body: Buffer.from('something else\n') });
    expect(wrong.status).toBe(422);
    expect(wrong.json.message).toContain('do not match the oid');
    const missing = await batch('small', { operation: 'download', objects: [{ oid, size: bytes.length }, { oid: 'not-an-oid', size: 1 }] });
    expect(missing.json.objects).toEqual([
      { oid, size: bytes.length, error: { code: 404, message: 'Object does not exist' } },
      { oid: 'not-an-oid', size: 1, error: { code: 422, message: 'oid must be a SHA-256 in lower-case hexadecimal' } },
    ]);
    // An object whose oid is not a string has no oid to be answered by: the request is refused (it was "[object Object]").
    for (const entry of [{ oid: { a: 1 }, size: 1 }, { oid: 5, size: 1 }, null, 'x']) {
      const malformed = await batch('small', { operation: 'download', objects: [{ oid, size: bytes.length }, entry] });
      expect(malformed.status, JSON.stringify(entry)).toBe(422);
      expect(malformed.json.message).toBe('every object must have an oid string');
    }
    expect((await http(`${host.url}/alice/small.git/info/lfs/objects/${oid}`, { headers: bearer(alice.token) })).status).toBe(404);
    // The right bytes are kept, and verify confirms them.
    expect((await http(`${host.url}/alice/small.git/info/lfs/objects/${oid}`, { method: 'PUT', headers: bearer(alice.token), body: bytes })).status).toBe(200);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(arriving)).toBe(true);
    expect((await http(`${host.url}/alice/small.git/info/lfs/verify`, { headers: bearer(alice.token), json: { oid, size: bytes.length } })).status).toBe(200);
    expect((await http(`${host.url}/alice/small.git/info/lfs/verify`, { headers: bearer(alice.token), json: { oid, size: 3 } })).status).toBe(422);
    // Anonymous callers are asked for credentials; bob, who may not see the repository, is told it does not exist.
    const anonymous = await batch('small', { operation: 'download', objects: [{ oid, size: bytes.length }] }, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['lfs-authenticate']).toBe('Basic realm="repohost"');
    expect((await batch('small', { operation: 'download', objects: [] }, bearer(bob.token))).status).toBe(404);
    // bob may write to media, but not past the repository's quota (60 MB, of which 50 are used).
    const over = await batch('media', { operation: 'upload', objects: [{ oid: 'a'.repeat(64), size: 20 * MB }] }, bearer(bob.token));
    expect(over.json.objects[0].error).toMatchObject({ code: 507 });
  });

  it('refuses tokens of the format minted before ids were never given twice (issue 38)', async () => {
    // Any token asked about makes the data folder's key, if no SSH sign-in has yet.
    await batch('small', { operation: 'download', objects: [] }, { authorization: 'RemoteAuth x.y' });
    const key = await readFile(join(host.options.dataDir, 'ssh', 'lfs-token-key'));
    const small = (await http(`${host.url}/api/v3/repos/alice/small`, { headers: bearer(alice.token) })).json as { id: number };
    const user = (await http(`${host.url}/api/v3/user`, { headers: bearer(alice.token) })).json as { id: number };
    const tokenOf = (claims: object) => {
      const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
      return `RemoteAuth ${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
    };
    const claims = { p: 'u', i: user.id, r: small.id, o: 'download', e: Math.floor(Date.now() / 1000) + 3600 };
    const download = { operation: 'download', objects: [] };
    expect((await batch('small', download, { authorization: tokenOf({ v: 2, ...claims }) })).status).toBe(200);
    expect((await batch('small', download, { authorization: tokenOf(claims) })).status).toBe(401);
  });

  it('asks an anonymous uploader to a public repository for credentials (401 with LFS-Authenticate), as GitHub does (issue 38)', async () => {
    await newRepo(host, alice, 'open');
    const upload = { operation: 'upload', objects: [{ oid: sha256(Buffer.from('x')), size: 1 }] };
    const anonymous = await batch('open', upload, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['lfs-authenticate']).toBe('Basic realm="repohost"');
    // Reading stays open to everyone; bob, signed in without write access, is refused.
    expect((await batch('open', { operation: 'download', objects: [] }, {})).status).toBe(200);
    expect((await batch('open', upload, bearer(bob.token))).status).toBe(403);
  });

  it('refuses at upload the bytes of an object whose batch declared another size (issue 38)', async () => {
    const bytes = Buffer.from('two');
    const oid = sha256(bytes);
    const answered = await batch('small', { operation: 'upload', objects: [{ oid, size: 1 }] });
    const href = answered.json.objects[0].actions.upload.href as string;
    expect(href).toBe(`${host.url}/alice/small.git/info/lfs/objects/${oid}?size=1`);
    const sent = await http(href, { method: 'PUT', headers: bearer(alice.token), body: bytes });
    expect(sent.status).toBe(422);
    expect(sent.json.message).toBe('the batch declared 1 bytes, the upload 3');
    expect((await http(`${host.url}/alice/small.git/info/lfs/objects/${oid}`, { headers: bearer(alice.token) })).status).toBe(404);
    // Sent with the size it was declared with, the same bytes are taken.
    const right = (await batch('small', { operation: 'upload', objects: [{ oid, size: 3 }] })).json.objects[0].actions.upload.href as string;
    expect((await http(right, { method: 'PUT', headers: bearer(alice.token), body: bytes })).status).toBe(200);
  });

  it('locks files, verifies and unlocks them, and lets only an admin force another account\'s lock', async () => {
    const bobs = join(work.path, 'media-bob');
    await ok(work.path, ['clone', '-q', remote(bob, 'media'), bobs], { GIT_LFS_SKIP_SMUDGE: '1' });
    await ok(bobs, ['lfs', 'lock', 'big.bin']);
    const alices = join(work.path, 'media-clone');
    const listed = await ok(alices, ['lfs', 'locks']);
    expect(listed).toMatch(/big\.bin\s+bob\s+ID:\d+/);
    const refused = await git(alices, ['lfs', 'unlock', 'big.bin']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr + refused.stdout).toMatch(/only an admin may remove it, with --force|Cannot unlock/);
    const taken = await git(alices, ['lfs', 'lock', 'big.bin']);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr + taken.stdout).toContain('already created lock');
    await ok(alices, ['lfs', 'unlock', '--force', 'big.bin']);
    expect(await ok(alices, ['lfs', 'locks'])).toBe('');
  }, 120_000);

  it('works over SSH: git-lfs-authenticate hands out a token the HTTP API accepts', async () => {
    const sshCommand = `ssh -i ${key} -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR`;
    const url = `ssh://git@127.0.0.1:${host.sshPort}/alice/small.git`;
    const repo = join(work.path, 'small');
    await ok(work.path, ['init', '-q', repo]);
    await ok(repo, ['lfs', 'track', '*.dat']);
    const data = randomBytes(64 * 1024);
    await writeFile(join(repo, 'data.dat'), data);
    await writeFile(join(repo, 'words.dat'), 'first line of a text stored with LFS\n');
    await ok(repo, ['add', '.gitattributes', 'data.dat', 'words.dat']);
    await ok(repo, ['commit', '-q', '-m', 'Data over SSH']);
    await ok(repo, ['push', '-q', url, 'main'], { GIT_SSH_COMMAND: sshCommand });
    const clone = join(work.path, 'small-clone');
    await ok(work.path, ['clone', '-q', url, clone], { GIT_SSH_COMMAND: sshCommand });
    expect(sha256(await readFile(join(clone, 'data.dat')))).toBe(sha256(data));
    const page = await http(`${host.url}/alice/small/src/branch/main/words.dat`, { headers: bearer(alice.token) });
    expect(page.text).toContain('first line of a text stored with LFS');
    expect(page.text).toContain('Stored with Git LFS');
    // The token is bound to its repository and operation.
    const { stdout } = await run('ssh', [...sshCommand.split(' ').slice(1), '-p', String(host.sshPort), 'git@127.0.0.1', 'git-lfs-authenticate alice/small.git download']);
    const answer = JSON.parse(stdout);
    expect(answer).toMatchObject({ href: `${host.url}/alice/small.git/info/lfs`, expires_in: 3600 });
    const headers = answer.header as Record<string, string>;
    expect((await batch('small', { operation: 'download', objects: [{ oid: sha256(data), size: data.length }] }, headers)).status).toBe(200);
    expect((await batch('small', { operation: 'upload', objects: [] }, headers)).status).toBe(403);
    expect((await batch('media', { operation: 'download', objects: [] }, headers)).status).toBe(401);
  }, 120_000);

  it('refuses a deploy key\'s token once its repository and key are deleted, also for the next ones made (issue 38)', async () => {
    const deployKey = join(work.path, 'id_deploy');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', deployKey]);
    await newRepo(host, alice, 'doomed', 'private');
    const added = await http(`${host.url}/api/v3/repos/alice/doomed/keys`, { headers: bearer(alice.token), json: { title: 'deploy', key: await readFile(`${deployKey}.pub`, 'utf8'), read_only: false } });
    expect(added.status).toBe(201);
    const sshOptions = ['-i', deployKey, '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'];
    const { stdout } = await run('ssh', [...sshOptions, '-p', String(host.sshPort), 'git@127.0.0.1', 'git-lfs-authenticate alice/doomed.git upload']);
    const headers = JSON.parse(stdout).header as Record<string, string>;
    const upload = { operation: 'upload', objects: [{ oid: sha256(Buffer.from('x')), size: 1 }] };
    expect((await http(`${host.url}/alice/doomed.git/info/lfs/objects/batch`, { headers: { ...headers, accept: 'application/vnd.git-lfs+json' }, json: upload })).status).toBe(200);
    const doomed = (await http(`${host.url}/api/v3/repos/alice/doomed`, { headers: bearer(alice.token) })).json as { id: number };
    expect((await http(`${host.url}/api/v3/repos/alice/doomed/keys/${added.json.id}`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
    expect((await http(`${host.url}/api/v3/repos/alice/doomed`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
    // Another account's new private repository and deploy key: SQLite used to give them the ids just freed.
    const fresh = await newRepo(host, bob, 'fresh', 'private');
    const otherKey = join(work.path, 'id_other');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey]);
    const other = await http(`${host.url}/api/v3/repos/bob/fresh/keys`, { headers: bearer(bob.token), json: { title: 'deploy', key: await readFile(`${otherKey}.pub`, 'utf8'), read_only: false } });
    expect(other.status).toBe(201);
    expect(fresh.id).toBeGreaterThan(doomed.id);
    expect(other.json.id).toBeGreaterThan(added.json.id);
    const stolen = await http(`${host.url}/bob/fresh.git/info/lfs/objects/batch`, { headers: { ...headers, accept: 'application/vnd.git-lfs+json' }, json: upload });
    expect(stolen.status).toBe(401);
  }, 120_000);
});
