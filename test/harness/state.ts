import { copyFile, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { runGit } from '../../lib/git/run-git.js';
import { Store } from '../../lib/store/database.js';
import type { RepoHost } from '../../lib/index.js';
import { tempDir } from '../helpers/host.js';

// What a host holds, read from the outside, for comparing states: the database rows as they are on disk, and every
// repository's refs, HEAD and reachable objects as git sees them.

/** Every row of every table, from a copy of the database files on disk (the durable state, not memory). */
export async function durableRows(dbPath: string): Promise<Record<string, unknown[]>> {
  const copy = await tempDir('repohost-dump-');
  try {
    const dir = dirname(dbPath);
    for (const name of await readdir(dir)) {
      if (name === basename(dbPath) || name.startsWith(`${basename(dbPath)}.wal`)) await copyFile(join(dir, name), join(copy.path, name));
    }
    const store = await Store.open(join(copy.path, basename(dbPath)), { snapshotThresholdBytes: 1 << 30 });
    try {
      const tables = await store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('repohost_meta', 'sqlite_sequence') ORDER BY name");
      return Object.fromEntries((await Promise.all(tables.map(async ({ name }) => [name, await store.all(`SELECT * FROM "${name}" ORDER BY rowid`)]))));
    } finally {
      await store.close();
    }
  } finally {
    await copy.cleanup();
  }
}

/** Each repository on disk: HEAD, refs and the reachable objects. */
export async function repositoryState(host: RepoHost): Promise<Record<string, string>> {
  const root = join(host.options.dataDir, 'repositories');
  const state: Record<string, string> = {};
  for (const owner of (await readdir(root).catch(() => [])).filter((name) => !name.startsWith('.')).sort()) {
    for (const repo of (await readdir(join(root, owner))).filter((name) => name.endsWith('.git')).sort()) {
      const gitDir = join(root, owner, repo);
      const git = async (...args: string[]) => (await runGit(args, { gitDir })).stdout.toString('utf8');
      state[`${owner}/${repo}`] = [await git('symbolic-ref', 'HEAD'), await git('for-each-ref'), await git('rev-list', '--all', '--objects')].join('\n');
    }
  }
  return state;
}
