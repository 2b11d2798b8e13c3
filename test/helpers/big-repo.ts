import { spawn } from 'node:child_process';
import type { RepoHost } from '../../lib/index.js';
import { git } from './git-cli.js';
import { startHost, tempDir } from './host.js';

/** The path of file `i` of the wide folder (zero-padded, so git's order is the numeric order). */
export const wideFile = (i: number, folder = 'wide') => `${folder ? `${folder}/` : ''}f${String(i).padStart(5, '0')}.txt`;

/** What `pushWideHistory` made: the commit adding the folder and the one changing every file of it. */
export interface WideHistory {
  added: string;
  changed: string;
}

/**
 * Pushes to `owner/repo` (over smart HTTP with the real git, Basic username + token) a `main` of two commits made
 * by git fast-import: the first adds README.md and `folder` (`wide/`; '' for the top level) with `files` small text
 * files, the second changes every one of them (so both a folder and two commits are as large as `files`).
 */
export async function pushWideHistory(host: RepoHost, owner: string, token: string, repo: string, files: number, folder = 'wide'): Promise<WideHistory> {
  const work = await tempDir('repohost-wide-');
  try {
    const dir = work.path;
    await git(dir, ['init', '-q', '--bare', 'repo.git'], dir);
    const bare = `${dir}/repo.git`;
    await fastImport(bare, wideStream(files, folder));
    const [added, changed] = (await git(bare, ['rev-list', '--reverse', 'main'], dir)).split('\n') as [string, string];
    const remote = new URL(`${host.url}/${owner}/${repo}.git`);
    remote.username = owner;
    remote.password = token;
    await git(bare, ['push', '-q', remote.toString(), 'main'], dir);
    return { added, changed };
  } finally {
    await work.cleanup();
  }
}

function* wideStream(files: number, folder: string): Generator<string> {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  yield `commit refs/heads/main\nmark :1\ncommitter Test <test@example.com> 1700000000 +0000\n${data(`Add ${files} files`)}`;
  yield `M 100644 inline README.md\n${data('# wide\n')}`;
  for (let i = 0; i < files; i += 1) yield `M 100644 inline ${wideFile(i, folder)}\n${data(`file ${i}\nline two\n`)}`;
  yield `\ncommit refs/heads/main\nmark :2\ncommitter Test <test@example.com> 1700000060 +0000\n${data(`Change ${files} files`)}from :1\n`;
  for (let i = 0; i < files; i += 1) yield `M 100644 inline ${wideFile(i, folder)}\n${data(`file ${i} changed\nline two\n`)}`;
  yield '\n';
}

function fastImport(gitDir: string, stream: Iterable<string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['fast-import', '--quiet'], {
      cwd: gitDir,
      env: { PATH: process.env.PATH ?? '', HOME: gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`git fast-import: ${code}\n${stderr}`))));
    (async () => {
      for (const piece of stream) if (!child.stdin.write(piece)) await new Promise((ready) => child.stdin.once('drain', ready));
      child.stdin.end();
    })().catch(reject);
  });
}

/** A host with `alice/wide` holding a wide history of `files` files (see `pushWideHistory`). */
export async function startWideHost(files: number): Promise<{ host: RepoHost; wide: WideHistory }> {
  const host = await startHost();
  try {
    await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    const token = await host.admin.createToken('alice', 'push');
    await host.admin.createRepo({ owner: 'alice', name: 'wide' });
    return { host, wide: await pushWideHistory(host, 'alice', token, 'wide', files) };
  } catch (error) {
    await host.close();
    throw error;
  }
}
