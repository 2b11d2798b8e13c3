import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { startHost, tempDir } from '../helpers/host.js';
import { WorkTree } from './fixtures.js';

const exec = promisify(execFile);

/** What git clients expect of a forge (issue 7 points 17 and 18), checked with the real git over both protocols. */
describe('partial clone, wants by id and push options', () => {
  let host: RepoHost;
  let alice: TestUser;
  let work: { path: string; cleanup: () => Promise<void> };
  let tree: WorkTree;
  let commits: string[];

  const env = () => ({ PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', LANG: 'C' });
  const git = async (cwd: string, args: string[]) => (await exec('git', args, { cwd, env: env() })).stdout.trim();
  const remote = () => {
    const url = new URL(`${host.url}/alice/project.git`);
    url.username = 'alice';
    url.password = alice.token;
    return url.toString();
  };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'project');
    work = await tempDir('repohost-client-features-');
    tree = await WorkTree.init(join(work.path, 'source'));
    commits = [];
    for (let i = 0; i < 3; i++) commits.push(await tree.commit(`commit ${i}`, { [`dir/file${i}.txt`]: `content ${i}\n`.repeat(50) }));
    await tree.git(['push', '-q', remote(), 'main']);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  for (const version of ['0', '2']) {
    for (const filter of ['blob:none', 'tree:0']) {
      it(`partial clone --filter=${filter} over protocol v${version}, then reads files on demand`, async () => {
        const dir = join(work.path, `partial-${version}-${filter.replace(':', '-')}`);
        await git(work.path, ['-c', `protocol.version=${version}`, 'clone', '-q', `--filter=${filter}`, remote(), dir]);
        expect(await git(dir, ['config', 'remote.origin.partialclonefilter'])).toBe(filter);
        // Checking out needed the missing objects: fetched lazily by id, which v0 must allow.
        expect(await git(dir, ['-c', `protocol.version=${version}`, 'show', `${commits[0]}:dir/file0.txt`])).toContain('content 0');
        expect(await git(dir, ['log', '--format=%H'])).toBe([...commits].reverse().join('\n'));
      });
    }

    it(`fetches a reachable commit by its id over protocol v${version}`, async () => {
      const dir = join(work.path, `by-id-${version}`);
      await git(work.path, ['init', '-q', dir]);
      await git(dir, ['-c', `protocol.version=${version}`, 'fetch', '-q', remote(), commits[1]!]);
      expect(await git(dir, ['rev-parse', 'FETCH_HEAD'])).toBe(commits[1]);
    });
  }

  it('accepts push options (git push -o)', async () => {
    const next = await tree.commit('with options', { 'opts.txt': 'x\n' });
    const { stderr } = await exec('git', ['push', '-o', 'ci.skip', '-o', 'key=value', remote(), 'main'], { cwd: tree.dir, env: env() });
    expect(stderr).not.toMatch(/does not support push options/);
    expect(await git(work.path, ['ls-remote', remote(), 'refs/heads/main'])).toContain(next);
  });
});
