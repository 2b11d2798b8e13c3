import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { RepoHost } from '../../lib/index.js';
import { tempDir } from './host.js';

const run = promisify(execFile);

/** Runs the real `git` executable with no user or system configuration and no prompts. */
export async function git(cwd: string, args: string[], home: string): Promise<string> {
  const { stdout } = await run('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

/** The smart HTTP URL of `owner/repo` with `owner` and a token in it, for a git command that authenticates. */
export function remoteUrl(host: RepoHost, owner: string, token: string, repo: string): string {
  const remote = new URL(`${host.url}/${owner}/${repo}.git`);
  remote.username = owner;
  remote.password = token;
  return remote.toString();
}

/**
 * Pushes one commit holding `files` (path → content; folders made as needed) as `main` of `owner/repo`, with the real
 * git CLI over smart HTTP.
 */
export async function pushFiles(host: RepoHost, owner: string, token: string, repo: string, files: Record<string, string | Buffer>, message = 'Add files'): Promise<void> {
  const work = await tempDir('repohost-files-');
  try {
    const dir = work.path;
    await git(dir, ['init', '-q', '-b', 'main', '.'], dir);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    await git(dir, ['add', '.'], dir);
    await git(dir, ['commit', '-q', '-m', message], dir);
    await git(dir, ['push', '-q', remoteUrl(host, owner, token, repo), 'main'], dir);
  } finally {
    await work.cleanup();
  }
}

export interface SeededBranches {
  /** Commit ids of the pushed branches. */
  main: string;
  feature: string;
}

/**
 * Pushes two branches to `owner/repo` over smart HTTP with the real git CLI, authenticated with HTTP Basic
 * (username + API token): `main` with one commit (README.md) and `feature` one commit ahead (feature.txt);
 * `extraBranchesAtMain` are pushed too, pointing at `main`.
 */
export async function pushTwoBranches(host: RepoHost, owner: string, token: string, repo: string, extraBranchesAtMain: string[] = []): Promise<SeededBranches> {
  const work = await tempDir('repohost-push-');
  try {
    const dir = work.path;
    await git(dir, ['init', '-q', '.'], dir);
    await writeFile(join(dir, 'README.md'), `# ${repo}\n`);
    await git(dir, ['add', 'README.md'], dir);
    await git(dir, ['commit', '-q', '-m', 'Initial commit'], dir);
    const main = await git(dir, ['rev-parse', 'HEAD'], dir);
    for (const branch of extraBranchesAtMain) await git(dir, ['branch', branch], dir);
    await git(dir, ['checkout', '-q', '-b', 'feature'], dir);
    await writeFile(join(dir, 'feature.txt'), 'a feature\n');
    await git(dir, ['add', 'feature.txt'], dir);
    await git(dir, ['commit', '-q', '-m', 'Add a feature'], dir);
    const feature = await git(dir, ['rev-parse', 'HEAD'], dir);
    await git(dir, ['push', '-q', remoteUrl(host, owner, token, repo), 'main', 'feature', ...extraBranchesAtMain], dir);
    return { main, feature };
  } finally {
    await work.cleanup();
  }
}
