import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepositories } from '../../lib/git/repositories.js';
import { isLocalAddress } from '../../lib/net/address-guard.js';
import { TreeListing } from '../../lib/git/tree-listing.js';
import { buildTrickyHistory, sh } from './fixtures.js';

let temp: string;
let repos: GitRepositories;
let work: string;

beforeAll(async () => {
  temp = await mkdtemp(join(tmpdir(), 'repohost-git-'));
  repos = new GitRepositories({ root: join(temp, 'repositories'), allowLocalImport: false, maintenanceDelayMs: 10 });
  work = join(temp, 'work');
  await buildTrickyHistory(work);
  await repos.create('alice', 'tricky');
  await sh(work, ['push', '-q', repos.pathOf('alice', 'tricky'), '--all']);
});

afterAll(async () => {
  await repos.close();
  await rm(temp, { recursive: true, force: true });
});

/** What `git log -1 -- <path>` says, field by field, in the listing's format. */
async function expected(dir: string, branch: string, folder: string) {
  const tree = await sh(dir, ['ls-tree', '-z', '-l', folder ? `${branch}:${folder}` : `${branch}^{tree}`]);
  const rows = [];
  for (const record of tree.split('\0').filter(Boolean)) {
    const tab = record.indexOf('\t');
    const [, type, , size] = record.slice(0, tab).split(/ +/);
    const name = record.slice(tab + 1);
    const path = folder ? `${folder}/${name}` : name;
    const [hash, time, msg] = (await sh(dir, ['log', '-1', '--format=%H%x00%ct%x00%s', branch, '--', path])).split('\0');
    rows.push({
      name,
      last_msg: msg,
      last_hash: hash,
      last_time: new Date(Number(time) * 1000).toISOString().replace('.000Z', 'Z'),
      size: type === 'blob' ? size : '0',
    });
  }
  return rows;
}

