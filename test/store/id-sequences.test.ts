import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, describe, expect, it } from 'vitest';
import { createRepoHost } from '../../lib/index.js';
import { Store } from '../../lib/store/database.js';
import { tempDir } from '../helpers/host.js';

/**
 * Schema step 27 (issue 38): repositories take ids never given twice. SQLite gave the next row MAX(id) + 1, so the
 * newest repository's id went to the next one made after it was deleted; an LFS token naming it opened that one.
 */
describe('ids never given twice (schema 27)', () => {
  let dir: { path: string; cleanup: () => Promise<void> } | undefined;
  afterAll(async () => await dir?.cleanup());

  it('goes on from the highest id a database had when it migrated, and never gives a deleted repository\'s id again', async () => {
    dir = await tempDir('repohost-id-sequences-');
    const dbPath = join(dir.path, 'data.db');
    const options = { port: 0, dbPath, dataDir: join(dir.path, 'data'), bcryptCost: 4 };
    const before = await createRepoHost(options);
    await before.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    const token = await before.admin.createToken('alice', 'ids');
    const client = (host: typeof before) => new Octokit({ baseUrl: `${host.url}/api/v3`, auth: token });
    for (const name of ['one', 'two', 'three']) await client(before).repos.createForAuthenticatedUser({ name });
    await before.close();

    // Taken back to what version 26 left: no sequences for repositories and keys (nor step 28's pushed_at, step 29's email_verified).
    const store = await Store.open(dbPath, { snapshotThresholdBytes: 1 << 30 });
    await store.write(async (tx) => {
      await tx.run("DELETE FROM id_sequences WHERE name IN ('repository', 'ssh_key', 'installation')");
      await tx.run('ALTER TABLE repositories DROP COLUMN pushed_at');
      await tx.run('DROP INDEX users_by_email');
      await tx.run('ALTER TABLE users DROP COLUMN email_verified');
      await tx.run('UPDATE schema_version SET version = 26');
    });
    await store.close();

    const after = await createRepoHost(options);
    try {
      const made = async (name: string) => (await client(after).repos.createForAuthenticatedUser({ name })).data.id;
      const three = (await client(after).repos.get({ owner: 'alice', repo: 'three' })).data.id;
      const four = await made('four');
      expect(four).toBe(three + 1);
      await client(after).repos.delete({ owner: 'alice', repo: 'four' });
      expect(await made('five')).toBe(four + 1);
    } finally {
      await after.close();
    }
  });
});
