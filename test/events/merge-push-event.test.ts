import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushEvent, RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { Clone } from '../helpers/clone.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

/**
 * A merge through the API moves its base like a push, so it is a `push` event. The host describes the commits of that
 * move while git merges instead of asking git afterwards: each method's event must list exactly what `git log` lists
 * for the same range on a fresh fetch (ids, trees, messages, identities, times, files).
 */
describe('the push event of a merge through the API', () => {
  let host: RepoHost;
  let owner: TestUser;
  let work: Awaited<ReturnType<typeof tempDir>>;

  beforeAll(async () => {
    host = await startHost();
    owner = await newUser(host, 'merger');
    work = await tempDir();
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  /** What git itself says of `after ^before`: the newest 20, oldest first, with the files each one changed. */
  async function gitLog(clone: Clone, before: string, after: string) {
    await clone.git('fetch', '-q', 'origin', '+refs/heads/*:refs/remotes/origin/*');
    const out = await clone.git('log', '--max-count=20', '--no-renames', '--name-status', '-z', '--format=%x1e%H%x00%T%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00', after, `^${before}`);
    return out
      .split('\x1e')
      .filter(Boolean)
      .map((record) => {
        const [id, tree, an, ae, ad, cn, ce, , message, ...files] = record.split('\0');
        const paths = (letter: string) => files.flatMap((field, at) => (field.trim() === letter && at + 1 < files.length ? [files[at + 1]] : []));
        return { id, tree_id: tree, message: message!.replace(/\n+$/, ''), timestamp: ad, author: { name: an, email: ae }, committer: { name: cn, email: ce }, added: paths('A'), removed: paths('D'), modified: paths('M') };
      })
      .reverse();
  }

  it.each(['merge', 'squash', 'rebase', 'fast-forward'] as const)('%s: lists what git log lists for the range', async (method) => {
    const name = `moved-${method}`;
    await newRepo(host, owner, name);
    const clone = await Clone.of(host, owner, name, join(work.path, name), work.path);
    await clone.commit('base', { 'README.md': '# base\n', 'gone.txt': 'soon removed\n', 'kept.txt': 'one\n' });
    await clone.git('push', '-q', 'origin', 'main');
    await clone.git('checkout', '-q', '-b', 'topic');
    await clone.commit('add a file', { 'docs/new.md': 'new\n' });
    await clone.commit('change and remove', { 'kept.txt': 'two\n', 'gone.txt': null });
    if (method !== 'fast-forward') {
      // Base moves on too, so merge, squash and rebase make new commits.
      await clone.git('checkout', '-q', 'main');
      await clone.commit('base moves on', { 'other.txt': 'x\n' });
      await clone.git('push', '-q', 'origin', 'main');
    }
    await clone.git('push', '-q', 'origin', 'topic');
    const before = await clone.git('rev-parse', 'main');
    const pull = await http(`${host.url}/api/v1/repos/merger/${name}/pulls`, { headers: bearer(owner.token), json: { title: `topic by ${method}`, head: 'topic', base: 'main' } });
    expect(pull.status).toBe(200);

    const pushed = host.events.waitFor('push', (event: PushEvent) => event.ref === 'refs/heads/main' && event.before === before, { timeoutMs: 10_000 });
    const merged = await http(`${host.url}/api/v1/repos/merger/${name}/pulls/${pull.json.id}/merge`, { headers: bearer(owner.token), json: { method } });
    expect(merged.status).toBe(200);
    const event = await pushed;
    expect(event).toMatchObject({ after: merged.json.sha, forced: false, created: false, deleted: false });

    const expected = await gitLog(clone, before, merged.json.sha);
    expect(expected.length).toBe(method === 'merge' ? 3 : method === 'squash' ? 1 : 2);
    const listed = event.commits.map(({ id, tree_id, message, timestamp, author, committer, added, removed, modified }) => ({
      id,
      tree_id,
      message,
      timestamp,
      author: { name: author.name, email: author.email },
      committer: { name: committer.name, email: committer.email },
      added,
      removed,
      modified,
    }));
    expect(listed).toEqual(expected);
    expect(event.head_commit?.id).toBe(merged.json.sha);
  });
});
