import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Runs the real git in `cwd` with no user/system config and a fixed identity; returns trimmed stdout. */
export async function sh(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await exec('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgSign=false', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LANG: 'C', ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

/** A working copy with a clock: every commit gets the next second (or the same one when asked). */
export class WorkTree {
  #time = 1_700_000_000;
  constructor(readonly dir: string) {}

  static async init(dir: string): Promise<WorkTree> {
    await mkdir(dir, { recursive: true });
    await sh(dir, ['init', '-q', '.']);
    return new WorkTree(dir);
  }

  git(args: string[], options: { sameTime?: boolean } = {}): Promise<string> {
    if (!options.sameTime) this.#time += 1;
    const date = `${this.#time} +0000`;
    return sh(this.dir, args, { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
  }

  async write(files: Record<string, string | null>): Promise<void> {
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.dir, path);
      if (content === null) await rm(full, { force: true, recursive: true });
      else {
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, content);
      }
    }
  }

  async commit(message: string, files: Record<string, string | null> = {}, options: { sameTime?: boolean } = {}): Promise<string> {
    await this.write(files);
    await this.git(['add', '-A', '.'], options);
    await this.git(['commit', '-q', '--allow-empty', '-m', message], { sameTime: true });
    return this.git(['rev-parse', 'HEAD'], { sameTime: true });
  }
}

/**
 * A history that exercises every rule of `git log -1 -- <path>`: ordinary and octopus merges,
 * a merge taking one side only (`-s ours`), a no-ff merge of an untouched base, a conflict
 * resolved with new content, the same change cherry-picked on both sides, an empty commit,
 * a file deleted and re-added, sub-folders, odd names, and commits sharing a timestamp.
 */
export async function buildTrickyHistory(dir: string): Promise<WorkTree> {
  const w = await WorkTree.init(dir);
  await w.commit('Initial import', {
    'README.md': 'hello\n',
    LICENSE: 'MIT\n',
    'src/a.js': 'a1\n',
    'src/lib/b.js': 'b1\n',
    'src/lib/deep/c.js': 'c1\n',
    'docs/guide.md': 'g1\n',
    'with space.txt': 's\n',
    'ünïcode.md': 'u\n',
  });
  await w.git(['checkout', '-q', '-b', 'feature']);
  await w.commit('Feature: change a and add lib/new', { 'src/a.js': 'a2\n', 'src/lib/new.js': 'n\n' });
  await w.git(['checkout', '-q', 'main']);
  await w.commit('Docs on main', { 'docs/guide.md': 'g2\n' });
  await w.git(['merge', '-q', '--no-edit', 'feature']);

  // -s ours: the merge equals its first parent; the side branch's README change is dropped.
  await w.git(['checkout', '-q', '-b', 'dropped']);
  await w.commit('Dropped README change', { 'README.md': 'dropped\n' });
  await w.git(['checkout', '-q', 'main']);
  await w.commit('Main README change', { 'README.md': 'main\n' });
  await w.git(['merge', '-q', '--no-edit', '-s', 'ours', 'dropped']);

  // no-ff merge of a branch whose base is the tip: the merge equals its second parent.
  await w.git(['checkout', '-q', '-b', 'noff']);
  await w.commit('noff: deep change', { 'src/lib/deep/c.js': 'c2\n' });
  await w.git(['checkout', '-q', 'main']);
  await w.git(['merge', '-q', '--no-ff', '--no-edit', 'noff']);

  // Conflict resolved with new content: the merge itself is the last change of b.js.
  await w.git(['checkout', '-q', '-b', 'conflict']);
  await w.commit('conflict: side b', { 'src/lib/b.js': 'side\n' });
  await w.git(['checkout', '-q', 'main']);
  await w.commit('main b', { 'src/lib/b.js': 'main\n' });
  await w.git(['merge', '-q', '--no-edit', 'conflict']).catch(() => undefined);
  await w.write({ 'src/lib/b.js': 'resolved\n' });
  await w.git(['add', '-A', '.']);
  await w.git(['commit', '-q', '--no-edit'], { sameTime: true });

  // The same change on both sides (cherry-pick), then merged: both parents agree on LICENSE.
  await w.git(['checkout', '-q', '-b', 'pick']);
  const picked = await w.commit('License change', { LICENSE: 'MIT 2\n' });
  await w.commit('pick: other', { 'docs/other.md': 'o\n' });
  await w.git(['checkout', '-q', 'main']);
  await w.git(['cherry-pick', picked]);
  await w.git(['merge', '-q', '--no-edit', 'pick']);

  // Octopus merge of three branches touching different folders, commits sharing one second.
  for (const name of ['o1', 'o2', 'o3']) {
    await w.git(['checkout', '-q', '-b', name, 'main']);
    await w.commit(`octopus ${name}`, { [`src/${name}.js`]: `${name}\n`, [`docs/${name}.md`]: name }, { sameTime: true });
  }
  await w.git(['checkout', '-q', 'main']);
  await w.git(['merge', '-q', '--no-edit', 'o1', 'o2', 'o3']);

  // Empty commit, delete and re-add, and a change outside src.
  await w.commit('Empty commit');
  await w.commit('Remove guide', { 'docs/guide.md': null });
  await w.commit('Re-add guide', { 'docs/guide.md': 'g3\n' });
  await w.commit('Touch README only', { 'README.md': 'final\n' }, { sameTime: true });
  return w;
}
