import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { expectError, expectShape, FILE_ENTRY, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches, type SeededBranches } from '../helpers/git-cli.js';

describe('counts and file listings (spec §4.1 endpoints 13-15)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let empty: { id: number };
  let pushed: { id: number };
  let commits: SeededBranches;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    empty = await newRepo(host, alice, 'empty');
    pushed = await newRepo(host, alice, 'pushed');
    commits = await pushTwoBranches(host, 'alice', alice.token, 'pushed', ['topic/nested', 'ünï-branch']);
  });
  afterAll(() => host?.close());

  describe('GET /api/v1/:user/:repo_name/branches/count', () => {
    it('answers 0 for a repository without branches', async () => {
      const result = await http(`${host.url}/api/v1/alice/empty/branches/count`, { headers: cookie(alice.session) });
      expect(result.status).toBe(200);
      expectShape(result.json, { success: 'boolean', result: 'integer' });
      expect(result.json).toEqual({ success: true, result: 0 });
    });

    it('counts pushed branches, for the owner and for another user, by cookie or token', async () => {
      for (const headers of [cookie(alice.session), cookie(bob.session), bearer(bob.token)]) {
        const result = await http(`${host.url}/api/v1/alice/pushed/branches/count`, { headers });
        expect(result.status).toBe(200);
        expect(result.json).toEqual({ success: true, result: 4 });
      }
    });

    it('answers 404 Not found without credentials and for an unknown repository', async () => {
      expectError(await http(`${host.url}/api/v1/alice/pushed/branches/count`), 404, 'Not found');
      expectError(await http(`${host.url}/api/v1/alice/missing/branches/count`, { headers: cookie(alice.session) }), 404, 'Not found');
      expectError(await http(`${host.url}/api/v1/nobody/pushed/branches/count`, { headers: cookie(alice.session) }), 404, 'Not found');
    });
  });

  describe('GET /api/v1/:user/:repo_name/:branch_name/commits/count', () => {
    it('answers 0 for a branch without commits', async () => {
      for (const branch of ['main', 'no-such-branch']) {
        const result = await http(`${host.url}/api/v1/alice/empty/${branch}/commits/count`, { headers: cookie(alice.session) });
        expect(result.status).toBe(200);
        expectShape(result.json, { success: 'boolean', result: 'integer' });
        expect(result.json).toEqual({ success: true, result: 0 });
      }
    });

    it('counts the commits reachable from a branch', async () => {
      const main = await http(`${host.url}/api/v1/alice/pushed/main/commits/count`, { headers: cookie(bob.session) });
      const feature = await http(`${host.url}/api/v1/alice/pushed/feature/commits/count`, { headers: bearer(alice.token) });
      expect(main.json).toEqual({ success: true, result: 1 });
      expect(feature.json).toEqual({ success: true, result: 2 });
    });

    it('takes a branch name with a slash or non-ASCII letters as one percent-encoded segment', async () => {
      for (const branch of ['topic/nested', 'ünï-branch']) {
        const result = await http(`${host.url}/api/v1/alice/pushed/${encodeURIComponent(branch)}/commits/count`, { headers: cookie(alice.session) });
        expect(result.json, branch).toEqual({ success: true, result: 1 });
        const files = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=${encodeURIComponent(branch)}`);
        expect(files.json.result.map((entry: { name: string }) => entry.name), branch).toEqual(['README.md']);
      }
    });

    it('answers 0 for an unknown branch of a repository with commits', async () => {
      // Chosen where the spec is silent: a branch that does not exist has no commits.
      const result = await http(`${host.url}/api/v1/alice/pushed/nope/commits/count`, { headers: cookie(alice.session) });
      expect(result.json).toEqual({ success: true, result: 0 });
    });

    it('never answers 500 for hostile branch names', async () => {
      for (const branch of ['..', '-n', '--all', '%2e%2e', 'HEAD@%7B0%7D', 'a%00b', 'main~1', '%E2%9C%93']) {
        const result = await http(`${host.url}/api/v1/alice/pushed/${branch}/commits/count`, { headers: cookie(alice.session) });
        expect(result.status, branch).toBeLessThan(500);
        if (result.status === 200) expect(result.json.result, branch).toBe(0);
      }
    });

    it('answers 404 Not found without credentials', async () => {
      expectError(await http(`${host.url}/api/v1/alice/pushed/main/commits/count`), 404, 'Not found');
    });
  });

  describe('POST /new with a clone_url', () => {
    it('imports every branch of a public repository; counts and listings then answer for it', async () => {
      const result = await http(`${host.url}/new`, {
        headers: cookie(bob.session),
        form: { name: 'imported', description: 'copy', clone_url: `${host.url}/alice/pushed.git`, repo_visibility: 'public', no_redirect: '1' },
      });
      expect(result.status).toBe(200);
      expect(result.text).toBe('ok');
      const repo = await http(`${host.url}/api/v1/repos/bob/imported`);
      expect(repo.json).toMatchObject({ name: 'imported', user_name: 'bob' });
      expect((await http(`${host.url}/api/v1/bob/imported/branches/count`, { headers: cookie(bob.session) })).json).toEqual({ success: true, result: 4 });
      expect((await http(`${host.url}/api/v1/bob/imported/feature/commits/count`, { headers: cookie(bob.session) })).json).toEqual({ success: true, result: 2 });
      const files = await http(`${host.url}/api/v1/repos/${repo.json.id}/tree/files?branch=feature`);
      expect(files.json.result.map((entry: { name: string }) => entry.name).sort()).toEqual(['README.md', 'feature.txt']);
      const pull = await http(`${host.url}/api/v1/repos/bob/imported/pulls`, { headers: bearer(bob.token), form: { title: 'from import', head: 'feature', base: 'main' } });
      expect(pull.status).toBe(200);
    });

    it('answers 4xx and creates nothing when the source cannot be cloned', async () => {
      await newRepo(host, alice, 'private-source', 'private');
      for (const clone_url of [`${host.url}/alice/private-source.git`, `${host.url}/alice/never.git`, 'http://127.0.0.1:1/none.git']) {
        const result = await http(`${host.url}/new`, { headers: cookie(bob.session), form: { name: 'failed-import', clone_url, no_redirect: '1' } });
        expect(result.status, clone_url).toBeGreaterThanOrEqual(400);
        expect(result.status, clone_url).toBeLessThan(500);
        expect(result.json).toMatchObject({ success: false });
        expect((await http(`${host.url}/api/v1/repos/bob/failed-import`, { headers: cookie(bob.session) })).status).toBe(404);
      }
      // The name is free again after a failed import.
      const retry = await http(`${host.url}/new`, { headers: cookie(bob.session), form: { name: 'failed-import', no_redirect: '1' } });
      expect(retry.text).toBe('ok');
    });
  });

  describe('GET /api/v1/repos/:repo_id_str/tree/files', () => {
    it('answers success true and an empty list for a repository without commits', async () => {
      const result = await http(`${host.url}/api/v1/repos/${empty.id}/tree/files?branch=main`);
      expect(result.status).toBe(200);
      expectShape(result.json, { success: 'boolean' });
      expect(result.json).toEqual({ success: true, result: [] });
    });

    it('lists the files of a branch as file entries of strings', async () => {
      const result = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=feature`);
      expect(result.status).toBe(200);
      expect(result.json.success).toBe(true);
      expect(Array.isArray(result.json.result)).toBe(true);
      for (const entry of result.json.result) expectShape(entry, FILE_ENTRY);
      const byName = Object.fromEntries(result.json.result.map((entry: { name: string }) => [entry.name, entry]));
      expect(Object.keys(byName).sort()).toEqual(['README.md', 'feature.txt']);
      expect(byName['feature.txt']).toMatchObject({ last_msg: 'Add a feature', last_hash: commits.feature, size: '10' });
      expect(byName['README.md']).toMatchObject({ last_msg: 'Initial commit', last_hash: commits.main, size: String('# pushed\n'.length) });
      // Chosen where the spec is silent: last_time is ISO 8601 UTC to the second, size a decimal byte count.
      for (const entry of result.json.result) {
        expect(entry.last_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(Math.abs(Date.parse(entry.last_time) - Date.now())).toBeLessThan(10 * 60_000);
        expect(entry.size).toMatch(/^\d+$/);
      }
      const main = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=main`);
      expect(main.json.result.map((entry: { name: string }) => entry.name)).toEqual(['README.md']);
    });

    it('answers 404 for a branch that does not exist in a repository with commits', async () => {
      // Chosen where the spec is silent: an empty repository lists nothing on any branch (success, []),
      // but a repository with branches answers 404 `branch not found` for a name that is none of them.
      expectError(await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=nope`), 404, 'not found');
      const inEmpty = await http(`${host.url}/api/v1/repos/${empty.id}/tree/files?branch=nope`);
      expect(inEmpty.json).toEqual({ success: true, result: [] });
    });

    it('never answers 500 for hostile folder paths, and never lists outside the tree', async () => {
      for (const path of ['..', '../..', '/etc', '%2e%2e', 'README.md/..', 'a\u0000b', 'feature.txt', 'x'.repeat(5000)]) {
        const result = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=feature&path=${encodeURIComponent(path)}`);
        expect(result.status, path).toBeLessThan(500);
        expect(typeof result.json?.success, path).toBe('boolean');
        expect(result.text, path).not.toContain('passwd');
      }
    });

    it('is the same for the owner, another user and an anonymous caller', async () => {
      const anonymous = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=main`);
      for (const headers of [cookie(alice.session), bearer(bob.token)]) {
        expect((await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=main`, { headers })).json).toEqual(anonymous.json);
      }
    });

    it('answers a body containing branch is required when the branch query parameter is missing (400)', async () => {
      for (const query of ['', '?branch=', '?other=main']) {
        const result = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files${query}`);
        expect(result.text).toContain('branch is required');
        expectError(result, 400, 'branch is required');
      }
    });

    it('answers a body containing Not found for an unknown repository id (404)', async () => {
      for (const id of ['999999', '0', 'abc', '-1', '%2e%2e']) {
        const result = await http(`${host.url}/api/v1/repos/${id}/tree/files?branch=main`);
        expect(result.text, id).toContain('Not found');
        expectError(result, 404, 'Not found');
      }
    });

    it('never answers 500 for hostile branch names', async () => {
      for (const branch of ['..', '-n', '--output=/tmp/x', 'main:README.md', 'HEAD~1', '%00', 'ünï', 'a'.repeat(5000)]) {
        const result = await http(`${host.url}/api/v1/repos/${pushed.id}/tree/files?branch=${encodeURIComponent(branch)}`);
        expect(result.status, branch).toBeLessThan(500);
        expect(result.json?.success === true || result.json?.success === false, branch).toBe(true);
      }
    });
  });
});
