import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { git, pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

const run = promisify(execFile);

type Role = 'anonymous' | 'owner' | 'read' | 'write' | 'admin' | 'stranger';
const ROLES: readonly Role[] = ['anonymous', 'owner', 'read', 'write', 'admin', 'stranger'];
const RANK = { none: 0, read: 1, write: 2, admin: 3 } as const;

/** What each role may do: the rule of issue 8, written out independently of the code under test. */
function expectedLevel(role: Role, visibility: 'public' | 'private'): keyof typeof RANK {
  if (role === 'owner' || role === 'admin') return 'admin';
  if (role === 'write') return 'write';
  if (role === 'read') return 'read';
  return visibility === 'public' ? 'read' : 'none';
}

/** Expected status of an action that needs `needed` for a role with `level`: 404 hides, 401 asks, 403 refuses. */
function expectedStatus(role: Role, level: keyof typeof RANK, needed: keyof typeof RANK, ok: number): number {
  if (RANK[level] >= RANK[needed]) return ok;
  if (level === 'none') return role === 'anonymous' && needed !== 'read' ? 401 : 404;
  return role === 'anonymous' ? 401 : 403;
}

describe('one permission check for API and git: {anonymous, owner, read, write, admin, stranger} x {public, private}', () => {
  let host: RepoHost;
  const users = {} as Record<Exclude<Role, 'anonymous'>, TestUser>;
  let home: { path: string; cleanup: () => Promise<void> };
  /** The owner's pull request in each repository, for edits by others. */
  const pulls = {} as Record<'public' | 'private', number>;

  beforeAll(async () => {
    host = await startHost();
    home = await tempDir('repohost-perm-');
    const names = { owner: 'olivia', read: 'reader', write: 'writer', admin: 'adminuser', stranger: 'stranger' } as const;
    for (const [role, name] of Object.entries(names)) users[role as keyof typeof names] = await newUser(host, name);
    for (const visibility of ['public', 'private'] as const) {
      await newRepo(host, users.owner, visibility, visibility);
      await pushTwoBranches(host, 'olivia', users.owner.token, visibility);
      const pull = await http(`${host.url}/api/v1/repos/olivia/${visibility}/pulls`, { headers: bearer(users.owner.token), json: { title: 'Feature', head: 'feature', base: 'main' } });
      expect(pull.status).toBe(200);
      pulls[visibility] = pull.json.id;
      for (const role of ['read', 'write', 'admin'] as const) {
        const granted = await http(`${host.url}/api/v1/repos/olivia/${visibility}/collaborators/${users[role].username}`, {
          method: 'PUT',
          headers: bearer(users.owner.token),
          json: { permission: role },
        });
        expect(granted.status).toBe(200);
        expect(granted.json).toMatchObject({ username: users[role].username, permission: role });
      }
    }
  });

  afterAll(async () => {
    await host?.close();
    await home?.cleanup();
  });

  const headersOf = (role: Role) => (role === 'anonymous' ? {} : bearer(users[role].token));

  for (const visibility of ['public', 'private'] as const) {
    for (const role of ROLES) {
      const level = expectedLevel(role, visibility);
      it(`${role} on a ${visibility} repository: API answers as '${level}' allows`, async () => {
        const base = `${host.url}/api/v1/repos/olivia/${visibility}`;
        const headers = headersOf(role);
        // read: the repository, its issues, and the owner's list of repositories
        const summary = await http(base, { headers });
        expect(summary.status).toBe(expectedStatus(role, level, 'read', 200));
        if (summary.status === 200) {
          expect(summary.json.permissions).toEqual({ admin: level === 'admin', push: RANK[level] >= 2, pull: true });
        }
        expect((await http(`${base}/issues`, { headers })).status).toBe(expectedStatus(role, level, 'read', 200));
        // pages follow the same check (a page never challenges: 404 for what the viewer cannot read)
        const page = await http(`${host.url}/olivia/${visibility}`, { headers: { ...headers, accept: 'text/html' } });
        expect(page.status).toBe(level === 'none' ? 404 : 200);
        const listed = await http(`${host.url}/api/v1/users/olivia/repos`, { headers });
        expect(listed.json.some((repo: { name: string }) => repo.name === visibility)).toBe(level !== 'none');
        // write: labels are managed with write access
        const label = await http(`${base}/labels`, { headers, json: { name: `l-${role}`, color: '00ff00' } });
        expect(label.status).toBe(expectedStatus(role, level, 'write', 200));
        // write: others' pull requests are edited, closed and reopened with write access
        const edit = await http(`${base}/pulls/${pulls[visibility]}`, { method: 'PATCH', headers, json: { title: `Edited by ${role}`, status: 'closed' } });
        expect(edit.status).toBe(expectedStatus(role, level, 'write', 200));
        if (edit.status === 200) {
          expect(edit.json).toMatchObject({ title: `Edited by ${role}`, status: 'closed' });
          expect((await http(`${base}/pulls/${pulls[visibility]}`, { method: 'PATCH', headers, json: { status: 'open' } })).json.status).toBe('open');
        }
        // admin: settings, webhooks and branch protection
        expect((await http(base, { method: 'PATCH', headers, json: { description: `set by ${role}` } })).status).toBe(expectedStatus(role, level, 'admin', 200));
        expect((await http(`${base}/hooks`, { headers })).status).toBe(expectedStatus(role, level, 'admin', 200));
        const protect = await http(`${base}/branch_protections/feature`, { method: 'PUT', headers, json: { required_status_contexts: [] } });
        expect(protect.status).toBe(expectedStatus(role, level, 'admin', 200));
        if (protect.status === 200) expect((await http(`${base}/branch_protections/feature`, { method: 'DELETE', headers })).status).toBe(204);
        // admin: collaborators change only with admin access
        const grant = await http(`${base}/collaborators/stranger`, { method: 'PUT', headers, json: { permission: 'read' } });
        const expectedGrant = expectedStatus(role, level, 'admin', 200);
        expect(grant.status).toBe(expectedGrant);
        if (grant.status === 200) {
          expect((await http(`${base}/collaborators/stranger`, { method: 'DELETE', headers })).status).toBe(204);
        }
      });

      it(`${role} on a ${visibility} repository: git clone and push answer as '${level}' allows`, async () => {
        const dir = join(home.path, `${visibility}-${role}`);
        const remote = new URL(`${host.url}/olivia/${visibility}.git`);
        if (role !== 'anonymous') {
          remote.username = users[role].username;
          remote.password = users[role].token;
        }
        const clone = await run('git', ['clone', '-q', remote.toString(), dir], { env: gitEnv(home.path) }).then(
          () => 'ok',
          (error: { stderr: string }) => error.stderr,
        );
        if (RANK[level] < 1) {
          expect(clone).toMatch(role === 'anonymous' ? /Authentication failed|could not read Username/ : /not found/i);
          return;
        }
        expect(clone).toBe('ok');
        await writeFile(join(dir, `${role}.txt`), role);
        await git(dir, ['add', '.'], home.path);
        await git(dir, ['commit', '-q', '-m', `by ${role}`], home.path);
        const push = await run('git', ['push', '-q', 'origin', 'HEAD:main'], { cwd: dir, env: gitEnv(home.path) }).then(
          () => 'ok',
          (error: { stderr: string }) => error.stderr,
        );
        if (RANK[level] >= 2) expect(push).toBe('ok');
        else if (role === 'anonymous') expect(push).toMatch(/Authentication failed|could not read Username/);
        else expect(push).toMatch(/403|Permission denied/);
      });
    }
  }

  it('refuses bad collaborator requests: unknown user 404, bad permission 400, the owner 400, unknown collaborator 404', async () => {
    const base = `${host.url}/api/v1/repos/olivia/public/collaborators`;
    const headers = bearer(users.owner.token);
    expect((await http(`${base}/nobody`, { method: 'PUT', headers, json: { permission: 'read' } })).status).toBe(404);
    expect((await http(`${base}/stranger`, { method: 'PUT', headers, json: { permission: 'owner' } })).json).toEqual({
      success: false,
      message: "permission must be 'read', 'write' or 'admin'",
    });
    expect((await http(`${base}/olivia`, { method: 'PUT', headers, json: { permission: 'read' } })).status).toBe(400);
    expect((await http(`${base}/stranger`, { method: 'DELETE', headers })).status).toBe(404);
    const list = await http(base, { headers });
    expect(list.status).toBe(200);
    expect(list.json.map((c: { username: string; permission: string }) => `${c.username}:${c.permission}`)).toEqual(['adminuser:admin', 'reader:read', 'writer:write']);
    expect(list.headers['x-total-count']).toBe('3');
  });

  it('removing a collaborator takes their access away on the next request', async () => {
    const base = `${host.url}/api/v1/repos/olivia/private`;
    const temp = await newUser(host, 'temporary');
    const headers = bearer(users.owner.token);
    await http(`${base}/collaborators/temporary`, { method: 'PUT', headers, json: { permission: 'read' } });
    expect((await http(base, { headers: bearer(temp.token) })).status).toBe(200);
    expect((await http(`${base}/collaborators/temporary`, { method: 'DELETE', headers })).status).toBe(204);
    expect((await http(base, { headers: bearer(temp.token) })).status).toBe(404);
  });
});

function gitEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@example.com',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@example.com',
    LANG: 'C',
  };
}
