import { randomBytes } from 'node:crypto';
import { readdir, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { cookie, http, startHost, tempDir } from '../helpers/host.js';
import { WorkTree } from '../git/fixtures.js';

/** Issue 7 point 9: imports are capped, give up on silent servers, and are bounded in size. */
describe('imports from clone_url', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let silent: Server;
  let silentUrl: string;
  const held: Socket[] = [];
  let work: { path: string; cleanup: () => Promise<void> };

  const importRepo = (user: TestUser, name: string, clone_url: string) =>
    http(`${host.url}/new`, { headers: cookie(user.session), form: { name, clone_url, no_redirect: '1' } });
  const folders = async (user: string) => readdir(join(host.options.dataDir, 'repositories', user)).catch(() => [] as string[]);

  beforeAll(async () => {
    host = await startHost({ maxImports: 2, maxImportsPerUser: 1, importLowSpeedSeconds: 2, maxImportBytes: 256 * 1024 });
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    carol = await newUser(host, 'carol');
    // A server that accepts connections and never answers.
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/repo.git`;
    work = await tempDir('repohost-imports-');
  });
  let carol: TestUser;

  afterAll(async () => {
    for (const socket of held) socket.destroy();
    silent?.close();
    await host?.close();
    await work?.cleanup();
  });

  it('gives up on a server that never answers after the low-speed window, not the ten-minute limit', async () => {
    const started = Date.now();
    const result = await importRepo(alice, 'from-silent', silentUrl);
    expectError(result, 400, 'import from clone_url failed');
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await folders('alice')).toEqual([]);
  });

  it('caps imports per user (429) and in all (503), with Retry-After', async () => {
    const first = importRepo(alice, 'slow-one', silentUrl);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await importRepo(alice, 'slow-two', silentUrl);
    expectError(second, 429, 'imports running');
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    const bobs = importRepo(bob, 'slow-bob', silentUrl);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const third = await importRepo(carol, 'slow-carol', silentUrl);
    expectError(third, 503, 'Too many imports');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(0);
    expect((await first).status).toBe(400);
    expect((await bobs).status).toBe(400);
    // Places are given back: a new import is attempted again (and fails on the silent server, not on a cap).
    expectError(await importRepo(alice, 'again', silentUrl), 400, 'import from clone_url failed');
  });

  it('refuses a repository larger than the bound with 413 and leaves nothing behind', async () => {
    await newRepo(host, bob, 'large');
    const tree = await WorkTree.init(join(work.path, 'large'));
    await writeFile(join(tree.dir, 'blob.bin'), randomBytes(2 * 1024 * 1024));
    await tree.commit('large');
    const remote = new URL(`${host.url}/bob/large.git`);
    remote.username = 'bob';
    remote.password = bob.token;
    await tree.git(['push', '-q', remote.toString(), 'main']);
    const result = await importRepo(alice, 'copy-of-large', `${host.url}/bob/large.git`);
    expectError(result, 413, 'larger than');
    expect((await http(`${host.url}/api/v1/repos/alice/copy-of-large`, { headers: cookie(alice.session) })).status).toBe(404);
    expect(await folders('alice')).toEqual([]);
  });
});
