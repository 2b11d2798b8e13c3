import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { startHost } from '../helpers/host.js';
import { failure } from '../helpers/octokit.js';

// What tools read of the signed-in account besides its profile: its addresses (octokit's
// `users.listEmailsForAuthenticatedUser`, what CI tools set git's user.email from) and its organizations (none here).
describe('the account’s addresses and organizations', () => {
  let host: RepoHost;
  let alice: Octokit;

  beforeAll(async () => {
    host = await startHost();
    await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    alice = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: await host.admin.createToken('alice', 'accounts') });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('lists the one private, unverified address, to the account itself only', async () => {
    expect((await alice.users.listEmailsForAuthenticatedUser()).data).toEqual([{ email: 'alice@example.com', primary: true, verified: false, visibility: 'private' }]);
    expect((await alice.users.listPublicEmailsForAuthenticatedUser()).data).toEqual([]);
    expect((await failure(new Octokit({ baseUrl: `${host.url}/api/v3` }).users.listEmailsForAuthenticatedUser())).status).toBe(401);
    // The profile keeps it private too.
    expect((await alice.users.getAuthenticated()).data.email).toBeNull();
  });

  it('belongs to no organization, as there are none', async () => {
    expect((await alice.orgs.listForAuthenticatedUser()).data).toEqual([]);
    expect((await alice.orgs.listForUser({ username: 'alice' })).data).toEqual([]);
    expect((await failure(alice.orgs.listForUser({ username: 'nobody-here' }))).status).toBe(404);
  });
});
