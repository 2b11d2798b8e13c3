import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { isDotGitName } from '../../lib/git/dot-git.js';
import { http, startHost, tempDir } from '../helpers/host.js';
import { multipart, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { git, pushFiles, remoteUrl } from '../helpers/git-cli.js';

const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// Issue 38: names git's own verify_path refuses (HFS+ and NTFS spellings of `.git` included) are refused by every
// way a file is written: the contents API, the editor, uploads, and pushes (receive.fsckObjects, as GitHub).
const REFUSED_PATHS = ['.git/config', '.GIT/config', '.git /config', '.git./config', 'git~1/config', 'GIT~1/hooks/x', '.g\u200cit/config', 'a/.git:stream', 'a\\.git\\config', 'docs/.git. . /x'];
const ACCEPTED_NAMES = ['.gitignore', '.github', '.gitmodules', 'git~2', '.git-foo', 'x.git', 'git', '.gi', 'git~1x'];

describe('names git refuses as .git', () => {
  it.each(REFUSED_PATHS)('takes a name of %j for .git', (path) => {
    expect(path.split('/').some(isDotGitName)).toBe(true);
  });

  it.each(ACCEPTED_NAMES)('takes %j for an ordinary name', (name) => {
    expect(isDotGitName(name)).toBe(false);
  });

  describe('through every door that writes a file', () => {
    let host: RepoHost;
    let alice: TestUser;
    const exists = async (path: string) => (await http(`${host.url}/api/v3/repos/alice/project/contents/${encodeURIComponent(path)}`, { headers: { authorization: `token ${alice.token}` } })).status;

    beforeAll(async () => {
      host = await startHost();
      alice = await newUser(host, 'alice');
      await newRepo(host, alice, 'project');
      await pushFiles(host, 'alice', alice.token, 'project', { 'README.md': '# project\n' });
    });
    afterAll(() => host?.close());

    it.each(REFUSED_PATHS)('refuses %j through the contents API with 422, the editor and uploads with 400', async (path) => {
      const put = await http(`${host.url}/api/v3/repos/alice/project/contents/${path.split('/').map(encodeURIComponent).join('/')}`, {
        method: 'PUT',
        headers: { authorization: `token ${alice.token}` },
        json: { message: 'into .git', content: Buffer.from('[core]\n').toString('base64') },
      });
      expect(put.status, put.text).toBe(422);
      expect(put.text).toMatch(/not a valid path/);
      const edited = await http(`${host.url}/alice/project/_new/main`, { headers: { cookie: `token=${alice.session}` }, form: { name: path, content: '[core]\n', message: 'into .git', target: 'direct' } });
      expect(edited.status, edited.text.slice(0, 200)).toBe(400);
      expect(await exists(path)).toBe(404);
      // An upload names files, not folders: the name that is taken for .git, uploaded at the top (a name with a
      // backslash is a Windows browser's path, of which the upload keeps the last part).
      const dotGit = path.split('/').find(isDotGitName)!;
      if (dotGit.includes('\\')) return;
      const upload = multipart([
        { name: 'files', filename: dotGit, contentType: 'text/plain', data: '[core]\n' },
        { name: 'message', data: 'into .git' },
        { name: 'target', data: 'direct' },
      ]);
      const uploaded = await http(`${host.url}/alice/project/_upload/main`, {
        headers: { cookie: `token=${alice.session}`, 'content-type': upload.contentType },
        body: upload.body,
      });
      expect(uploaded.status, uploaded.text.slice(0, 200)).toBe(400);
      expect(await exists(dotGit)).toBe(404);
    });

    it('refuses to import a repository whose tree holds .git (served by git daemon), leaving nothing behind', async () => {
      const work = await tempDir('repohost-dotgit-import-');
      let daemon: ChildProcess | undefined;
      try {
        const dir = work.path;
        await git(dir, ['init', '-q', '--bare', 'evil.git'], dir);
        await git(dir, ['init', '-q', '-b', 'main', 'w'], dir);
        const w = join(dir, 'w');
        await writeFile(join(w, 'f'), 'hi\n');
        await git(w, ['add', 'f'], dir);
        await git(w, ['commit', '-q', '-m', 'one'], dir);
        const blob = await git(w, ['hash-object', '-w', 'f'], dir);
        const inner = (await run('sh', ['-c', `printf '100644 blob ${blob}\\tconfig\\n' | git mktree`], { cwd: w })).stdout.trim();
        const tree = (await run('sh', ['-c', `(git ls-tree HEAD; printf '040000 tree ${inner}\\tgit~1\\n') | git mktree`], { cwd: w })).stdout.trim();
        const commit = await git(w, ['commit-tree', tree, '-p', 'HEAD', '-m', 'Into .git'], dir);
        await git(w, ['push', '-q', join(dir, 'evil.git'), `${commit}:refs/heads/main`], dir);
        const port = await freePort();
        daemon = spawn('git', ['daemon', '--export-all', `--base-path=${dir}`, `--port=${port}`, '--listen=127.0.0.1', '--reuseaddr'], { stdio: 'ignore' });
        await expect.poll(async () => (await run('git', ['ls-remote', `git://127.0.0.1:${port}/evil.git`]).catch(() => ({ stdout: '' }))).stdout, { timeout: 10_000 }).toMatch(/refs\/heads\/main/);
        const imported = await http(`${host.url}/new`, {
          headers: { cookie: `token=${alice.session}` },
          form: { name: 'evil', description: '', clone_url: `git://127.0.0.1:${port}/evil.git`, repo_visibility: 'public', no_redirect: '1' },
        });
        expect(imported.status, imported.text).toBe(400);
        expect(imported.text).toMatch(/hasDotgit/);
        expect((await http(`${host.url}/api/v1/repos/alice/evil`)).status).toBe(404);
      } finally {
        daemon?.kill();
        await work.cleanup();
      }
    });

    it('refuses a push whose tree holds .git, with the message git gives, and moves no branch', async () => {
      const work = await tempDir('repohost-dotgit-');
      try {
        const dir = work.path;
        await git(dir, ['init', '-q', '-b', 'main', '.'], dir);
        await git(dir, ['pull', '-q', remoteUrl(host, 'alice', alice.token, 'project'), 'main'], dir);
        const before = await git(dir, ['rev-parse', 'HEAD'], dir);
        // git add refuses such paths, so the tree is made with plumbing, as an attacker would.
        const blob = await git(dir, ['hash-object', '-w', 'README.md'], dir);
        for (const name of ['.git', '.git ', 'git~1']) {
          const inner = (await run('sh', ['-c', `printf '100644 blob ${blob}\\tconfig\\n' | git mktree`], { cwd: dir })).stdout.trim();
          const tree = (await run('sh', ['-c', `(git ls-tree HEAD; printf '040000 tree ${inner}\\t%s\\n' "$1") | git mktree`, 'sh', name], { cwd: dir })).stdout.trim();
          const commit = await git(dir, ['commit-tree', tree, '-p', before, '-m', 'Into .git'], dir);
          const pushed = await run('git', ['push', remoteUrl(host, 'alice', alice.token, 'project'), `${commit}:refs/heads/main`], { cwd: dir, env: { ...process.env, HOME: dir, GIT_TERMINAL_PROMPT: '0' } }).then(
            () => ({ ok: true, stderr: '' }),
            (error: { stderr: string }) => ({ ok: false, stderr: error.stderr }),
          );
          expect(pushed.ok, name).toBe(false);
          expect(pushed.stderr).toMatch(/hasDotgit|contains '\.git'/);
        }
        const main = (await http(`${host.url}/api/v3/repos/alice/project/branches/main`)).json.commit.sha as string;
        expect(main).toBe(before);
      } finally {
        await work.cleanup();
      }
    });
  });
});
