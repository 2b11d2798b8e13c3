import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRepoHost, DatabaseLockedError } from '../../lib/index.js';
import { bearer, cookie, http, tempDir } from '../helpers/host.js';
import { newRepo, newUser } from '../helpers/api.js';

/** Listens on `port` and closes again: proves nothing else holds it. */
function listenOn(port: number, host = '127.0.0.1'): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => server.close((error) => (error ? reject(error) : resolve())));
  });
}

/** Resources that would keep the process alive, by kind (servers, sockets, timers). */
function liveResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'TCPServerWrap' || kind === 'TCPSocketWrap' || kind === 'TCPWrap' || kind === 'Timeout' || kind === 'FSReqCallback') counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

const options = { port: 0, bcryptCost: 4 } as const;

describe('createRepoHost lifecycle', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(() => dir.cleanup());

  it('starts and closes twice in one process with :memory:, each on a free port, leaving the port free', async () => {
    const seen: number[] = [];
    for (let round = 0; round < 2; round++) {
      const host = await createRepoHost({ ...options, dbPath: ':memory:' });
      expect(typeof host.port).toBe('number');
      expect(host.port).toBeGreaterThan(0);
      expect(host.url).toBe(`http://127.0.0.1:${host.port}`);
      expect((await http(`${host.url}/`)).status).toBe(200);
      // Each in-memory host starts empty.
      expect((await http(`${host.url}/api/v1/users/alice`)).status).toBe(404);
      const alice = await newUser(host, 'alice');
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) })).json.username).toBe('alice');
      const dataDir = host.options.dataDir;
      await host.close();
      await listenOn(host.port);
      expect(existsSync(dataDir), 'the temp data folder of :memory: is removed on close').toBe(false);
      seen.push(host.port);
    }
    expect(seen).toHaveLength(2);
  });

  it('runs two :memory: hosts side by side without sharing data', async () => {
    const [a, b] = await Promise.all([createRepoHost({ ...options }), createRepoHost({ ...options })]);
    try {
      expect(a.port).not.toBe(b.port);
      await newUser(a, 'only-in-a');
      expect((await http(`${a.url}/api/v1/users/only-in-a`)).status).toBe(200);
      expect((await http(`${b.url}/api/v1/users/only-in-a`)).status).toBe(404);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    await listenOn(a.port);
    await listenOn(b.port);
  });

  it('starts twice on one database file: the second open sees the data of the first', async () => {
    const dbPath = join(dir.path, 'forge.db');
    const first = await createRepoHost({ ...options, dbPath });
    const alice = await newUser(first, 'alice');
    const repo = await newRepo(first, alice, 'kept');
    await newRepo(first, alice, 'kept-private', 'private');
    const issue = await http(`${first.url}/api/v1/repos/alice/kept/issues`, { headers: bearer(alice.token), form: { title: 'survives', body: 'a restart' } });
    const star = await http(`${first.url}/api/v1/repos/${repo.id}/star`, { method: 'POST', headers: cookie(alice.session) });
    expect(star.json.result).toBe(true);
    const firstPort = first.port;
    await first.close();
    await listenOn(firstPort);
    expect(existsSync(dbPath)).toBe(true);

    const second = await createRepoHost({ ...options, dbPath });
    try {
      expect(second.options.dbPath).toBe(dbPath);
      expect((await http(`${second.url}/api/v1/users/alice`)).json.username).toBe('alice');
      expect((await http(`${second.url}/api/v1/me`, { headers: bearer(alice.token) })).json.username).toBe('alice');
      expect((await http(`${second.url}/api/v1/me`, { headers: cookie(alice.session) })).json.username).toBe('alice');
      expect((await http(`${second.url}/api/v1/repos/alice/kept`)).json).toMatchObject({ id: repo.id, name: 'kept', user_name: 'alice' });
      expect((await http(`${second.url}/api/v1/repos/alice/kept-private`)).status).toBe(404);
      expect((await http(`${second.url}/api/v1/repos/alice/kept-private`, { headers: cookie(alice.session) })).status).toBe(200);
      const fetched = await http(`${second.url}/api/v1/repos/alice/kept/issues/${issue.json.id}`);
      expect(fetched.json).toEqual(issue.json);
      // The star toggle state survived too: the next toggle unstars.
      const again = await http(`${second.url}/api/v1/repos/${repo.id}/star`, { method: 'POST', headers: cookie(alice.session) });
      expect(again.json.result).toBe(false);
      // The git repository on disk survived with the database.
      const files = await http(`${second.url}/api/v1/repos/${repo.id}/tree/files?branch=main`);
      expect(files.json.success).toBe(true);
      // New ids do not collide with old ones.
      const next = await http(`${second.url}/api/v1/repos/alice/kept/issues`, { headers: bearer(alice.token), form: { title: 'after restart' } });
      expect(next.json.id).not.toBe(issue.json.id);
      expect(next.json.number).toBe(issue.json.number + 1);
    } finally {
      await second.close();
    }
    await listenOn(second.port);

    // A third open still sees everything, including what the second one wrote.
    const third = await createRepoHost({ ...options, dbPath });
    try {
      const titles = (await http(`${third.url}/api/v1/repos/alice/kept/issues`)).json.map((i: { title: string }) => i.title);
      expect(titles).toEqual(['after restart', 'survives']); // newest first
    } finally {
      await third.close();
    }
  });

  it('refuses a second host on a database file that is open, and the first keeps working', async () => {
    const dbPath = join(dir.path, 'owned.db');
    const first = await createRepoHost({ ...options, dbPath });
    try {
      await newUser(first, 'alice');
      await expect(createRepoHost({ ...options, dbPath })).rejects.toBeInstanceOf(DatabaseLockedError);
      expect((await http(`${first.url}/api/v1/users/alice`)).status).toBe(200);
    } finally {
      await first.close();
    }
    // Once closed, the file opens again.
    const again = await createRepoHost({ ...options, dbPath });
    expect((await http(`${again.url}/api/v1/users/alice`)).status).toBe(200);
    await again.close();
  });

  it('keeps the data folder beside the file by default, and honours dataDir', async () => {
    const dbPath = join(dir.path, 'site.db');
    const host = await createRepoHost({ ...options, dbPath });
    try {
      expect(host.options.dataDir).toBe(join(dir.path, 'site-data'));
    } finally {
      await host.close();
    }
    const dataDir = join(dir.path, 'elsewhere');
    const other = await createRepoHost({ ...options, dbPath: join(dir.path, 'other.db'), dataDir });
    try {
      expect(other.options.dataDir).toBe(dataDir);
      const user = await newUser(other, 'bob');
      await newRepo(other, user, 'on-disk');
      expect(existsSync(join(dataDir, 'repositories'))).toBe(true);
    } finally {
      await other.close();
    }
    expect(existsSync(dataDir), 'a file-backed host keeps its data on close').toBe(true);
  });

  it('close() is idempotent and leaves no server, socket or timer behind', async () => {
    const before = liveResources();
    const host = await createRepoHost({ ...options });
    await newUser(host, 'alice');
    await Promise.all([host.close(), host.close()]);
    await host.close();
    // Client-side keep-alive sockets and timers (undici's) wind down on their own: poll for a while.
    const settled = () => {
      const after = liveResources();
      return (['TCPServerWrap', 'TCPSocketWrap', 'Timeout'] as const).every((kind) => (after[kind] ?? 0) <= (before[kind] ?? 0));
    };
    for (let waited = 0; waited < 5000 && !settled(); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled(), JSON.stringify({ before, after: liveResources() })).toBe(true);
    await listenOn(host.port);
  });

  it('close() lets an in-flight request finish, and its write is on disk for the next open', async () => {
    const dbPath = join(dir.path, 'inflight.db');
    const host = await createRepoHost({ ...options, dbPath });
    const alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'project');
    let release!: () => void;
    const halfway = new Promise<void>((resolve) => (release = resolve));
    async function* slowBody() {
      yield Buffer.from('title=slow');
      release();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      yield Buffer.from('ly%20sent&body=done');
    }
    const pending = request(`${host.url}/api/v1/repos/alice/project/issues`, {
      method: 'POST',
      headers: { ...bearer(alice.token), 'content-type': 'application/x-www-form-urlencoded' },
      body: Readable.from(slowBody()),
    });
    await halfway;
    // Give the server time to parse the request head (generously, for loaded CI machines): from then on the request is in flight.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closing = host.close();
    const response = await pending;
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(await response.body.text())).toMatchObject({ title: 'slowly sent', body: 'done' });
    await closing;
    await listenOn(host.port);
    const reopened = await createRepoHost({ ...options, dbPath });
    try {
      expect((await http(`${reopened.url}/api/v1/repos/alice/project/issues`)).json.map((issue: { title: string }) => issue.title)).toEqual(['slowly sent']);
    } finally {
      await reopened.close();
    }
  });

  it('uses publicUrl for the links it hands out', async () => {
    const host = await createRepoHost({ ...options, publicUrl: 'https://forge.example.com/' });
    try {
      const alice = await newUser(host, 'alice');
      await newRepo(host, alice, 'linked');
      expect((await http(`${host.url}/api/v1/users/alice`)).json.avatar).toMatch(/^https:\/\/forge\.example\.com\/avatars\//);
      expect((await http(`${host.url}/api/v1/repos/alice/linked`)).json.clone_url).toBe('https://forge.example.com/alice/linked.git');
    } finally {
      await host.close();
    }
  });

  it('refuses connections after close', async () => {
    const host = await createRepoHost({ ...options });
    await host.close();
    await expect(http(`${host.url}/`)).rejects.toThrow();
  });

  it('fails to start on a busy explicit port instead of silently taking another', async () => {
    const busy = await createRepoHost({ ...options });
    try {
      await expect(createRepoHost({ ...options, port: busy.port })).rejects.toThrow(/in use/);
    } finally {
      await busy.close();
    }
    // And starting on that now-free explicit port works.
    const again = await createRepoHost({ ...options, port: busy.port });
    expect(again.port).toBe(busy.port);
    await again.close();
  });
});
