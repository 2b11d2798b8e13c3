import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, http, tempDir } from '../helpers/host.js';
import { startCliServer, type ServerProcess } from './processes.js';

const TOKEN = 'harness-token-0123456789';
const API_TOKEN = 'ghp_harnesscontrol0123456789';

// Issue 20: `repohost serve --harness` serves reset, snapshots, idle and the clock over HTTP for harnesses in other
// languages, behind a bearer token.
describe('repohost serve --harness', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let server: ServerProcess | undefined;

  beforeEach(async () => {
    dir = await tempDir('repohost-harness-control-');
  });

  afterEach(async () => {
    if (server && server.child.exitCode === null) await server.kill('SIGKILL');
    server = undefined;
    await dir.cleanup();
  });

  const start = async (env: Record<string, string> = {}) => {
    const fixtures = join(dir.path, 'fixtures.json');
    await writeFile(fixtures, JSON.stringify({ users: [{ username: 'alice', email: 'alice@example.com', password: 'password123', tokens: [{ name: 'bot', token: API_TOKEN }] }] }));
    server = await startCliServer(['--db', join(dir.path, 'forge.db'), '--fixtures', fixtures, '--harness'], env);
    return server;
  };
  const control = (path: string, init: { method?: string; token?: string | null; json?: unknown } = {}) =>
    http(`${server!.url}/-/harness${path}`, { method: init.method ?? 'POST', headers: init.token === null ? {} : bearer(init.token ?? TOKEN), json: init.json });
  const createRepo = (name: string) => http(`${server!.url}/api/v3/user/repos`, { headers: bearer(API_TOKEN), json: { name } });
  const repoStatus = async (name: string) => (await http(`${server!.url}/api/v3/repos/alice/${name}`, { headers: bearer(API_TOKEN) })).status;

  it('snapshots, restores and resets the whole state, and moves the clock, for the token only', async () => {
    await start({ REPOHOST_HARNESS_TOKEN: TOKEN });
    expect(server!.output().stdout).not.toContain(TOKEN);
    expect((await control('/reset', { token: null })).status).toBe(401);
    expect((await control('/reset', { token: 'harness-token-wrong-guess' })).status).toBe(401);

    expect((await createRepo('kept')).status).toBe(201);
    const snapshot = await control('/snapshots');
    expect(snapshot.status).toBe(201);
    expect((await createRepo('later')).status).toBe(201);
    expect((await control(`/snapshots/${snapshot.json.id}/restore`)).status).toBe(204);
    expect([await repoStatus('kept'), await repoStatus('later')]).toEqual([200, 404]);
    expect((await control('/snapshots/99/restore')).status).toBe(404);
    // Reset: back to what the fixtures made.
    expect((await control('/reset')).status).toBe(204);
    expect(await repoStatus('kept')).toBe(404);

    const stopped = await control('/clock', { method: 'PUT', json: { now: '2030-01-01T00:00:00Z' } });
    expect(stopped.json).toEqual({ now: '2030-01-01T00:00:00.000Z', stopped: true });
    expect((await createRepo('dated')).json.created_at).toBe('2030-01-01T00:00:00Z');
    expect((await control('/clock', { method: 'PUT', json: { advance_ms: 90_000 } })).json.now).toBe('2030-01-01T00:01:30.000Z');
    expect((await createRepo('later-dated')).json.created_at).toBe('2030-01-01T00:01:30Z');
    expect((await control('/clock', { method: 'PUT', json: { now: 'tomorrow' } })).status).toBe(422);
    expect((await control('/clock', { method: 'PUT', json: { advance_ms: 9e15 } })).status).toBe(422);
    // Only times git records: before 1970 and after 9999 every commit failed (500), and a session's expiry compared as
    // text let "+010000-…" revive an ended one. A commit in early 1970 is made (git needed `@` before its seconds).
    for (const now of ['1969-12-31T00:00:00Z', '+010000-01-01T00:00:00Z']) expect((await control('/clock', { method: 'PUT', json: { now } })).status, now).toBe(422);
    expect((await control('/clock', { method: 'PUT', json: { advance_ms: Date.UTC(10000, 0, 1) - Date.UTC(2030, 0, 1, 0, 1, 30) } })).status).toBe(422);
    expect((await control('/clock', { method: 'PUT', json: { now: '1970-01-02T00:00:00Z' } })).status).toBe(200);
    const early = await http(`${server!.url}/api/v3/user/repos`, { headers: bearer(API_TOKEN), json: { name: 'early', auto_init: true } });
    expect(early.status).toBe(201);
    expect((await http(`${server!.url}/api/v3/repos/alice/early/commits/main`, { headers: bearer(API_TOKEN) })).json.commit.committer.date).toBe('1970-01-02T00:00:00Z');
    const running = await control('/clock', { method: 'PUT', json: { now: null } });
    expect(running.json.stopped).toBe(false);
    expect(Math.abs(Date.parse(running.json.now) - Date.now())).toBeLessThan(60_000);
    expect((await control('/clock', { method: 'GET' })).json.stopped).toBe(false);
    expect((await control('/idle')).status).toBe(204);
  });

  it('makes a token and prints it once when none is given', async () => {
    await start();
    const token = /repohost harness token: (\S+)/.exec(server!.output().stdout)?.[1];
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await control('/idle', { token })).status).toBe(204);
    expect((await control('/idle')).status).toBe(401);
  });
});
