import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { git, pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 22: git over SSH with the real OpenSSH client and the real git, against keys added through the API.

const run = promisify(execFile);

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command, answering its exit code and output instead of throwing. */
async function attempt(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** OpenSSH's options for a test: this key only, no agent, no known_hosts, never a prompt. */
function sshOptions(key: string | undefined): string[] {
  return [
    ...(key ? ['-i', key, '-o', 'IdentitiesOnly=yes'] : ['-o', 'PubkeyAuthentication=no']),
    '-o', 'IdentityAgent=none',
    '-o', 'StrictHostKeyChecking=no',
    '-o', 'UserKnownHostsFile=/dev/null',
    '-o', 'BatchMode=yes',
    '-o', 'LogLevel=ERROR',
  ];
}

describe('git over SSH', () => {
  let host: RepoHost;
  let work: Awaited<ReturnType<typeof tempDir>>;
  let alice: TestUser;
  let bob: TestUser;
  const keys: Record<string, string> = {};
  let url: (repo: string) => string;

  /** git with OpenSSH as its transport, authenticating with `key` (none: no key at all). */
  const sshGit = (cwd: string, args: string[], key: string | undefined, extraEnv: NodeJS.ProcessEnv = {}) =>
    attempt('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C', GIT_SSH_COMMAND: `ssh ${sshOptions(key).join(' ')}`, ...extraEnv },
    });
  const ssh = (key: string | undefined, command: string[]) => attempt('ssh', [...sshOptions(key), '-p', String(host.sshPort), 'git@127.0.0.1', ...command]);
  const publicKey = (name: string) => readFile(`${keys[name]}.pub`, 'utf8');
  const addKey = async (user: TestUser, name: string, title = name) => http(`${host.url}/api/v3/user/keys`, { headers: bearer(user.token), json: { title, key: await publicKey(name) } });

  beforeAll(async () => {
    host = await startHost({ sshPort: 0 });
    work = await tempDir('repohost-ssh-');
    for (const name of ['alice', 'alice2', 'bob', 'stranger', 'deploy', 'writer', 'kept']) {
      keys[name] = join(work.path, `key-${name}`);
      await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${name}@test`, '-f', keys[name]!]);
    }
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    await newRepo(host, alice, 'secret', 'private');
    await newRepo(host, alice, 'open', 'public');
    await pushTwoBranches(host, 'alice', alice.token, 'secret');
    await pushTwoBranches(host, 'alice', alice.token, 'open');
    url = (repo) => `ssh://git@127.0.0.1:${host.sshPort}/${repo}.git`;
    expect((await addKey(alice, 'alice')).status).toBe(201);
    expect((await addKey(bob, 'bob')).status).toBe(201);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('manages keys through /api/v3 and /api/v1 in their shapes, with OpenSSH fingerprints', async () => {
    const added = await addKey(alice, 'alice2', 'Laptop');
    expect(added.status).toBe(201);
    const text = (await publicKey('alice2')).trim().split(' ');
    expect(added.json).toEqual({
      id: expect.any(Number),
      key: `${text[0]} ${text[1]}`,
      url: `${host.url}/api/v3/user/keys/${added.json.id}`,
      title: 'Laptop',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      verified: true,
      read_only: false,
    });
    const listed = await http(`${host.url}/api/v1/user/keys`, { headers: bearer(alice.token) });
    const fingerprint = (await run('ssh-keygen', ['-l', '-E', 'sha256', '-f', `${keys.alice2}.pub`])).stdout.split(' ')[1];
    expect(listed.json.find((key: { id: number }) => key.id === added.json.id)).toMatchObject({ title: 'Laptop', fingerprint, key_type: 'user', read_only: false });
    const shown = await http(`${host.url}/api/v3/users/alice/keys`);
    expect(shown.json.map((key: { key: string }) => key.key)).toContain(`${text[0]} ${text[1]}`);
    expect(Object.keys(shown.json[0]).sort()).toEqual(['created_at', 'id', 'key']);
    // Removing it: gone for SSH at once.
    expect((await http(`${host.url}/api/v3/user/keys/${added.json.id}`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
    expect((await http(`${host.url}/api/v3/user/keys/${added.json.id}`, { headers: bearer(alice.token) })).status).toBe(404);
    expect((await ssh(keys.alice2, ['git-upload-pack', 'alice/open.git'])).stderr).toContain('Permission denied (publickey)');
    // Another user's key is not yours to read or remove.
    const bobs = (await http(`${host.url}/api/v3/user/keys`, { headers: bearer(bob.token) })).json[0];
    expect((await http(`${host.url}/api/v3/user/keys/${bobs.id}`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(404);
  });

  it('refuses a key in use, a private key, a DSA or short RSA key, and anything malformed, with a clear 422', async () => {
    const again = await http(`${host.url}/api/v3/user/keys`, { headers: bearer(bob.token), json: { title: 'mine now', key: await publicKey('alice') } });
    expect(again.status).toBe(422);
    expect(again.json).toMatchObject({ message: 'Validation Failed', errors: [{ resource: 'PublicKey', code: 'custom', message: 'key is already in use' }] });
    const shortRsa = join(work.path, 'short-rsa');
    await run('ssh-keygen', ['-q', '-t', 'rsa', '-b', '1024', '-N', '', '-f', shortRsa]);
    const cases: Array<[string, string]> = [
      [await readFile(keys.bob!, 'utf8'), 'private key'],
      [await readFile(`${shortRsa}.pub`, 'utf8'), 'RSA key of 1024 bits'],
      ['ssh-dss AAAAB3NzaC1kc3MAAACBAP', 'DSA key'],
      ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHOD', 'OpenSSH public key format'],
      ['hello world', 'is not supported'],
      ['', 'key is missing'],
    ];
    for (const [key, message] of cases) {
      const refused = await http(`${host.url}/api/v1/user/keys`, { headers: bearer(bob.token), json: { title: 'x', key } });
      // /api/v1 answers a refused value with 400, as the spec's other endpoints do.
      expectError(refused, 400, message);
    }
    expect((await http(`${host.url}/api/v3/user/keys`, { json: { key: await publicKey('stranger') } })).status).toBe(401);
  });

  it('clones, fetches and pushes a private repository, and the push is recorded like one over HTTP', async () => {
    const clone = join(work.path, 'clone-secret');
    const cloned = await sshGit(work.path, ['clone', '-q', url('alice/secret'), clone], keys.alice);
    expect(cloned.stderr).toBe('');
    expect(cloned.code).toBe(0);
    expect(await git(clone, ['log', '--format=%s', '-1'], work.path)).toBe('Initial commit');
    await writeFile(join(clone, 'ssh.txt'), 'over ssh\n');
    await git(clone, ['add', 'ssh.txt'], work.path);
    await git(clone, ['commit', '-q', '-m', 'Pushed over SSH'], work.path);
    const tip = await git(clone, ['rev-parse', 'HEAD'], work.path);
    const pushed = host.events.waitFor('push', (event) => event.after === tip);
    const push = await sshGit(clone, ['push', 'origin', 'main'], keys.alice);
    expect(push.code).toBe(0);
    const event = await pushed;
    expect(event).toMatchObject({ ref: 'refs/heads/main', pusher: { name: 'alice' }, sender: { login: 'alice' } });
    // The database knows the new tip as soon as the push has answered.
    const branch = await http(`${host.url}/api/v3/repos/alice/secret/branches/main`, { headers: bearer(alice.token) });
    expect(branch.json.commit.sha).toBe(tip);
    // A new branch, and a fetch that brings what HTTP pushed meanwhile.
    expect((await sshGit(clone, ['push', 'origin', 'main:refs/heads/from-ssh'], keys.alice)).code).toBe(0);
    const fetched = await sshGit(clone, ['fetch', url('alice/open'), 'feature'], keys.alice);
    // What HTTP pushed is what SSH fetches.
    expect(fetched.code).toBe(0);
    expect(await git(clone, ['log', '--format=%s', '-1', 'FETCH_HEAD'], work.path)).toBe('Add a feature');
  });

  it('speaks protocol v2 when the client asks through GIT_PROTOCOL, and serves git archive --remote', async () => {
    const listed = await sshGit(work.path, ['-c', 'protocol.version=2', 'ls-remote', url('alice/open')], keys.alice, { GIT_TRACE_PACKET: '1' });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(/< version 2/);
    expect(listed.stdout).toMatch(/refs\/heads\/feature/);
    const old = await sshGit(work.path, ['-c', 'protocol.version=0', 'ls-remote', url('alice/open')], keys.alice, { GIT_TRACE_PACKET: '1' });
    expect(old.stderr).not.toMatch(/< version 2/);
    const archive = await sshGit(work.path, ['archive', `--remote=${url('alice/open')}`, '--format=tar', '-o', 'open.tar', 'main'], keys.alice);
    expect(archive.code).toBe(0);
    expect((await run('tar', ['tf', join(work.path, 'open.tar')])).stdout).toContain('README.md');
  });

  it('runs nothing more on a connection kept open (ControlMaster) once the key it signed in with is removed', async () => {
    const added = await addKey(alice, 'kept');
    expect(added.status).toBe(201);
    const control = ['-o', `ControlPath=${join(work.path, 'kept.ctl')}`, '-p', String(host.sshPort)];
    const master = await attempt('ssh', [...sshOptions(keys.kept), ...control, '-o', 'ControlMaster=yes', '-o', 'ControlPersist=yes', '-f', '-N', 'git@127.0.0.1']);
    expect(master.code, master.stderr).toBe(0);
    const overMaster = () => attempt('ssh', [...sshOptions(undefined), ...control, '-o', 'ControlMaster=no', 'git@127.0.0.1', 'git-lfs-authenticate', 'alice/secret', 'download']);
    try {
      const before = await overMaster();
      expect(before.code, before.stderr).toBe(0);
      expect(JSON.parse(before.stdout).header.Authorization).toMatch(/^RemoteAuth /);
      expect((await http(`${host.url}/api/v3/user/keys/${added.json.id}`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
      const after = await overMaster();
      expect(after.code).not.toBe(0);
      expect(after.stdout).toBe('');
      expect(after.stderr).toContain('The key you authenticated with has been removed');
    } finally {
      await attempt('ssh', [...sshOptions(undefined), ...control, '-O', 'exit', 'git@127.0.0.1']);
    }
  });

  it('refuses a wrong key, no key, and accounts without access, without telling private repositories apart', async () => {
    const target = join(work.path, 'never');
    const stranger = await sshGit(work.path, ['clone', url('alice/secret'), target], keys.stranger);
    expect(stranger.code).not.toBe(0);
    expect(stranger.stderr).toContain('Permission denied (publickey)');
    const none = await sshGit(work.path, ['clone', url('alice/secret'), target], undefined);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain('Permission denied (publickey)');
    // bob may not see the private repository: the same answer as for one that does not exist.
    const hidden = await sshGit(work.path, ['clone', url('alice/secret'), target], keys.bob);
    const missing = await sshGit(work.path, ['clone', url('alice/nothing-here'), target], keys.bob);
    expect(hidden.stderr).toContain('ERROR: Repository not found.');
    expect(hidden.stderr.replace('secret', 'nothing-here')).toBe(missing.stderr);
    // bob reads the public one but may not push to it.
    const clone = join(work.path, 'bob-open');
    expect((await sshGit(work.path, ['clone', '-q', url('alice/open'), clone], keys.bob)).code).toBe(0);
    await git(clone, ['commit', '-q', '--allow-empty', '-m', 'not allowed'], work.path);
    const push = await sshGit(clone, ['push', 'origin', 'HEAD:main'], keys.bob);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('ERROR: Permission to alice/open denied to bob.');
  });

  it('lets a read-only deploy key clone its repository only, and a writable one push', async () => {
    const created = await http(`${host.url}/api/v3/repos/alice/secret/keys`, { headers: bearer(alice.token), json: { title: 'CI', key: await publicKey('deploy') } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ title: 'CI', read_only: true, verified: true, url: `${host.url}/api/v3/repos/alice/secret/keys/${created.json.id}` });
    // Deploy keys are for admins of the repository to manage.
    expect((await http(`${host.url}/api/v3/repos/alice/open/keys`, { headers: bearer(bob.token) })).status).toBe(403);
    expect((await http(`${host.url}/api/v1/repos/alice/secret/keys`, { headers: bearer(bob.token) })).status).toBe(404);
    const clone = join(work.path, 'deploy-clone');
    expect((await sshGit(work.path, ['clone', '-q', url('alice/secret'), clone], keys.deploy)).code).toBe(0);
    await git(clone, ['commit', '-q', '--allow-empty', '-m', 'from a deploy key'], work.path);
    const refused = await sshGit(clone, ['push', 'origin', 'HEAD:main'], keys.deploy);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('ERROR: The key you are authenticating with has been marked as read only.');
    // Another repository, even a public one, is not the key's.
    expect((await sshGit(work.path, ['ls-remote', url('alice/open')], keys.deploy)).stderr).toContain('ERROR: Repository not found.');
    const writer = await http(`${host.url}/api/v1/repos/alice/secret/keys`, { headers: bearer(alice.token), json: { title: 'Release bot', key: await publicKey('writer'), read_only: false } });
    expect(writer.status).toBe(201);
    expect(writer.json).toMatchObject({ title: 'Release bot', read_only: false, key_id: writer.json.id });
    const pushed = await sshGit(clone, ['push', 'origin', 'HEAD:refs/heads/deployed'], keys.writer);
    expect(pushed.code).toBe(0);
    expect((await http(`${host.url}/api/v3/repos/alice/secret/branches/deployed`, { headers: bearer(alice.token) })).status).toBe(200);
  });

  it('holds protected branches over SSH and shows the reason', async () => {
    const rule = await http(`${host.url}/api/v3/repos/alice/open/branches/main/protection`, {
      method: 'PUT',
      headers: bearer(alice.token),
      json: { required_status_checks: null, enforce_admins: true, required_pull_request_reviews: { required_approving_review_count: 0 }, restrictions: null },
    });
    expect(rule.status).toBe(200);
    const clone = join(work.path, 'protected');
    expect((await sshGit(work.path, ['clone', '-q', url('alice/open'), clone], keys.alice)).code).toBe(0);
    await git(clone, ['commit', '-q', '--allow-empty', '-m', 'straight to main'], work.path);
    const push = await sshGit(clone, ['push', 'origin', 'HEAD:main'], keys.alice);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('branch main is protected (main): changes reach it through pull requests only');
    expect(push.stderr).toContain('[remote rejected]');
    expect((await sshGit(clone, ['push', 'origin', 'HEAD:refs/heads/topic'], keys.alice)).code).toBe(0);
  });

  it('refuses a shell and any other command with one friendly line, and gives no forwarding', async () => {
    const shell = await ssh(keys.alice, ['-T']);
    expect(shell.code).toBe(1);
    expect(shell.stderr).toContain("Hi alice! You've successfully authenticated, but repohost does not provide shell access.");
    const other = await ssh(keys.alice, ['ls', '-la', '/']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('is not a command repohost runs');
    const escape = await ssh(keys.alice, ["git-upload-pack '../../etc'"]);
    expect(escape.code).toBe(1);
    const forward = await attempt('ssh', [...sshOptions(keys.alice), '-p', String(host.sshPort), '-W', `127.0.0.1:${host.sshPort}`, 'git@127.0.0.1']);
    expect(forward.code).not.toBe(0);
    expect(forward.stderr).toMatch(/stdio forwarding failed|open failed|administratively prohibited/);
  });

  it('names the SSH clone URL in /api/v3 and /api/v1, and it clones', async () => {
    const repo = await http(`${host.url}/api/v3/repos/alice/open`, { headers: bearer(alice.token) });
    expect(repo.json.ssh_url).toBe(url('alice/open'));
    expect((await sshGit(work.path, ['ls-remote', repo.json.ssh_url], keys.alice)).code).toBe(0);
    expect((await http(`${host.url}/api/v1/repos/alice/open`)).json.ssh_url).toBe(url('alice/open'));
    // A host that does not serve SSH names no SSH URL.
    const plain = await startHost();
    try {
      const owner = await newUser(plain, 'alice');
      await newRepo(plain, owner, 'open', 'public');
      expect((await http(`${plain.url}/api/v1/repos/alice/open`)).json.ssh_url).toBe('');
    } finally {
      await plain.close();
    }
  });
});
