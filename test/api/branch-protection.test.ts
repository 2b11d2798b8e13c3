import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';
import { WorkTree } from '../git/fixtures.js';

const run = promisify(execFile);

/** Protected branches (issue 9): rules refused per ref over real git push, and honoured by the merge endpoint. */
describe('protected branches', () => {
  let host: RepoHost;
  let owner: TestUser;
  let writer: TestUser;
  let allowed: TestUser;
  let work: { path: string; cleanup: () => Promise<void> };
  let tree: WorkTree;
  const base = () => `${host.url}/api/v1/repos/owner/guarded`;
  const remote = (user: TestUser) => {
    const url = new URL(`${host.url}/owner/guarded.git`);
    url.username = user.username;
    url.password = user.token;
    return url.toString();
  };
  /** Runs git push and returns its exit status with everything it printed. */
  const push = async (user: TestUser, ...refspecs: string[]) =>
    run('git', ['push', remote(user), ...refspecs], { cwd: tree.dir, env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' } }).then(
      ({ stderr }) => ({ ok: true, output: stderr }),
      (error: { stderr: string }) => ({ ok: false, output: error.stderr }),
    );
  const protect = (branch: string, rule: Record<string, unknown>, who = owner) =>
    http(`${base()}/branch_protections/${encodeURIComponent(branch)}`, { method: 'PUT', headers: bearer(who.token), json: rule });
  const tipOf = async (branch: string) => (await run('git', ['ls-remote', remote(owner), `refs/heads/${branch}`])).stdout.split('\t')[0] ?? '';

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'owner');
    writer = await newUser(host, 'writer');
    allowed = await newUser(host, 'allowed');
    await newRepo(host, owner, 'guarded');
    for (const user of [writer, allowed]) await http(`${base()}/collaborators/${user.username}`, { method: 'PUT', headers: bearer(owner.token), json: { permission: 'write' } });
    work = await tempDir('repohost-protect-');
    tree = await WorkTree.init(join(work.path, 'work'));
    await tree.commit('first', { 'a.txt': '1\n' });
    await tree.git(['branch', 'release/1.0']);
    await tree.git(['branch', 'topic']);
    await tree.git(['push', '-q', remote(owner), 'main', 'release/1.0', 'topic']);
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('manages rules with admin access: defaults, validation, globs in the path, 403 for writers', async () => {
    const rule = await protect('main', { required_status_contexts: ['ci/build'], push_allowlist: ['allowed'] });
    expect(rule.json).toMatchObject({ branch: 'main', allow_force_push: false, allow_deletion: false, require_pull_request: false, required_status_contexts: ['ci/build'], push_allowlist: ['allowed'] });
    expect((await protect('release/*', { allow_deletion: false })).json.branch).toBe('release/*');
    expectError(await protect('main', { allow_force_push: 'maybe' }), 400, 'allow_force_push');
    expectError(await protect('bad name!', {}), 400);
    expectError(await protect('topic', {}, writer), 403);
    const list = await http(`${base()}/branch_protections`, { headers: bearer(owner.token) });
    expect(list.json.map((r: { branch: string }) => r.branch)).toEqual(['main', 'release/*']);
    expect((await http(`${base()}/branch_protections/topic`, { method: 'DELETE', headers: bearer(owner.token) })).status).toBe(404);
  });

  it('refuses a force push and a deletion per ref with a message git prints, while the other refs of the push land', async () => {
    await tree.git(['checkout', '-q', 'release/1.0']);
    await tree.git(['commit', '-q', '--amend', '-m', 'rewritten']);
    await tree.git(['checkout', '-q', 'topic']);
    const topicTip = await tree.commit('topic moves', { 't.txt': 't\n' });
    const before = await tipOf('release/1.0');
    const forced = await push(owner, '--force', 'release/1.0', 'topic');
    expect(forced.ok).toBe(false);
    expect(forced.output).toContain('remote: repohost: branch release/1.0 is protected (release/*): force pushes are not allowed');
    expect(forced.output).toMatch(/\[remote rejected\]\s+release\/1\.0 -> release\/1\.0 \(hook declined\)/);
    expect(await tipOf('release/1.0')).toBe(before);
    expect(await tipOf('topic')).toBe(topicTip);
    const deleted = await push(owner, '--delete', 'release/1.0');
    expect(deleted.output).toContain('it may not be deleted');
    expect(await tipOf('release/1.0')).toBe(before);
    await protect('release/*', { allow_force_push: true, allow_deletion: true });
    expect((await push(owner, '--force', 'release/1.0')).ok).toBe(true);
    expect((await push(owner, '--delete', 'release/1.0')).ok).toBe(true);
  });

  it('never deletes the default branch, protected or not: over git in its words, through the API 422', async () => {
    await newRepo(host, owner, 'plain');
    const plain = remote(owner).replace('/guarded.git', '/plain.git');
    await tree.git(['push', '-q', plain, 'main:main', 'main:side']);
    const env = { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LANG: 'C' };
    const refused = await run('git', ['push', plain, '--delete', 'main'], { cwd: tree.dir, env }).then(() => undefined, (error: { stderr: string }) => error.stderr);
    expect(refused).toContain('refusing to delete the current branch: refs/heads/main');
    const api = `${host.url}/api/v3/repos/owner/plain/git/refs/heads`;
    const deleted = await http(`${api}/main`, { method: 'DELETE', headers: bearer(owner.token) });
    expect(deleted.status).toBe(422);
    expect(JSON.stringify(deleted.json)).toContain('refusing to delete the current branch: refs/heads/main');
    expect((await run('git', ['ls-remote', plain, 'refs/heads/main'])).stdout).toContain('refs/heads/main');
    expect((await http(`${api}/side`, { method: 'DELETE', headers: bearer(owner.token) })).status).toBe(204);
  });

  it('require_pull_request refuses direct pushes except from the allowlist; merges through the API need the required contexts', async () => {
    await protect('main', { require_pull_request: true, push_allowlist: ['allowed'] });
    await tree.git(['checkout', '-q', 'main']);
    await tree.commit('direct', { 'd.txt': 'd\n' });
    const refused = await push(writer, 'main');
    expect(refused.ok).toBe(false);
    expect(refused.output).toContain('changes reach it through pull requests only');
    expect((await push(allowed, 'main')).ok).toBe(true);
    // Required contexts hold the allowlist too, as GitHub's required checks do: a direct push needs a commit that passed.
    await protect('main', { require_pull_request: true, required_status_contexts: ['ci/build'], push_allowlist: ['allowed'] });
    await tree.commit('untested', { 'u.txt': 'u\n' });
    const untested = await push(allowed, 'main');
    expect(untested.ok).toBe(false);
    expect(untested.output).toContain('required status checks are expected: ci/build (missing)');
    await tree.git(['reset', '-q', '--hard', 'HEAD~1']);

    await tree.git(['checkout', '-q', 'topic']);
    const head = await tree.commit('for review', { 'r.txt': 'r\n' });
    await push(writer, 'topic');
    const pull = await http(`${base()}/pulls`, { headers: bearer(writer.token), json: { title: 'Reviewed', head: 'topic', base: 'main' } });
    const merge = () => http(`${base()}/pulls/${pull.json.id}/merge`, { headers: bearer(writer.token), json: { method: 'merge' } });
    expectError(await merge(), 405, 'ci/build (missing)');
    await http(`${base()}/statuses/${head}`, { headers: bearer(writer.token), json: { state: 'failure', context: 'ci/build' } });
    expectError(await merge(), 405, 'ci/build (failure)');
    await http(`${base()}/statuses/${head}`, { headers: bearer(writer.token), json: { state: 'success', context: 'ci/build' } });
    const merged = await merge();
    expect(merged.status).toBe(200);
    expect(await tipOf('main')).toBe(merged.json.sha);
  });
});
