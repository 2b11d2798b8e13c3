import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches, type SeededBranches } from '../helpers/git-cli.js';

describe('POST /api/v1/ci/status (spec §4.1 endpoint 18)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let repo: { id: number };

  const report = (fields: Record<string, unknown> = {}) => ({
    run_id: 'run-1',
    repo_id: String(repo.id),
    commit_hash: '0123456789abcdef0123456789abcdef01234567',
    branch: 'main',
    status: 'running',
    ...fields,
  });
  const post = (body: unknown) => http(`${host.url}/api/v1/ci/status`, { json: body });
  const postRaw = (body: string, contentType = 'application/json') =>
    http(`${host.url}/api/v1/ci/status`, { method: 'POST', headers: { 'content-type': contentType }, body });
  const runs = async () => (await http(`${host.url}/api/v1/repos/alice/project/ci/runs`)).json;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    repo = await newRepo(host, alice, 'project');
  });
  afterAll(() => host?.close());

  it('accepts a report without credentials: 200, success true', async () => {
    const result = await post(report());
    expect(result.status).toBe(200);
    expect(result.json.success).toBe(true);
    expect(String(result.headers['content-type'])).toMatch(/^application\/json/);
  });

  it('keeps one run per run_id with its latest status, and the history of its reports', async () => {
    expect((await post(report({ run_id: 'run-2', status: 'running' }))).status).toBe(200);
    expect((await post(report({ run_id: 'run-2', status: 'success' }))).status).toBe(200);
    const list = await runs();
    const run2 = list.filter((run: { run_id: string }) => run.run_id === 'run-2');
    expect(run2).toHaveLength(1);
    expect(run2[0]).toMatchObject({ status: 'success', branch: 'main' });
    expect(run2[0].history.map((entry: { status: string }) => entry.status)).toEqual(['running', 'success']);
  });

  it.each(['{not json', '', 'null', '[]', '"running"', '42', 'true', '{"run_id": "x",}'])(
    'answers a body containing Invalid request body (400) to %j',
    async (body) => {
      const result = await postRaw(body);
      expect(result.text).toContain('Invalid request body');
      expectError(result, 400, 'Invalid request body');
    },
  );

  it('answers Invalid request body to a form-encoded report', async () => {
    const form = new URLSearchParams({ run_id: 'r', repo_id: String(repo.id), commit_hash: 'abcd', branch: 'main', status: 'running' }).toString();
    expectError(await postRaw(form, 'application/x-www-form-urlencoded'), 415, 'Invalid request body');
  });

  it.each(['run_id', 'repo_id', 'commit_hash', 'branch', 'status'])('answers 400 when %s is missing, empty or not a string', async (field) => {
    const without = report();
    delete (without as Record<string, unknown>)[field];
    expectError(await post(without), 400, field);
    expectError(await post(report({ [field]: '' })), 400, field);
    expectError(await post(report({ [field]: '   ' })), 400, field);
    expectError(await post(report({ [field]: 7 })), 400, field);
    expectError(await post(report({ [field]: null })), 400, field);
    expectError(await post(report({ [field]: ['main'] })), 400, field);
  });

  it('answers 400 to a repo_id that is not a decimal id (a number instead of a string included)', async () => {
    expectError(await post(report({ repo_id: repo.id })), 400, 'repo_id');
    expectError(await post(report({ repo_id: 'abc' })), 400, 'repo_id');
    expectError(await post(report({ repo_id: '-1' })), 400, 'repo_id');
    expectError(await post(report({ repo_id: '1.5' })), 400, 'repo_id');
  });

  it('answers 404 to an unknown repository and records nothing', async () => {
    const before = (await runs()).length;
    expectError(await post(report({ repo_id: '987654', run_id: 'ghost' })), 404);
    expectError(await post(report({ repo_id: '99999999999999999999', run_id: 'ghost' })), 404);
    expect((await runs()).length).toBe(before);
  });

  it('answers 400 to a commit hash with spaces and to a malformed status', async () => {
    expectError(await post(report({ commit_hash: 'abc def' })), 400, 'commit_hash');
    expectError(await post(report({ status: 'RUNNING; DROP TABLE' })), 400, 'status');
  });

  it('accepts placeholder commit ids and statuses of other CI vocabularies', async () => {
    const response = await post(report({ commit_hash: 'commit-1', status: 'Passed', run_id: 'placeholder' }));
    expect(response.status).toBe(200);
    expect(response.json.success).toBe(true);
    expect((await runs()).find((run: { run_id: string }) => run.run_id === 'placeholder')).toMatchObject({ commit_hash: 'commit-1', status: 'Passed' });
  });

  it('answers 400 to over-long fields', async () => {
    expectError(await post(report({ run_id: 'r'.repeat(10_000) })), 400, 'run_id');
    expectError(await post(report({ branch: 'b'.repeat(10_000) })), 400, 'branch');
  });

  it('answers 413 to a huge body', async () => {
    expectError(await postRaw(JSON.stringify(report({ padding: 'x'.repeat(2 * 1024 * 1024) }))), 413);
  });

  it('ignores unknown extra fields', async () => {
    const result = await post(report({ run_id: 'extra', extra: { nested: true } }));
    expect(result.status).toBe(200);
  });

  it('answers 415 to any body that is not application/json, so no page can post it cross-site (issue 7 point 13)', async () => {
    const body = JSON.stringify(report());
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '']) {
      const result = await http(`${host.url}/api/v1/ci/status`, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
      expectError(result, 415, 'Invalid request body');
    }
    expect((await postRaw(body, 'application/json; charset=utf-8')).status).toBe(200);
  });
});

