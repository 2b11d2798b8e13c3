import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { expectError, expectShape, newRepo, newUser, REPO_SUMMARY, type TestUser } from '../helpers/api.js';

describe('repositories API (spec §4.1 endpoints 4, 11, 12)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let project: { id: number };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    carol = await newUser(host, 'carol');
    project = await newRepo(host, alice, 'project');
  });
  afterAll(() => host?.close());

  describe('GET /api/v1/repos/:username/:repo_name', () => {
    it('returns the repository summary without credentials', async () => {
      const result = await http(`${host.url}/api/v1/repos/alice/project`);
      expect(result.status).toBe(200);
      expectShape(result.json, REPO_SUMMARY);
      expect(result.json).toMatchObject({ id: project.id, name: 'project', user_name: 'alice' });
    });

    it('returns the same summary to the owner and to another authenticated user (cookie and token), with their own permissions', async () => {
      const anonymous = await http(`${host.url}/api/v1/repos/alice/project`);
      expect(anonymous.json.permissions).toEqual({ admin: false, push: false, pull: true });
      const cases = [
        [cookie(alice.session), { admin: true, push: true, pull: true }],
        [bearer(alice.token), { admin: true, push: true, pull: true }],
        [cookie(bob.session), { admin: false, push: false, pull: true }],
        [bearer(bob.token), { admin: false, push: false, pull: true }],
      ] as const;
      for (const [headers, permissions] of cases) {
        const result = await http(`${host.url}/api/v1/repos/alice/project`, { headers });
        expect(result.status).toBe(200);
        expectShape(result.json, REPO_SUMMARY);
        expect(result.json).toEqual({ ...anonymous.json, permissions });
      }
    });

    it('answers 200 to a caller sending a wrong token for a public repository (credentials are optional)', async () => {
      // Chosen where the spec is silent: an invalid credential on an endpoint that needs none is ignored, like none.
      const result = await http(`${host.url}/api/v1/repos/alice/project`, { headers: bearer('nope') });
      expect(result.status).toBe(200);
    });

    it('answers 404 for an unknown repository name of an existing user', async () => {
      expectError(await http(`${host.url}/api/v1/repos/alice/missing`), 404);
      expectError(await http(`${host.url}/api/v1/repos/alice/missing`, { headers: cookie(alice.session) }), 404);
    });

    it('answers 404 for an unknown owner', async () => {
      expectError(await http(`${host.url}/api/v1/repos/nobody/project`), 404);
    });

    it('finds the repository whatever the case of the owner name', async () => {
      const result = await http(`${host.url}/api/v1/repos/ALICE/project`);
      expect(result.status).toBe(200);
      expect(result.json).toMatchObject({ id: project.id, user_name: 'alice' });
    });

    it('finds a repository whatever the case of its name and answers with the stored spelling', async () => {
      const { id } = await newRepo(host, alice, 'CamelCase');
      const result = await http(`${host.url}/api/v1/repos/alice/camelcase`);
      expect(result.status).toBe(200);
      expect(result.json).toMatchObject({ id, name: 'CamelCase', user_name: 'alice' });
    });

    it('handles names with dots, dashes and underscores on every name-based endpoint', async () => {
      const { id } = await newRepo(host, alice, 'my.repo_x-1');
      expect((await http(`${host.url}/api/v1/repos/alice/my.repo_x-1`)).json.id).toBe(id);
      expect((await http(`${host.url}/api/v1/repos/alice/my.repo_x-1/issues`, { headers: bearer(bob.token), form: { title: 'dotted' } })).status).toBe(200);
      expect((await http(`${host.url}/api/v1/repos/alice/my.repo_x-1/issues`)).json).toHaveLength(1);
      expect((await http(`${host.url}/api/v1/alice/my.repo_x-1/issues/count`, { headers: cookie(bob.session) })).json).toEqual({ success: true, result: 1 });
      expect((await http(`${host.url}/api/v1/alice/my.repo_x-1/branches/count`, { headers: cookie(bob.session) })).json).toEqual({ success: true, result: 0 });
      expect((await http(`${host.url}/api/v1/repos/${id}/tree/files?branch=main`)).json).toEqual({ success: true, result: [] });
    });

    it('does not find a repository under another owner', async () => {
      expectError(await http(`${host.url}/api/v1/repos/bob/project`), 404);
    });
  });

  describe('POST /api/v1/repos/:repo_id/star', () => {
    it('stars then unstars: result true, then false (session cookie)', async () => {
      const first = await http(`${host.url}/api/v1/repos/${project.id}/star`, { method: 'POST', headers: cookie(bob.session) });
      expect(first.status).toBe(200);
      expectShape(first.json, { success: 'boolean', result: 'boolean' });
      expect(first.json).toMatchObject({ success: true, result: true });
      const second = await http(`${host.url}/api/v1/repos/${project.id}/star`, { method: 'POST', headers: cookie(bob.session) });
      expect(second.status).toBe(200);
      expect(second.json).toMatchObject({ success: true, result: false });
      const third = await http(`${host.url}/api/v1/repos/${project.id}/star`, { method: 'POST', headers: cookie(bob.session) });
      expect(third.json).toMatchObject({ success: true, result: true });
    });

    it('keeps one star per user: another user starts from not starred', async () => {
      const result = await http(`${host.url}/api/v1/repos/${project.id}/star`, { method: 'POST', headers: cookie(carol.session) });
      expect(result.json).toMatchObject({ success: true, result: true });
    });

    it('lets the owner star their own repository', async () => {
      const result = await http(`${host.url}/api/v1/repos/${project.id}/star`, { method: 'POST', headers: cookie(alice.session) });
      expect(result.json).toMatchObject({ success: true, result: true });
    });

    it('shares the toggle between the session cookie and the bearer token of one user', async () => {
      const { id } = await newRepo(host, alice, 'star-both-ways');
      const viaCookie = await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: cookie(bob.session) });
      const viaToken = await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: bearer(bob.token) });
      expect(viaCookie.json).toMatchObject({ success: true, result: true });
      expect(viaToken.json).toMatchObject({ success: true, result: false });
    });

    it('answers 404 Not found without credentials or with a wrong one, and changes nothing', async () => {
      const { id } = await newRepo(host, alice, 'star-anon');
      expectError(await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST' }), 404, 'Not found');
      expectError(await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: cookie('wrong') }), 404, 'Not found');
      expectError(await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: bearer('wrong') }), 404, 'Not found');
      const owner = await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: cookie(alice.session) });
      expect(owner.json.result).toBe(true);
    });

    it('answers 404 for an unknown or non-numeric repository id', async () => {
      for (const id of ['999999', '0', '-1', 'abc', '1.5', '1e3', '99999999999999999999']) {
        expectError(await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: cookie(bob.session) }), 404);
      }
    });

    it('ignores a request body', async () => {
      const { id } = await newRepo(host, alice, 'star-body');
      const result = await http(`${host.url}/api/v1/repos/${id}/star`, { headers: cookie(bob.session), json: { result: false } });
      expect(result.json).toMatchObject({ success: true, result: true });
    });

    it('answers 405 to GET (only POST toggles)', async () => {
      const result = await http(`${host.url}/api/v1/repos/${project.id}/star`, { headers: cookie(bob.session) });
      expect(result.status).toBeGreaterThanOrEqual(400);
      expect(result.status).toBeLessThan(500);
      expect(result.json).toMatchObject({ success: false });
    });
  });

  describe('POST /api/v1/repos/:repo_id/watch', () => {
    it('toggles: true (now watched), false, true; always success true', async () => {
      const results: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        const result = await http(`${host.url}/api/v1/repos/${project.id}/watch`, { method: 'POST', headers: cookie(bob.session) });
        expect(result.status).toBe(200);
        expectShape(result.json, { success: 'boolean', result: 'boolean' });
        expect(result.json.success).toBe(true);
        results.push(result.json.result);
      }
      expect(results).toEqual([true, false, true]);
    });

    it('is independent of the star toggle', async () => {
      const { id } = await newRepo(host, alice, 'watch-vs-star');
      await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: cookie(bob.session) });
      const watch = await http(`${host.url}/api/v1/repos/${id}/watch`, { method: 'POST', headers: cookie(bob.session) });
      expect(watch.json).toMatchObject({ success: true, result: true });
      const star = await http(`${host.url}/api/v1/repos/${id}/star`, { method: 'POST', headers: cookie(bob.session) });
      expect(star.json).toMatchObject({ success: true, result: false });
    });

    it('accepts the bearer token too', async () => {
      const { id } = await newRepo(host, alice, 'watch-token');
      const result = await http(`${host.url}/api/v1/repos/${id}/watch`, { method: 'POST', headers: bearer(carol.token) });
      expect(result.json).toMatchObject({ success: true, result: true });
    });

    it('answers 404 Not found without credentials, and for unknown ids', async () => {
      expectError(await http(`${host.url}/api/v1/repos/${project.id}/watch`, { method: 'POST' }), 404, 'Not found');
      expectError(await http(`${host.url}/api/v1/repos/424242/watch`, { method: 'POST', headers: cookie(bob.session) }), 404);
      expectError(await http(`${host.url}/api/v1/repos/x/watch`, { method: 'POST', headers: cookie(bob.session) }), 404);
    });
  });
});