describe('GitRepositories', () => {
  it('creates an empty bare repository whose HEAD is main', async () => {
    await repos.create('alice', 'empty');
    const path = repos.pathOf('alice', 'empty');
    expect((await stat(path)).isDirectory()).toBe(true);
    expect(await sh(path, ['symbolic-ref', 'HEAD'])).toBe('refs/heads/main');
    expect(await sh(path, ['rev-parse', '--is-bare-repository'])).toBe('true');
    expect(await repos.countBranches('alice', 'empty')).toBe(0);
    expect(await repos.countCommits('alice', 'empty', 'main')).toBe(0);
    expect(await repos.listFiles('alice', 'empty', 'main')).toEqual([]);
    expect(await repos.listFiles('alice', 'empty', 'nope')).toEqual([]);
    await expect(repos.create('alice', 'empty')).rejects.toMatchObject({ kind: 'conflict' });
  });

  it('refuses names that could leave the repositories folder', () => {
    for (const bad of ['..', '.hidden', 'a/b', 'a\\b', '', 'x..y', 'name.git', 'a b', 'é', 'a'.repeat(101), '-dash']) {
      expect(() => repos.pathOf('alice', bad), bad).toThrow();
      expect(() => repos.pathOf(bad, 'ok'), bad).toThrow();
    }
    expect(repos.pathOf('alice', 'my-repo_1.x')).toBe(join(temp, 'repositories', 'alice', 'my-repo_1.x.git'));
  });

  it('counts real branches and the commits reachable from a branch', async () => {
    const branches = (await sh(work, ['for-each-ref', '--format=%(refname)', 'refs/heads/'])).split('\n');
    expect(await repos.countBranches('alice', 'tricky')).toBe(branches.length);
    for (const branch of ['main', 'feature', 'pick', 'o2']) {
      expect(await repos.countCommits('alice', 'tricky', branch)).toBe(Number(await sh(work, ['rev-list', '--count', branch])));
    }
    expect(await repos.countCommits('alice', 'tricky', 'no-such-branch')).toBe(0);
    expect(await repos.countCommits('alice', 'tricky', '--all')).toBe(0);
    expect(await repos.countCommits('alice', 'tricky', 'main..feature')).toBe(0);
  });

  for (const folder of ['', 'src', 'src/lib', 'src/lib/deep', 'docs']) {
    it(`lists ${folder || 'the top level'} entry by entry like git log -1 -- <path>`, async () => {
      for (const branch of ['main', 'feature', 'pick', 'conflict']) {
        const tree = await sh(work, ['ls-tree', `${branch}`, '--', folder || '.']).catch(() => '');
        if (!tree) continue;
        const listing = await repos.listFiles('alice', 'tricky', branch, folder);
        expect(listing, `${branch}:${folder}`).toEqual(await expected(work, branch, folder));
        // Second call is served from the cache and must be identical.
        expect(await repos.listFiles('alice', 'tricky', branch, folder)).toEqual(listing);
      }
    });
  }

  it('lists every folder at every commit of main like git log -1 -- <path>', async () => {
    const commits = (await sh(work, ['rev-list', 'main'])).split('\n');
    const bare = repos.pathOf('alice', 'tricky');
    for (const [index, commit] of commits.entries()) await sh(bare, ['update-ref', `refs/heads/at/${index}`, commit]);
    // Refs changed behind the host's back: it is told, as every path of its own does.
    await repos.afterPush('alice', 'tricky', []);
    for (const [index] of commits.entries()) {
      for (const folder of ['', 'src', 'src/lib', 'docs']) {
        const exists = await sh(work, ['cat-file', '-t', `${commits[index]}:${folder}`]).catch(() => '');
        if (exists !== 'tree') continue;
        expect(await repos.listFiles('alice', 'tricky', `at/${index}`, folder), `at/${index}:${folder}`).toEqual(await expected(work, commits[index]!, folder));
      }
    }
    for (const [index] of commits.entries()) await sh(bare, ['update-ref', '-d', `refs/heads/at/${index}`]);
    await repos.afterPush('alice', 'tricky', []);
  });

  it('gives the same answers, without a cache, whether walks narrow early or not, never falling back to one git log per entry', async () => {
    const commits = (await sh(work, ['rev-list', '--all'])).split('\n');
    const bare = repos.pathOf('alice', 'tricky');
    for (const commit of commits) {
      for (const folder of ['', 'src', 'src/lib', 'docs']) {
        const exists = await sh(work, ['cat-file', '-t', `${commit}:${folder}`]).catch(() => '');
        if (exists !== 'tree') continue;
        const listing = new TreeListing(1, 1);
        const eager = await listing.list(bare, commit, folder);
        expect(eager, `${commit}:${folder}`).toEqual(await expected(work, commit, folder));
        expect(listing.fallbacks).toBe(0);
        const plain = new TreeListing(1);
        expect(await plain.list(bare, commit, folder)).toEqual(eager);
        expect(plain.fallbacks).toBe(0);
      }
    }
  });

  it('answers not found for an unknown branch or path of a non-empty repository', async () => {
    await expect(repos.listFiles('alice', 'tricky', 'nope')).rejects.toMatchObject({ kind: 'not_found', message: 'branch not found' });
    await expect(repos.listFiles('alice', 'tricky', 'main', 'no/such/folder')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(repos.listFiles('alice', 'tricky', 'main', '../x')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(repos.listFiles('alice', 'tricky', 'main', 'README.md')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(repos.countBranches('alice', 'missing')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('reuses cached listings of older commits after new commits', async () => {
    const clone = join(temp, 'incremental');
    await sh(temp, ['clone', '-q', repos.pathOf('alice', 'tricky'), clone]);
    await sh(clone, ['commit', '-q', '--allow-empty', '-m', 'later']);
    await sh(clone, ['push', '-q', 'origin', 'HEAD:refs/heads/later']);
    await repos.afterPush('alice', 'tricky', []);
    const listing = await repos.listFiles('alice', 'tricky', 'later');
    expect(listing).toEqual(await expected(clone, 'HEAD', ''));
  });

  it('writes a commit-graph with changed-path Bloom filters after a push, in the background', async () => {
    await repos.afterPush('alice', 'tricky', []);
    await repos.whenIdle();
    const path = repos.pathOf('alice', 'tricky');
    expect((await stat(join(path, 'objects', 'info', 'commit-graph'))).isFile()).toBe(true);
    expect(await sh(path, ['commit-graph', 'verify'])).toBe('');
  });

  it('moves HEAD to the first pushed branch when main never arrived', async () => {
    await repos.create('alice', 'nomain');
    await sh(work, ['push', '-q', repos.pathOf('alice', 'nomain'), 'feature', 'pick']);
    await repos.afterPush('alice', 'nomain', [
      { ref: 'refs/heads/feature', before: '0'.repeat(40), after: await sh(work, ['rev-parse', 'feature']) },
      { ref: 'refs/heads/pick', before: '0'.repeat(40), after: await sh(work, ['rev-parse', 'pick']) },
    ]);
    expect(await repos.headBranch('alice', 'nomain')).toBe('feature');
    expect((await repos.refsOf('alice', 'nomain')).size).toBe(2);
  });

  it('renames and removes repositories', async () => {
    await repos.create('alice', 'old');
    await expect(repos.rename('alice', 'old', 'tricky')).rejects.toMatchObject({ kind: 'conflict' });
    await repos.rename('alice', 'old', 'new');
    expect(await repos.exists('alice', 'old')).toBe(false);
    expect(await repos.exists('alice', 'new')).toBe(true);
    await repos.remove('alice', 'new');
    expect(await repos.exists('alice', 'new')).toBe(false);
  });

  it('refuses imports from local paths, file URLs, other schemes and private addresses', async () => {
    for (const url of [
      repos.pathOf('alice', 'tricky'),
      `file://${repos.pathOf('alice', 'tricky')}`,
      'ssh://example.com/x.git',
      'ext::sh -c touch% /tmp/pwned',
      'http://127.0.0.1:1/x.git',
      'http://localhost:1/x.git',
      'http://[::1]:1/x.git',
      'http://10.1.2.3/x.git',
      'http://169.254.169.254/latest',
      'https://user:secret@example.com/x.git',
      'git://192.168.1.1/x.git',
    ]) {
      await expect(repos.importFrom('alice', 'imported', url), url).rejects.toMatchObject({ kind: 'invalid' });
      expect(await repos.exists('alice', 'imported')).toBe(false);
    }
  });

  it('imports all branches and tags when local imports are allowed, and cleans up a failed one', async () => {
    const local = new GitRepositories({ root: join(temp, 'other'), allowLocalImport: true });
    try {
      // A dead local port: the import fails, nothing is left behind.
      await expect(local.importFrom('bob', 'broken', 'http://127.0.0.1:9/x.git')).rejects.toMatchObject({ kind: 'invalid' });
      expect(await local.exists('bob', 'broken')).toBe(false);
    } finally {
      await local.close();
    }
  });

  it('classifies local and public addresses', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.0.1', '169.254.1.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '100.64.0.1']) {
      expect(isLocalAddress(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isLocalAddress(address), address).toBe(false);
    }
  });
});
