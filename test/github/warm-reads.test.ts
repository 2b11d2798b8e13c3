import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { processesLaunched } from '../../lib/git/launcher/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { git, pushTwoBranches, remoteUrl } from '../helpers/git-cli.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

// Issue 23: a warm branch or contents read through /api/v3 is answered from memory (commits, folders and small blobs
// kept by id; refs from the ref cache), running no git at all; what a push brings is read once, then kept too. Keys
// carry the repository's identity, so a repository made again under the same name answers its own objects.

describe('warm git-backed reads of /api/v3', () => {
  let host: RepoHost;
  let alice: TestUser;
  let branches: { main: string; feature: string };

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'warm');
    branches = await pushTwoBranches(host, 'alice', alice.token, 'warm');
    await host.idle();
  });

  afterAll(async () => {
    await host?.close();
  });

  const get = async (path: string) => {
    const answer = await http(`${host.url}/api/v3/repos/alice/warm${path}`, { headers: bearer(alice.token) });
    expect(answer.status, path).toBe(200);
    return answer.json;
  };

  it('runs no git for a branch, a file or a folder once they were read', async () => {
    const paths = ['/branches/main', '/branches/feature', '/contents/README.md', '/contents/', '/contents/feature.txt?ref=feature', '/readme', `/git/commits/${branches.main}`];
    const first = [];
    for (const path of paths) first.push(await get(path));
    await host.idle();
    const before = processesLaunched();
    for (let round = 0; round < 3; round++) for (const [index, path] of paths.entries()) expect(await get(path)).toEqual(first[index]);
    expect(processesLaunched() - before).toBe(0);
    expect(first[0].commit.sha).toBe(branches.main);
    expect(Buffer.from(first[2].content, 'base64').toString('utf8')).toBe('# warm\n');
  });

  // Issue 39: the repository's home page and a file's page, warm, are served from what is kept by commit and object
  // id too (a small file's LFS pointer check included), so they cost no process either.
  it('runs no git for the repository page or a file page once they were shown', async () => {
    const pages = ['/alice/warm', '/alice/warm/src/branch/main/README.md', '/alice/warm/src/branch/feature/feature.txt'];
    const first = [];
    for (const page of pages) {
      const shown = await http(`${host.url}${page}`, { headers: { ...bearer(alice.token), accept: 'text/html' } });
      expect(shown.status, page).toBe(200);
      first.push(shown.text);
    }
    await host.idle();
    const before = processesLaunched();
    for (let round = 0; round < 3; round++) {
      for (const [index, page] of pages.entries()) expect((await http(`${host.url}${page}`, { headers: { ...bearer(alice.token), accept: 'text/html' } })).text).toBe(first[index]);
    }
    expect(processesLaunched() - before).toBe(0);
    expect(first[1]).toContain('warm');
  });

  it('follows a push, and a repository made again under the same name is read afresh', async () => {
    const work = await tempDir('repohost-warm-');
    try {
      const remote = remoteUrl(host, 'alice', alice.token, 'warm');
      await git(work.path, ['clone', '-q', remote, 'copy'], work.path);
      const copy = `${work.path}/copy`;
      await git(copy, ['-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '-q', '--allow-empty', '-m', 'Next'], work.path);
      await git(copy, ['push', '-q', 'origin', 'main'], work.path);
      const tip = await git(copy, ['rev-parse', 'HEAD'], work.path);
      expect((await get('/branches/main')).commit.sha).toBe(tip);
      expect((await get(`/git/commits/${tip}`)).sha).toBe(tip);
      // Deleted and made again: same name, a history without that commit, which is no longer found.
      expect((await http(`${host.url}/api/v3/repos/alice/warm`, { method: 'DELETE', headers: bearer(alice.token) })).status).toBe(204);
      await newRepo(host, alice, 'warm');
      const again = await pushTwoBranches(host, 'alice', alice.token, 'warm');
      expect((await http(`${host.url}/api/v3/repos/alice/warm/git/commits/${tip}`, { headers: bearer(alice.token) })).status).toBe(404);
      expect((await get('/branches/main')).commit.sha).toBe(again.main);
    } finally {
      await work.cleanup();
    }
  });

  it('never shows on the pages a commit of a private repository deleted or renamed away, for the public one made under its name', async () => {
    const bob = await newUser(host, 'bob');
    const secretCommit = async (name: string) => {
      await newRepo(host, bob, name, 'private');
      const written = await http(`${host.url}/api/v3/repos/bob/${name}/contents/passwords.txt`, { method: 'PUT', headers: bearer(bob.token), json: { message: `Secret of ${name}`, content: Buffer.from('hunter2').toString('base64') } });
      const sha = written.json.commit.sha as string;
      // The owner's visit keeps the commit page's reads.
      const seen = await http(`${host.url}/bob/${name}/commit/${sha}`, { headers: bearer(bob.token) });
      expect(seen.status).toBe(200);
      expect(seen.text).toContain(`Secret of ${name}`);
      return sha;
    };
    const deleted = await secretCommit('deleted');
    expect((await http(`${host.url}/api/v3/repos/bob/deleted`, { method: 'DELETE', headers: bearer(bob.token) })).status).toBe(204);
    await newRepo(host, bob, 'deleted', 'public');
    const moved = await secretCommit('moved');
    expect((await http(`${host.url}/api/v3/repos/bob/moved`, { method: 'PATCH', headers: bearer(bob.token), json: { name: 'moved-away' } })).status).toBe(200);
    await newRepo(host, bob, 'moved', 'public');
    for (const [name, sha] of [['deleted', deleted], ['moved', moved]] as const) {
      const shown = await http(`${host.url}/bob/${name}/commit/${sha}`);
      expect(shown.status, name).toBe(404);
      expect(shown.text).not.toContain(`Secret of ${name}`);
    }
  });

  it('never answers a deleted private repository\'s objects for the next one made, even with the clock stopped', async () => {
    // A stopped clock (a harness's) makes the next repository's creation time the deleted one's (its id, never: issue 38).
    const stopped = new Date('2030-01-01T00:00:00Z');
    const frozen = await startHost({ now: () => stopped });
    try {
      const owner = await newUser(frozen, 'owner');
      const secret = await newRepo(frozen, owner, 'secret', 'private');
      const written = await http(`${frozen.url}/api/v3/repos/owner/secret/contents/passwords.txt`, { method: 'PUT', headers: bearer(owner.token), json: { message: 'A secret commit', content: Buffer.from('hunter2').toString('base64') } });
      const sha = written.json.commit.sha as string;
      expect((await http(`${frozen.url}/api/v3/repos/owner/secret/git/commits/${sha}`, { headers: bearer(owner.token) })).json.message).toBe('A secret commit');
      expect((await http(`${frozen.url}/api/v3/repos/owner/secret`, { method: 'DELETE', headers: bearer(owner.token) })).status).toBe(204);
      const open = await newRepo(frozen, owner, 'open', 'public');
      expect(open.id).toBeGreaterThan(secret.id);
      expect((await http(`${frozen.url}/api/v3/repos/owner/open/git/commits/${sha}`)).status).toBe(404);
      expect((await http(`${frozen.url}/api/v3/repos/owner/open/contents/passwords.txt?ref=${sha}`)).status).toBe(404);
    } finally {
      await frozen.close();
    }
  });
});
