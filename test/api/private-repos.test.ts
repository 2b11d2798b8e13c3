import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost, type HttpResult } from '../helpers/host.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: () => string;
  form?: Record<string, string> | (() => Record<string, string>);
  json?: () => unknown;
  /** The endpoint needs credentials and answers 401 (not 404) to a caller without valid ones. */
  challenges?: boolean;
}

describe('private repositories are hidden (404) from everybody but their owner', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let hidden: { id: number };
  let issueId: number;
  let pullId: number;
  let probes = 0;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    hidden = await newRepo(host, alice, 'hidden', 'private');
    await newRepo(host, alice, 'visible');
    await pushTwoBranches(host, 'alice', alice.token, 'hidden', Array.from({ length: 10 }, (_, n) => `probe-${n + 1}`));
    const issue = await http(`${host.url}/api/v1/repos/alice/hidden/issues`, { headers: bearer(alice.token), form: { title: 'secret issue' } });
    expect(issue.status).toBe(200);
    issueId = issue.json.id;
    const pull = await http(`${host.url}/api/v1/repos/alice/hidden/pulls`, {
      headers: bearer(alice.token),
      form: { title: 'secret pull', description: '', head: 'feature', base: 'main' },
    });
    expect(pull.status).toBe(200);
    pullId = pull.json.id;
  });
  afterAll(() => host?.close());

  const base = () => `/api/v1/repos/alice/hidden`;
  const calls: Call[] = [
    { name: '4 repository lookup', method: 'GET', path: () => base() },
    { name: '5 issue list', method: 'GET', path: () => `${base()}/issues` },
    { name: '6 issue creation', method: 'POST', path: () => `${base()}/issues`, form: { title: 'probe' }, challenges: true },
    { name: '7 issue lookup', method: 'GET', path: () => `${base()}/issues/${issueId}` },
    { name: '8 pull request list', method: 'GET', path: () => `${base()}/pulls` },
    { name: '9 pull request lookup', method: 'GET', path: () => `${base()}/pulls/${pullId}` },
    { name: '10 pull request comments', method: 'GET', path: () => `${base()}/pulls/${pullId}/comments` },
    { name: '11 star', method: 'POST', path: () => `/api/v1/repos/${hidden.id}/star` },
    { name: '12 watch', method: 'POST', path: () => `/api/v1/repos/${hidden.id}/watch` },
    { name: '13 tree files', method: 'GET', path: () => `/api/v1/repos/${hidden.id}/tree/files?branch=main` },
    { name: '14 branches count', method: 'GET', path: () => `/api/v1/alice/hidden/branches/count` },
    { name: '15 commits count', method: 'GET', path: () => `/api/v1/alice/hidden/main/commits/count` },
    { name: '16 issues count', method: 'GET', path: () => `/api/v1/alice/hidden/issues/count` },
    {
      name: 'pull request creation',
      method: 'POST',
      path: () => `${base()}/pulls`,
      // Each successful probe opens a pull request; only one may be open per pair of branches.
      form: () => ({ title: 'probe', head: 'feature', base: `probe-${++probes}` }),
      challenges: true,
    },
    { name: 'comment creation', method: 'POST', path: () => `${base()}/pulls/${pullId}/comments`, form: { text: 'probe' }, challenges: true },
    {
      name: '18 CI status callback',
      method: 'POST',
      path: () => `/api/v1/ci/status`,
      json: () => ({ run_id: 'probe', repo_id: String(hidden.id), commit_hash: 'abcdef0', branch: 'main', status: 'running' }),
    },
    { name: 'repository web page', method: 'GET', path: () => `/alice/hidden` },
    { name: 'branch list (extra)', method: 'GET', path: () => `${base()}/branches` },
    { name: 'CI runs (extra)', method: 'GET', path: () => `${base()}/ci/runs` },
  ];

  const send = (call: Call, headers: Record<string, string>): Promise<HttpResult> =>
    http(`${host.url}${call.path()}`, { method: call.method, headers, form: typeof call.form === 'function' ? call.form() : call.form, json: call.json?.() });

  const strangers: Array<[string, () => Record<string, string>, boolean]> = [
    ['an anonymous caller', () => ({}), false],
    ['another user (session cookie)', () => cookie(bob.session), true],
    ['another user (bearer token)', () => bearer(bob.token), true],
    ['a wrong bearer token', () => bearer('1'.repeat(64)), false],
    ['a wrong session cookie', () => cookie('1'.repeat(64)), false],
  ];

  describe.each(strangers)('to %s', (_label, headers, authenticated) => {
    it.each(calls.map((call) => [call.name, call] as const))('%s answers 404 (or 401 where credentials are required)', async (_name, call) => {
      const result = await send(call, headers());
      const status = call.challenges && !authenticated ? 401 : 404;
      expect(result.status).toBe(status);
      expect(result.text).not.toContain('secret');
      if (call.name !== 'repository web page') expectError(result, status);
    });

    it('leaves the repository out of the owner’s repository list', async () => {
      const result = await http(`${host.url}/api/v1/users/alice/repos`, { headers: headers() });
      expect(result.status).toBe(200);
      expect(result.json.map((repo: { name: string }) => repo.name)).toEqual(['visible']);
    });
  });

  it('answers a hidden repository exactly like one that does not exist', async () => {
    const hiddenResult = await http(`${host.url}/api/v1/repos/alice/hidden`, { headers: cookie(bob.session) });
    const missingResult = await http(`${host.url}/api/v1/repos/alice/never-created`, { headers: cookie(bob.session) });
    expect(hiddenResult.status).toBe(missingResult.status);
    expect(hiddenResult.json).toEqual(missingResult.json);
    const hiddenTree = await http(`${host.url}/api/v1/repos/${hidden.id}/tree/files?branch=main`);
    const missingTree = await http(`${host.url}/api/v1/repos/987654/tree/files?branch=main`);
    expect(hiddenTree.json).toEqual(missingTree.json);
  });

  it.each([
    ['session cookie', () => cookie(alice.session)],
    ['bearer token', () => bearer(alice.token)],
  ])('answers the owner (%s) with success on every endpoint', async (_label, headers) => {
    for (const call of calls) {
      const result = await send(call, headers());
      expect(result.status, call.name).toBe(200);
    }
    const list = await http(`${host.url}/api/v1/users/alice/repos`, { headers: headers() });
    expect(list.json.map((repo: { name: string }) => repo.name).sort()).toEqual(['hidden', 'visible']);
  });

  it('shows the owner the real contents', async () => {
    const repo = await http(`${host.url}/api/v1/repos/alice/hidden`, { headers: cookie(alice.session) });
    expect(repo.json).toMatchObject({ id: hidden.id, name: 'hidden', user_name: 'alice' });
    const issues = await http(`${host.url}/api/v1/repos/alice/hidden/issues`, { headers: cookie(alice.session) });
    expect(issues.json.map((issue: { title: string }) => issue.title)).toContain('secret issue');
    const branches = await http(`${host.url}/api/v1/alice/hidden/branches/count`, { headers: cookie(alice.session) });
    expect(branches.json).toEqual({ success: true, result: 12 });
  });
});
