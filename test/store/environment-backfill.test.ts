import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, describe, expect, it } from 'vitest';
import { createRepoHost } from '../../lib/index.js';
import { Store } from '../../lib/store/database.js';
import { tempDir } from '../helpers/host.js';

/** Schema step 26: the environments of deployments made before it are made by the step, one per name whatever its case. */
describe('migrating deployments to environments (schema 26)', () => {
  let dir: { path: string; cleanup: () => Promise<void> } | undefined;
  afterAll(async () => await dir?.cleanup());

  it('makes an environment of every name earlier deployments used', async () => {
    dir = await tempDir('repohost-environments-');
    const dbPath = join(dir.path, 'data.db');
    const options = { port: 0, dbPath, dataDir: join(dir.path, 'data'), bcryptCost: 4 };
    const before = await createRepoHost(options);
    await before.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    const octokit = (host: typeof before, token: string) => new Octokit({ baseUrl: `${host.url}/api/v3`, auth: token });
    const token = await before.admin.createToken('alice', 'backfill');
    await octokit(before, token).repos.createForAuthenticatedUser({ name: 'shipped', auto_init: true });
    for (const environment of ['staging', 'Staging', 'production']) {
      await octokit(before, token).repos.createDeployment({ owner: 'alice', repo: 'shipped', ref: 'main', environment, required_contexts: [], auto_merge: false });
    }
    await before.close();

    // Taken back to what version 25 left: no environments (nor the sequences of step 27, nor step 28's pushed_at, step 29's email_verified).
    const store = await Store.open(dbPath, { snapshotThresholdBytes: 1 << 30 });
    await store.write(async (tx) => {
      await tx.run('ALTER TABLE repositories DROP COLUMN pushed_at');
      await tx.run('DROP INDEX users_by_email');
      await tx.run('ALTER TABLE users DROP COLUMN email_verified');
      await tx.run("DELETE FROM id_sequences WHERE name IN ('repository', 'ssh_key', 'installation')");
      await tx.run('DROP TABLE environments');
      await tx.run('UPDATE schema_version SET version = 25');
    });
    await store.close();

    const after = await createRepoHost(options);
    try {
      const listed = (await octokit(after, token).repos.getAllEnvironments({ owner: 'alice', repo: 'shipped' })).data;
      expect(listed.environments!.map((environment) => environment.name)).toEqual(['production', 'Staging']);
    } finally {
      await after.close();
    }
  });
});
