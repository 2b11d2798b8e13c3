import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { acquireGitLauncher, gitLauncherStarted } from '../../lib/git/launcher/index.js';
import { runGit, spawnGit, type GitChild } from '../../lib/git/run-git.js';

/** The parent of a process (Linux /proc). */
async function parentOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** This process's launchers (the process names itself; the kernel keeps 15 characters of it). */
async function launchers(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat.includes('(repohost-git-') && Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid) found.push(Number(entry));
  }
  return found;
}

const started = (child: GitChild) => new Promise<number>((resolve, reject) => {
  child.once('spawn', () => resolve((child as unknown as { pid: number }).pid));
  child.once('error', reject);
});

/** Runs `check` with the launcher acquired and started (by a first git command), and releases it afterwards. */
async function withLauncher(check: () => Promise<void>, log?: (line: string) => void): Promise<void> {
  const release = acquireGitLauncher(log);
  try {
    await runGit(['--version']);
    expect(await gitLauncherStarted()).toBe(true);
    await check();
  } finally {
    await release();
  }
}

describe.runIf(process.platform === 'linux')('the git launcher', () => {
  it('is started by the first git command, not by its first user (issue 23: a host that never runs git never pays for it)', async () => {
    const release = acquireGitLauncher();
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await launchers()).toEqual([]);
      expect(await gitLauncherStarted()).toBe(false);
      // The first command runs directly while the launcher it started comes up; later ones go through the launcher.
      const first = spawnGit(['cat-file', '--batch']);
      expect(await parentOf(await started(first))).toBe(process.pid);
      first.stdin.end();
      await first.done;
      expect(await gitLauncherStarted()).toBe(true);
      const [launcher] = await launchers();
      const next = spawnGit(['cat-file', '--batch']);
      expect(await parentOf(await started(next))).toBe(launcher);
      next.stdin.end();
      await next.done;
    } finally {
      await release();
    }
    for (let tries = 0; tries < 50 && (await launchers()).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
  });

  it('runs git from a process of its own, with stdin, stdout, stderr, exit codes and kill working as with pipes', async () => {
    await withLauncher(async () => {
      // A git that waits for its input: its parent is the launcher, not this process.
      const child = spawnGit(['hash-object', '--stdin']);
      const pid = await started(child);
      expect(await parentOf(pid)).not.toBe(process.pid);
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      // 8 MiB through stdin, with backpressure, then end of input.
      const big = Buffer.alloc(8 * 1024 * 1024, 'x');
      child.stdin.end(big);
      await child.done;
      const { stdout: expected } = await runGit(['hash-object', '--stdin'], { input: big });
      expect(Buffer.concat(chunks).toString()).toBe(expected.toString());

      // Input written, or given up (a client gone), before git has even started: git still runs, and sees it or an end.
      const blobId = (text: string) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex');
      expect((await runGit(['hash-object', '--stdin'], { input: 'early' })).stdout.toString().trim()).toBe(blobId('early'));
      const givenUp = spawnGit(['hash-object', '--stdin']);
      const empty: Buffer[] = [];
      givenUp.stdout.on('data', (chunk: Buffer) => empty.push(chunk));
      givenUp.stdin.destroy();
      await givenUp.done;
      expect(Buffer.concat(empty).toString().trim()).toBe(blobId(''));

      // A git that exits without reading its input succeeds as with a pipe (the write to it fails, its exit decides).
      for (let round = 0; round < 5; round++) {
        expect((await runGit(['--version'], { input: Buffer.alloc(4 * 1024 * 1024, 'y') })).stdout.toString()).toMatch(/^git version/);
      }

      // A failing command: its exit code and stderr come back.
      await expect(runGit(['rev-parse', '--verify', 'no-such-thing'], { gitDir: tmpdir() })).rejects.toThrow(/exited with 128: .*not a git repository/);
      // One that cannot start at all (no such folder) is an error, as a spawn is.
      await expect(runGit(['--version'], { cwd: '/nonexistent-folder' })).rejects.toThrow(/ENOENT/);
      // A killed one: its signal comes back.
      const waiting = spawnGit(['cat-file', '--batch']);
      await started(waiting);
      waiting.kill('SIGKILL');
      await expect(waiting.done).rejects.toMatchObject({ signal: 'SIGKILL' });
    });
    // Released by its last user, the launcher ends, and git is spawned directly again.
    for (let tries = 0; tries < 50 && (await launchers()).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await launchers()).toEqual([]);
    const direct = spawnGit(['cat-file', '--batch']);
    expect(await parentOf(await started(direct))).toBe(process.pid);
    direct.stdin.end();
    await direct.done;
  });

  it('keeps the input and output of each launch apart when hundreds start at once', async () => {
    await withLauncher(async () => {
      const texts = Array.from({ length: 400 }, (_, index) => `input number ${index}\n`.repeat(index % 7 + 1));
      const ids = await Promise.all(texts.map(async (text) => (await runGit(['hash-object', '--stdin'], { input: text })).stdout.toString().trim()));
      expect(ids).toEqual(texts.map((text) => createHash('sha1').update(`blob ${Buffer.byteLength(text)}\0${text}`).digest('hex')));
    });
  });

  it('reports what it ran as killed when the launcher dies, and still runs git afterwards', async () => {
    const lines: string[] = [];
    await withLauncher(async () => {
      const waiting = spawnGit(['cat-file', '--batch']);
      const pid = await started(waiting);
      const [launcher] = await launchers();
      expect(await parentOf(pid)).toBe(launcher);
      process.kill(launcher!, 'SIGKILL');
      await expect(waiting.done).rejects.toMatchObject({ signal: 'SIGKILL' });
      const { stdout } = await runGit(['--version']);
      expect(stdout.toString()).toMatch(/^git version/);
      expect(lines).toEqual([expect.stringContaining(`git launcher (pid ${launcher}) died`)]);
    }, (line) => lines.push(line));
  });

  it('starts a new launcher with the next git command after one died, logs each death once, and backs off while they die young', async () => {
    const lines: string[] = [];
    const release = acquireGitLauncher((line) => lines.push(line));
    const until = async (condition: () => boolean | Promise<boolean>) => {
      for (let tries = 0; tries < 250 && !(await condition()); tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await condition()).toBe(true);
    };
    const parentOfNewGit = async () => {
      const child = spawnGit(['cat-file', '--batch']);
      const parent = await parentOf(await started(child));
      child.stdin.end();
      await child.done;
      return parent;
    };
    try {
      await runGit(['--version']);
      expect(await gitLauncherStarted()).toBe(true);
      const [first] = await launchers();
      process.kill(first!, 'SIGKILL');
      await until(() => lines.length === 1);
      expect(lines[0]).toMatch(new RegExp(`^repohost: the git launcher \\(pid ${first}\\) died \\(signal SIGKILL\\); .*with the next git command$`));
      // The next launches run (directly until it is up), the first of them starting a new launcher.
      await Promise.all(Array.from({ length: 20 }, () => runGit(['--version'])));
      expect(await gitLauncherStarted()).toBe(true);
      const [second] = await launchers();
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      expect(await parentOfNewGit()).toBe(second);
      expect(lines).toHaveLength(1); // one line for the death, none per launch

      // It dies young again: no restart before the back-off (1 s), git runs directly meanwhile; one more line.
      process.kill(second!, 'SIGKILL');
      await until(() => lines.length === 2);
      expect(lines[1]).toMatch(/died \(signal SIGKILL\); .* in 1 s or later$/);
      expect(await parentOfNewGit()).toBe(process.pid);
      expect(await launchers()).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await runGit(['--version']);
      expect(await gitLauncherStarted()).toBe(true);
      const [third] = await launchers();
      expect([first, second]).not.toContain(third);
      expect(await parentOfNewGit()).toBe(third);
      expect(lines).toHaveLength(2);
    } finally {
      await release();
    }
    // The restarted launcher ends with its last user, as the first one does.
    for (let tries = 0; tries < 50 && (await launchers()).length > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await launchers()).toEqual([]);
  });
});
