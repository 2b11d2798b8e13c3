import { lstat, mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepoHost, DatabaseLockedError, type RepoHost } from '../../lib/index.js';
import { bearer, http, tempDir } from '../helpers/host.js';

/** Issue 7 point 3: a database reached through a symbolic link is the same database, under the same lock. */
describe('a database path that is a symbolic link', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  const hosts: RepoHost[] = [];
  const start = async (dbPath: string) => {
    const host = await createRepoHost({ port: 0, dbPath, bcryptCost: 4 });
    hosts.push(host);
    return host;
  };

  beforeEach(async () => {
    dir = await tempDir('repohost-symlink-');
    await mkdir(join(dir.path, 'real'));
    await mkdir(join(dir.path, 'elsewhere'));
  });

  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.close().catch(() => undefined);
    await dir.cleanup();
  });

  it('refuses a second server started through a link while the first one runs', async () => {
    const real = join(dir.path, 'real', 'forge.db');
    const link = join(dir.path, 'elsewhere', 'link.db');
    const first = await start(real);
    await symlink(real, link);
    await expect(start(link)).rejects.toBeInstanceOf(DatabaseLockedError);
    expect((await http(`${first.url}/`)).status).toBe(200);
    // Nothing of the database was made beside the link.
    expect(await readdir(join(dir.path, 'elsewhere'))).toEqual(['link.db']);
  });

  it('writes through the link: the link stays a link and the real file holds the data', async () => {
    const real = join(dir.path, 'real', 'forge.db');
    const link = join(dir.path, 'elsewhere', 'link.db');
    const bootstrap = await start(real);
    await bootstrap.close();
    await symlink(real, link);
    const viaLink = await start(link);
    await viaLink.admin.createUser({ username: 'alice', email: 'a@example.com', password: 'password123' });
    const token = await viaLink.admin.createToken('alice', 't');
    await viaLink.admin.createRepo({ owner: 'alice', name: 'kept' });
    await viaLink.close();
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect((await readdir(join(dir.path, 'elsewhere'))).sort()).toEqual(['link.db']);
    const again = await start(real);
    expect((await http(`${again.url}/api/v1/repos/alice/kept`, { headers: bearer(token) })).status).toBe(200);
  });

  it('follows a link to a folder too (the database file not created yet)', async () => {
    const linkedFolder = join(dir.path, 'elsewhere', 'data');
    await symlink(join(dir.path, 'real'), linkedFolder);
    const first = await start(join(linkedFolder, 'new.db'));
    await expect(start(join(dir.path, 'real', 'new.db'))).rejects.toBeInstanceOf(DatabaseLockedError);
    await first.close();
    expect(await readdir(join(dir.path, 'real'))).toContain('new.db');
  });
});