/**
 * Issue 17 point 2: the callback takes no credentials, so it must not be a way around a protected branch's
 * required checks. Every report is recorded as a run (the spec's answer), but only one carrying credentials with
 * write access becomes a commit status.
 */
describe('CI reports and commit statuses: only writers turn a required check green', () => {
  let host: RepoHost;
  let owner: TestUser;
  let writer: TestUser;
  let reader: TestUser;
  let outsider: TestUser;
  let commits: SeededBranches;
  let repoId: number;
  let pullId: number;
  const base = () => `${host.url}/api/v1/repos/owner/guarded`;

  const report = (headers: Record<string, string>, status = 'success') =>
    http(`${host.url}/api/v1/ci/status`, { headers, json: { run_id: 'build', repo_id: String(repoId), commit_hash: commits.feature, branch: 'feature', status } });
  const ciStatuses = async () =>
    ((await http(`${base()}/commits/${commits.feature}/statuses`)).json as Array<{ context: string; state: string; creator: string | null }>).filter(
      (status) => status.context === 'ci/build',
    );
  const buildRun = async () => ((await http(`${base()}/ci/runs`)).json as Array<{ run_id: string; status: string; history: Array<{ status: string }> }>).find((run) => run.run_id === 'build');
  const merge = () => http(`${base()}/pulls/${pullId}/merge`, { headers: bearer(owner.token), json: { method: 'merge' } });

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'owner');
    writer = await newUser(host, 'writer');
    reader = await newUser(host, 'reader');
    outsider = await newUser(host, 'outsider');
    repoId = (await newRepo(host, owner, 'guarded')).id;
    commits = await pushTwoBranches(host, 'owner', owner.token, 'guarded');
    for (const [user, permission] of [[writer, 'write'], [reader, 'read']] as const) {
      expect((await http(`${base()}/collaborators/${user.username}`, { method: 'PUT', headers: bearer(owner.token), json: { permission } })).status).toBeLessThan(300);
    }
    expect((await http(`${base()}/branch_protections/main`, { method: 'PUT', headers: bearer(owner.token), json: { required_status_contexts: ['ci/build'] } })).status).toBe(200);
    const pull = await http(`${base()}/pulls`, { headers: bearer(owner.token), json: { title: 'Feature', head: 'feature', base: 'main' } });
    expect(pull.status).toBe(200);
    pullId = pull.json.id;
  });
  afterAll(() => host?.close());

  it('records an anonymous report as a run (the spec answer) but not as a commit status: the required check stays unmet', async () => {
    const result = await report({});
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ success: true, run_id: 'build', repo_id: String(repoId), status: 'success' });
    expect(await buildRun()).toMatchObject({ status: 'success', history: [{ status: 'success' }] });
    expect(await ciStatuses()).toEqual([]);
    expect((await http(`${base()}/commits/${commits.feature}/status`)).json).toMatchObject({ state: 'pending', total_count: 0 });
    expectError(await merge(), 405, 'ci/build (missing)');
  });

  it('records a report of a read-only collaborator or of a signed-in stranger as a run only: no status, merge still refused', async () => {
    for (const user of [reader, outsider]) {
      const result = await report(bearer(user.token));
      expect(result.status).toBe(200);
      expect(result.json).toEqual({ success: true, run_id: 'build', repo_id: String(repoId), status: 'success' });
    }
    const basic = `Basic ${Buffer.from(`reader:${reader.token}`).toString('base64')}`;
    expect((await report({ authorization: basic })).status).toBe(200);
    expect((await buildRun())!.history).toHaveLength(4);
    expect(await ciStatuses()).toEqual([]);
    expectError(await merge(), 405, 'ci/build (missing)');
  });

  it('turns a report carrying a write token (Bearer or Basic) into a commit status that satisfies the required check', async () => {
    const basic = `Basic ${Buffer.from(`writer:${writer.token}`).toString('base64')}`;
    const failing = await report({ authorization: basic }, 'failure');
    expect(failing.json).toEqual({ success: true, run_id: 'build', repo_id: String(repoId), status: 'failure' });
    expect(await ciStatuses()).toMatchObject([{ state: 'failure', creator: 'writer' }]);
    expectError(await merge(), 405, 'ci/build (failure)');
    const passing = await report(bearer(writer.token));
    expect(passing.json).toEqual({ success: true, run_id: 'build', repo_id: String(repoId), status: 'success' });
    expect((await ciStatuses())[0]).toMatchObject({ state: 'success', creator: 'writer' });
    expect((await buildRun())!.history).toHaveLength(6);
    const merged = await merge();
    expect(merged.status).toBe(200);
  });
});
