import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';

describe('concurrent requests', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let repo: { id: number };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    repo = await newRepo(host, alice, 'busy');
  });
  afterAll(() => host?.close());

  it('star toggles from one user interleave without losing a flip', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => http(`${host.url}/api/v1/repos/${repo.id}/star`, { method: 'POST', headers: cookie(bob.session) })),
    );
    const values = results.map((result) => result.json.result);
    expect(values.filter(Boolean)).toHaveLength(5);
    // Ten flips from not starred: not starred again, so the next flip stars.
    const next = await http(`${host.url}/api/v1/repos/${repo.id}/star`, { method: 'POST', headers: cookie(bob.session) });
    expect(next.json.result).toBe(true);
  });

  it('issues created at once get distinct ids and consecutive numbers', async () => {
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => http(`${host.url}/api/v1/repos/alice/busy/issues`, { headers: bearer(i % 2 ? alice.token : bob.token), form: { title: `issue ${i}` } })),
    );
    for (const result of created) expect(result.status).toBe(200);
    expect(new Set(created.map((result) => result.json.id)).size).toBe(20);
    expect(created.map((result) => result.json.number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const count = await http(`${host.url}/api/v1/alice/busy/issues/count`, { headers: cookie(alice.session) });
    expect(count.json.result).toBe(20);
  });

  it('one of several simultaneous registrations of a name wins, the others get 409', async () => {
    const results = await Promise.all(
      ['racer', 'Racer', 'RACER', 'racer'].map((username) =>
        http(`${host.url}/register`, { form: { username, password: 'password123', email: 'r@example.com', no_redirect: '1' } }),
      ),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 409, 409, 409]);
  });

  it('one of several simultaneous creations of a repository wins, the others get 409', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () => http(`${host.url}/new`, { headers: cookie(alice.session), form: { name: 'contested', no_redirect: '1' } })),
    );
    expect(results.map((result) => result.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await http(`${host.url}/api/v1/repos/alice/contested`)).status).toBe(200);
  });
});
