import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';

describe('repository rename and delete (Gitea-style PATCH / DELETE /api/v1/repos/:owner/:repo)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  const folder = (owner: string, name: string) => join(host.options.dataDir, 'repositories', owner, `${name}.git`);

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
  });
  afterAll(() => host?.close());

  it('renames: the record, the folder and the clone URL move together, and the content follows', async () => {
    const repo = await newRepo(host, alice, 'before');
    await pushTwoBranches(host, 'alice', alice.token, 'before');
    const renamed = await http(`${host.url}/api/v1/repos/alice/before`, { method: 'PATCH', headers: bearer(alice.token), form: { name: 'after' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toMatchObject({ id: repo.id, name: 'after', user_name: 'alice', clone_url: `${host.url}/alice/after.git` });
    // The old name redirects to the new one (issue 21), as Gitea's does.
    const old = await http(`${host.url}/api/v1/repos/alice/before`);
    expect([old.status, old.headers.location]).toEqual([301, '/api/v1/repos/alice/after']);
    expect(existsSync(folder('alice', 'before'))).toBe(false);
    expect(existsSync(folder('alice', 'after'))).toBe(true);
    const branches = await http(`${host.url}/api/v1/alice/after/branches/count`, { headers: cookie(alice.session) });
    expect(branches.json).toEqual({ success: true, result: 2 });
  });

  it('refuses a rename onto an existing name (409) or an invalid one (400), changing nothing', async () => {
    await newRepo(host, alice, 'one');
    await newRepo(host, alice, 'two');
    const clash = await http(`${host.url}/api/v1/repos/alice/one`, { method: 'PATCH', headers: bearer(alice.token), form: { name: 'TWO' } });
    expect(clash.status).toBe(409);
    const bad = await http(`${host.url}/api/v1/repos/alice/one`, { method: 'PATCH', headers: bearer(alice.token), form: { name: '../escape' } });
    expect(bad.status).toBe(400);
    expect(existsSync(folder('alice', 'one'))).toBe(true);
    expect((await http(`${host.url}/api/v1/repos/alice/one`)).status).toBe(200);
  });

  it('changes description and visibility as Gitea does (private: true | false), refusing bad values whole', async () => {
    await newRepo(host, alice, 'details');
    const url = `${host.url}/api/v1/repos/alice/details`;
    const hidden = await http(url, { method: 'PATCH', headers: bearer(alice.token), json: { description: 'Now secret', private: true } });
    expect(hidden.status, hidden.text).toBe(200);
    expect(hidden.json).toMatchObject({ name: 'details', description: 'Now secret', private: true });
    expect((await http(url)).status).toBe(404);
    // A bad value changes nothing, not even the valid fields beside it.
    expectError(await http(url, { method: 'PATCH', headers: bearer(alice.token), json: { description: 'Changed', private: 'maybe' } }), 400, 'private');
    expectError(await http(url, { method: 'PATCH', headers: bearer(alice.token), json: { name: 'moved', visibility: 'secret' } }), 400);
    const unchanged = await http(url, { headers: bearer(alice.token) });
    expect(unchanged.json).toMatchObject({ name: 'details', description: 'Now secret', private: true });
    const shown = await http(url, { method: 'PATCH', headers: bearer(alice.token), json: { private: false } });
    expect(shown.json).toMatchObject({ description: 'Now secret', private: false });
    expect((await http(url)).status).toBe(200);
  });

  it('deletes with the owner credentials: record and folder gone, the name free again', async () => {
    await newRepo(host, alice, 'doomed');
    expect(existsSync(folder('alice', 'doomed'))).toBe(true);
    const deleted = await http(`${host.url}/api/v1/repos/alice/doomed`, { method: 'DELETE', headers: bearer(alice.token) });
    expect(deleted.status).toBe(204);
    expect((await http(`${host.url}/api/v1/repos/alice/doomed`)).status).toBe(404);
    expect(existsSync(folder('alice', 'doomed'))).toBe(false);
    await newRepo(host, alice, 'doomed');
    expect((await http(`${host.url}/api/v1/repos/alice/doomed`)).status).toBe(200);
  });

  it('answers 401 without credentials, 403 to another user on a public repository, 404 on a private one', async () => {
    await newRepo(host, alice, 'guarded');
    await newRepo(host, alice, 'hidden', 'private');
    expect((await http(`${host.url}/api/v1/repos/alice/guarded`, { method: 'DELETE' })).status).toBe(401);
    const stranger = await http(`${host.url}/api/v1/repos/alice/guarded`, { method: 'DELETE', headers: bearer(bob.token) });
    expect(stranger.status).toBe(403);
    expect(stranger.json).toEqual({ success: false, message: 'Only admins may change this repository' });
    expect((await http(`${host.url}/api/v1/repos/alice/hidden`, { method: 'DELETE', headers: bearer(bob.token) })).status).toBe(404);
    expect((await http(`${host.url}/api/v1/repos/alice/hidden`, { method: 'PATCH', headers: bearer(bob.token), form: { name: 'x' } })).status).toBe(404);
    expect((await http(`${host.url}/api/v1/repos/alice/guarded`)).status).toBe(200);
    expect((await http(`${host.url}/api/v1/repos/alice/hidden`, { headers: bearer(alice.token) })).status).toBe(200);
  });
});
