import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/host.js';
import { BIN, call, runCli, startCliServer } from './processes.js';

const ANSI = /\u001b\[/;
let dir: { path: string; cleanup: () => Promise<void> };
let db: string[];
beforeAll(async () => {
  dir = await tempDir('repohost-cli-');
  db = ['--db', join(dir.path, 'cli.db')];
});
afterAll(() => dir.cleanup());

/** Exit code, and for failures one line on stderr with no stack trace and no colour. */
function expectFailure(result: { code: number | null; stdout: string; stderr: string }, code: 1 | 2, text: string | RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(text);
  expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
  expect(result.stderr).not.toMatch(ANSI);
}

describe('repohost (no server running: the command opens the database itself)', () => {
  it('prints its version and help, and answers usage errors with exit code 2', async () => {
    const { version } = JSON.parse(await (await import('node:fs/promises')).readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const versionResult = await runCli(['--version']);
    expect(versionResult).toMatchObject({ code: 0, stdout: `${version}\n` });
    for (const args of [['--help'], ['serve', '--help'], ['user', 'add', '--help'], ['user', 'list', '--help'], ['user', 'passwd', '--help'], ['token', 'create', '--help'], ['token', 'list', '--help'], ['token', 'revoke', '--help'], ['repo', 'create', '--help'], ['repo', 'seed', '--help']]) {
      const help = await runCli(args);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout).toMatch(/^Usage: repohost/);
      if (args.length > 1) expect(help.stdout).toContain('--db <file>');
    }
    expectFailure(await runCli(['launch']), 2, /unknown command 'launch'/);
    expectFailure(await runCli(['token', 'create', ...db]), 2, /missing required argument 'username'/);
    expectFailure(await runCli(['user', 'add', 'x', '--password', 'p', ...db]), 2, /required option '--email <email>'/);
    expectFailure(await runCli(['user', 'list', '--nope', ...db]), 2, /unknown option '--nope'/);
    expectFailure(await runCli(['serve', '--port', 'eighty', ...db]), 2, /invalid port "eighty"/);
    expectFailure(await runCli(['serve', '--database-pool-size', '4', ...db]), 2, /--database-pool-size needs --database-url/);
    expectFailure(await runCli(['serve', '--database-pool-size', 'many', '--database-url', 'postgres://127.0.0.1:1/none', '--data', '/tmp/none']), 2, /invalid --database-pool-size "many": expected 1-1000/);
    const bare = await runCli(['user']);
    expect(bare.code).toBe(2);
  });

  // `script` gives the command a terminal; without one (the other tests) nothing is ever coloured.
  it.skipIf(spawnSync('script', ['--version']).status !== 0)('colours errors only on a terminal and never with NO_COLOR', () => {
    const onTerminal = (env: Record<string, string | undefined>) =>
      spawnSync('script', ['-qec', `"${process.execPath}" "${BIN}" launch`, '/dev/null'], { env: { ...process.env, ...env } }).stdout.toString();
    const coloured = onTerminal({ NO_COLOR: undefined });
    expect(coloured).toContain('unknown command');
    expect(coloured).toMatch(ANSI);
    const plain = onTerminal({ NO_COLOR: '1' });
    expect(plain).toContain('unknown command');
    expect(plain).not.toMatch(ANSI);
  });

  it('adds users (password from an option or stdin) and lists them', async () => {
    expect(await runCli(['user', 'list', ...db])).toMatchObject({ code: 0, stdout: '' });
    expect(await runCli(['user', 'add', 'alice', '--email', 'alice@example.com', '--password', 'password123', '--full-name', 'Alice A', '--admin', ...db])).toMatchObject({
      code: 0,
      stdout: 'created user alice\n',
    });
    expect((await runCli(['user', 'add', 'bob', '--email', 'bob@example.com', '--password-stdin', ...db], { input: 'hunter22hunter\n' })).code).toBe(0);
    const list = await runCli(['user', 'list', ...db]);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n').filter(Boolean).map((line) => line.split('\t'))).toEqual([
      ['alice', 'alice@example.com', 'Alice A', 'admin'],
      ['bob', 'bob@example.com', '', ''],
    ]);
    const json = JSON.parse((await runCli(['user', 'list', '--json', ...db])).stdout);
    expect(json).toMatchObject([{ username: 'alice', admin: true, full_name: 'Alice A' }, { username: 'bob', admin: false }]);

    expectFailure(await runCli(['user', 'add', 'alice', '--email', 'a@example.com', '--password', 'password123', ...db]), 1, /already taken/);
    expectFailure(await runCli(['user', 'add', 'login', '--email', 'l@example.com', '--password', 'password123', ...db]), 1, /^error: /);
    expectFailure(await runCli(['user', 'add', '-bad', '--email', 'l@example.com', '--password', 'password123', ...db]), 2, /unknown option '-b'|^error/);
    expectFailure(await runCli(['user', 'add', 'carol', '--email', 'c@example.com', ...db]), 2, /password is required/);
    expectFailure(await runCli(['user', 'add', 'carol', '--email', 'c@example.com', '--password', 'x', '--password-stdin', ...db]), 2, /either --password or --password-stdin/);
  });

  it('changes a password from stdin and refuses an unknown user', async () => {
    expect(await runCli(['user', 'passwd', 'bob', ...db], { input: 'a-new-password\n' })).toMatchObject({ code: 0, stdout: 'password of bob changed\n' });
    expectFailure(await runCli(['user', 'passwd', 'nobody', ...db], { input: 'whatever123\n' }), 1, /not found/i);
    // The new password works, the old one does not.
    const server = await startCliServer(db);
    try {
      const login = (password: string) => call(`${server.url}/login`, { form: { username: 'bob', password, no_redirect: '1' } });
      expect((await login('a-new-password')).status).toBe(200);
      expect((await login('hunter22hunter')).status).toBe(401);
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }
  });

  it("confirms a user's address, which /api/v3 then says is verified, and refuses an unknown user", async () => {
    expect(await runCli(['user', 'verify-email', 'bob', ...db])).toMatchObject({ code: 0, stdout: 'e-mail address of bob verified\n' });
    expectFailure(await runCli(['user', 'verify-email', 'nobody', ...db]), 1, /not found/i);
    const token = (await runCli(['token', 'create', 'bob', '--name', 'emails', ...db])).stdout.trim();
    const server = await startCliServer(db);
    try {
      expect((await call(`${server.url}/api/v3/user/emails`, { token })).json).toMatchObject([{ primary: true, verified: true }]);
    } finally {
      expect(await server.kill('SIGTERM')).toBe(0);
    }
  });

  it('creates, lists and revokes API tokens; create prints only the token', async () => {
    const created = await runCli(['token', 'create', 'alice', '--name', 'ci', ...db]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    const unnamed = await runCli(['token', 'create', 'alice', ...db]);
    expect(unnamed.stdout).toMatch(/^[0-9a-f]{64}\n$/);
    const list = (await runCli(['token', 'list', 'alice', ...db])).stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual([expect.stringMatching(/^\d+$/), 'ci', `…${created.stdout.trim().slice(-8)}`, expect.any(String)]);
    const tokens = JSON.parse((await runCli(['token', 'list', 'alice', '--json', ...db])).stdout) as Array<{ id: number; name: string }>;

    expectFailure(await runCli(['token', 'create', 'alice', '--name', 'ci', ...db]), 1, /^error: .+/);
    expectFailure(await runCli(['token', 'create', 'nobody', ...db]), 1, /not found/i);
    expectFailure(await runCli(['token', 'revoke', 'alice', 'no-such-label', ...db]), 1, /not found/i);
    expectFailure(await runCli(['token', 'revoke', 'alice', ...db]), 2, /missing required argument/);

    expect((await runCli(['token', 'revoke', 'alice', 'ci', ...db])).code).toBe(0);
    expect((await runCli(['token', 'revoke', 'alice', String(tokens[1]!.id), ...db])).code).toBe(0);
    expect((await runCli(['token', 'list', 'alice', ...db])).stdout).toBe('');

    // A revoked token no longer authenticates.
    const server = await startCliServer(db);
    try {
      expect((await call(`${server.url}/api/v1/me`, { token: created.stdout.trim() })).status).toBe(401);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('creates repositories, public and private, and refuses bad names and duplicates', async () => {
    expect(await runCli(['repo', 'create', 'alice/project', '--description', 'A project', ...db])).toMatchObject({ code: 0, stdout: 'created repository alice/project\n' });
    expect((await runCli(['repo', 'create', 'alice/secret', '--private', ...db])).code).toBe(0);
    expectFailure(await runCli(['repo', 'create', 'alice/project', ...db]), 1, /already exists/);
    expectFailure(await runCli(['repo', 'create', 'project', ...db]), 2, /expected <owner>\/<name>/);
    expectFailure(await runCli(['repo', 'create', 'nobody/project', ...db]), 1, /not found/i);
    expectFailure(await runCli(['repo', 'create', 'alice/.hidden', ...db]), 1, /^error: /);
    const server = await startCliServer(db);
    try {
      expect((await call(`${server.url}/api/v1/repos/alice/project`)).json).toMatchObject({ name: 'project', description: 'A project', private: false });
      expect((await call(`${server.url}/api/v1/repos/alice/secret`)).status).toBe(404);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('seeds repositories: a README by default, a folder as one commit, a git repository with all branches and tags', async () => {
    const files = join(dir.path, 'site');
    await mkdir(join(files, 'docs'), { recursive: true });
    await writeFile(join(files, 'index.html'), '<h1>hi</h1>\n');
    await writeFile(join(files, 'docs', 'guide.md'), '# Guide\n');

    const source = join(dir.path, 'source');
    const git = (...args: string[]) => {
      const result = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=trunk', ...args], { cwd: source });
      if (result.status !== 0) throw new Error(result.stderr.toString());
    };
    await mkdir(source);
    git('init', '-q');
    await writeFile(join(source, 'a.txt'), 'a\n');
    git('add', '.');
    git('commit', '-qm', 'first');
    git('tag', 'v1');
    git('checkout', '-qb', 'feature');
    await writeFile(join(source, 'b.txt'), 'b\n');
    git('add', '.');
    git('commit', '-qm', 'second');

    expect(await runCli(['repo', 'seed', 'alice/readme', '--description', 'Read me', ...db])).toMatchObject({ code: 0, stdout: 'created and seeded alice/readme: refs/heads/main\n' });
    expect((await runCli(['repo', 'seed', 'alice/site', '--from', files, '--private', ...db])).code).toBe(0);
    const imported = await runCli(['repo', 'seed', 'alice/imported', '--from', source, ...db]);
    // The source's HEAD (feature, checked out there) comes first and becomes the default branch.
    expect(imported.stdout).toBe('created and seeded alice/imported: refs/heads/feature, refs/heads/trunk, refs/tags/v1\n');
    git('checkout', '-q', 'trunk');
    const importedTrunk = await runCli(['repo', 'seed', 'alice/imported2', '--from', source, ...db]);
    expect(importedTrunk.stdout).toBe('created and seeded alice/imported2: refs/heads/trunk, refs/heads/feature, refs/tags/v1\n');
    // Seeding an existing repository from a folder adds a commit on top.
    expect(await runCli(['repo', 'seed', 'alice/project', '--from', files, ...db])).toMatchObject({ code: 0, stdout: 'seeded alice/project: refs/heads/main\n' });
    expectFailure(await runCli(['repo', 'seed', 'alice/other', '--from', join(dir.path, 'missing'), ...db]), 1, /not a directory or git URL/);
    expectFailure(await runCli(['repo', 'seed', 'nobody/x', ...db]), 1, /not found/i);

    const server = await startCliServer(db);
    try {
      const token = (await runCli(['token', 'create', 'alice', ...db])).stdout.trim();
      const tree = async (repo: string, branch: string) => {
        const { id } = (await call(`${server.url}/api/v1/repos/alice/${repo}`, { token })).json as { id: number };
        const result = await call(`${server.url}/api/v1/repos/${id}/tree/files?branch=${branch}`, { token });
        return ((result.json?.files ?? result.json?.result ?? result.json) as Array<{ name: string }>).map((entry) => entry.name).sort();
      };
      expect(await tree('readme', 'main')).toEqual(['README.md']);
      expect(await tree('site', 'main')).toEqual(['docs', 'index.html']);
      expect(await tree('project', 'main')).toEqual(['docs', 'index.html']);
      expect(await tree('imported', 'feature')).toEqual(['a.txt', 'b.txt']);
      expect(await tree('imported', 'trunk')).toEqual(['a.txt']);
      expect((await call(`${server.url}/api/v1/repos/alice/imported`)).json.default_branch).toBe('feature');
      expect((await call(`${server.url}/api/v1/repos/alice/imported2`)).json.default_branch).toBe('trunk');
      expect((await call(`${server.url}/api/v1/alice/imported/branches/count`, { token })).json).toMatchObject({ result: 2 });
      expect((await call(`${server.url}/api/v1/alice/project/main/commits/count`, { token })).json).toMatchObject({ result: 1 });
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
