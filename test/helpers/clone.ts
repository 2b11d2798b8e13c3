import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RepoHost } from '../../lib/index.js';
import type { TestUser } from './api.js';

const run = promisify(execFile);

/** A working copy pushing to one repository of the host with the real git, with a ticking clock. */
export class Clone {
  #time = 1_700_000_000;
  constructor(
    readonly dir: string,
    private readonly home: string,
  ) {}

  static async of(host: RepoHost, user: TestUser, repo: string, dir: string, home: string): Promise<Clone> {
    const remote = new URL(`${host.url}/${user.username}/${repo}.git`);
    remote.username = user.username;
    remote.password = user.token;
    await mkdir(dir, { recursive: true });
    const clone = new Clone(dir, home);
    await clone.git('init', '-q', '-b', 'main', '.');
    await clone.git('remote', 'add', 'origin', remote.toString());
    return clone;
  }

  async git(...args: string[]): Promise<string> {
    this.#time += 1;
    const date = `${this.#time} +0000`;
    const { stdout } = await run('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', '-c', 'commit.gpgSign=false', ...args], {
      cwd: this.dir,
      env: { PATH: process.env.PATH ?? '', HOME: this.home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LANG: 'C', GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  }

  async commit(message: string, files: Record<string, string | Buffer | null>): Promise<string> {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) await this.git('rm', '-q', path);
      else {
        await mkdir(join(this.dir, path, '..'), { recursive: true });
        await writeFile(join(this.dir, path), content);
      }
    }
    await this.git('add', '-A', '.');
    await this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.git('rev-parse', 'HEAD');
  }
}

