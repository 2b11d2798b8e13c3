import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { pushTwoBranches } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 21: a renamed repository's old URLs redirect (pages, both APIs with 301, or 307 for writes, and git clone and
// fetch) until the name is taken again; a private repository's old name stays a 404 for those who may not see it.

const run = promisify(execFile);

describe('renamed repositories', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;
  let octokit: Octokit;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
    await newRepo(host, alice, 'old');
    await pushTwoBranches(host, 'alice', alice.token, 'old');
    await newRepo(host, alice, 'hidden', 'private');
    octokit = new Octokit({ baseUrl: `${host.url}/api/v3`, auth: alice.token });
    await octokit.repos.update({ owner: 'alice', repo: 'old', name: 'new' });
    await octokit.repos.update({ owner: 'alice', repo: 'hidden', name: 'secret' });
  });

  afterAll(async () => {
    await host?.close();
  });

  it('redirects pages and both APIs from the old name, keeping the rest of the path and the query', async () => {
    const page = await http(`${host.url}/alice/old/src/branch/main/README.md?display=source`);
    expect([page.status, page.headers.location]).toEqual([301, '/alice/new/src/branch/main/README.md?display=source']);
    const v1 = await http(`${host.url}/api/v1/repos/alice/old/branches`, { headers: bearer(alice.token) });
    expect([v1.status, v1.headers.location]).toEqual([301, '/api/v1/repos/alice/new/branches']);
    const v3 = await http(`${host.url}/api/v3/repos/alice/OLD`, { headers: bearer(alice.token) });
    expect(v3.status).toBe(301);
    expect(v3.headers.location).toBe(`${host.url}/api/v3/repos/alice/new`);
    expect(v3.json).toMatchObject({ message: 'Moved Permanently', url: `${host.url}/api/v3/repos/alice/new` });
    // A write keeps its method: 307.
    const write = await http(`${host.url}/api/v3/repos/alice/old/issues`, { headers: bearer(alice.token), json: { title: 'Lost?' } });
    expect(write.status).toBe(307);
    // Octokit follows it, as it follows GitHub's.
    expect((await octokit.repos.get({ owner: 'alice', repo: 'old' })).data.full_name).toBe('alice/new');
    expect((await octokit.issues.create({ owner: 'alice', repo: 'old', title: 'Through the old name' })).data.title).toBe('Through the old name');
  });

  it('lets git clone and fetch through the old name', async () => {
    const work = await tempDir('repohost-moved-');
    try {
      const url = new URL(`${host.url}/alice/old.git`);
      url.username = 'alice';
      url.password = alice.token;
      const cloned = await run('git', ['clone', url.toString(), join(work.path, 'copy')], { env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' } });
      expect(cloned.stderr).toContain('redirecting to');
      expect((await run('git', ['-C', join(work.path, 'copy'), 'log', '--format=%s', '-1'])).stdout.trim()).toBe('Initial commit');
    } finally {
      await work.cleanup();
    }
  });

  it('never tells those who may not see a private repository where it went', async () => {
    expect((await http(`${host.url}/alice/hidden`, { headers: bearer(bob.token) })).status).toBe(404);
    expect((await http(`${host.url}/api/v3/repos/alice/hidden`, { headers: bearer(bob.token) })).status).toBe(404);
    expect((await http(`${host.url}/alice/hidden.git/info/refs?service=git-upload-pack`, { headers: bearer(bob.token) })).status).toBe(404);
    expect((await http(`${host.url}/alice/hidden`, { headers: bearer(alice.token) })).headers.location).toBe('/alice/secret');
  });

  it('stops redirecting once the name is taken again', async () => {
    await newRepo(host, alice, 'old');
    const page = await http(`${host.url}/api/v3/repos/alice/old`, { headers: bearer(alice.token) });
    expect(page.status).toBe(200);
    expect(page.json.full_name).toBe('alice/old');
    expect((await http(`${host.url}/api/v3/repos/alice/new`, { headers: bearer(alice.token) })).json.full_name).toBe('alice/new');
  });
});
