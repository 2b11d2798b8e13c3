import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { expectError, newRepo, newUser, type TestUser } from '../helpers/api.js';
import { Clone } from '../helpers/clone.js';
import { bearer, http, startHost, tempDir } from '../helpers/host.js';

const run = promisify(execFile);

describe('pull requests that merge (issue 8)', () => {
  let host: RepoHost;
  let owner: TestUser;
  let writer: TestUser;
  let reader: TestUser;
  let work: { path: string; cleanup: () => Promise<void> };
  let counter = 0;

  /** A fresh repository with `main` (two files) and `topic` branching from it; returns the clone. */
  async function repository(): Promise<{ name: string; clone: Clone; url: string }> {
    counter += 1;
    const name = `repo${counter}`;
    await newRepo(host, owner, name);
    for (const [user, permission] of [[writer, 'write'], [reader, 'read']] as const) {
      await http(`${host.url}/api/v1/repos/owner/${name}/collaborators/${user.username}`, { method: 'PUT', headers: bearer(owner.token), json: { permission } });
    }
    const clone = await Clone.of(host, owner, name, join(work.path, name), work.path);
    await clone.commit('Initial', { 'README.md': '# readme\n', 'src/keep.txt': 'line 1\nline 2\nline 3\n', 'old-name.txt': 'renamed content\n'.repeat(20), 'gone.txt': 'bye\n' });
    await clone.git('push', '-q', 'origin', 'main');
    return { name, clone, url: `${host.url}/api/v1/repos/owner/${name}` };
  }

  async function openPull(url: string, head = 'topic', base = 'main', who = owner) {
    const result = await http(`${url}/pulls`, { headers: bearer(who.token), json: { title: `Merge ${head}`, description: 'Please', head, base } });
    expect(result.status).toBe(200);
    return result.json as { id: number; number: number; head_sha: string; base_sha: string };
  }

  /** The history of `branch` on a fresh clone: `sha parents subject` per commit, newest first. */
  async function freshHistory(name: string, branch = 'main'): Promise<Array<{ sha: string; parents: string[]; subject: string; tree: string; author: string; committer: string }>> {
    counter += 1;
    const dir = join(work.path, `fresh-${counter}`);
    const remote = new URL(`${host.url}/owner/${name}.git`);
    await run('git', ['clone', '-q', '--branch', branch, remote.toString(), dir], { env: { PATH: process.env.PATH ?? '', HOME: work.path, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' } });
    const { stdout } = await run('git', ['log', '--format=%H%x00%P%x00%s%x00%T%x00%an <%ae>%x00%cn <%ce>'], { cwd: dir });
    return stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [sha, parents, subject, tree, author, committer] = line.split('\0');
        return { sha: sha!, parents: parents ? parents.split(' ') : [], subject: subject!, tree: tree!, author: author!, committer: committer! };
      });
  }

  beforeAll(async () => {
    host = await startHost();
    work = await tempDir('repohost-pulls-');
    owner = await newUser(host, 'owner');
    writer = await newUser(host, 'writer');
    reader = await newUser(host, 'reader');
  });

  afterAll(async () => {
    await host?.close();
    await work?.cleanup();
  });

  it('lists the commits and files exactly as git log base..head and git diff base...head, with a rename, a binary file and a deletion', async () => {
    const { clone, url } = await repository();
    await clone.git('checkout', '-q', '-b', 'topic');
    await clone.commit('Rename and edit', { 'old-name.txt': null, 'new-name.txt': 'renamed content\n'.repeat(19) + 'changed\n' });
    await clone.commit('Binary and delete', { 'logo.bin': Buffer.from([0, 1, 2, 3, 255, 0, 7]), 'gone.txt': null });
    await clone.commit('Edit a line', { 'src/keep.txt': 'line 1\nline two\nline 3\nline 4\n' });
    await clone.git('checkout', '-q', 'main');
    await clone.commit('Base moves on', { 'README.md': '# readme\nmore\n' });
    await clone.git('push', '-q', 'origin', 'main', 'topic');
    const pull = await openPull(url);
    expect(pull.head_sha).toBe(await clone.git('rev-parse', 'topic'));
    expect(pull.base_sha).toBe(await clone.git('rev-parse', 'main'));

    const commits = await http(`${url}/pulls/${pull.id}/commits`);
    const gitLog = (await clone.git('log', '--reverse', '--format=%H%x00%s%x00%an%x00%ae', 'main..topic')).split('\n').map((line) => line.split('\0'));
    expect(commits.json.map((c: { sha: string; message: string; author_name: string; author_email: string }) => [c.sha, c.message.trim(), c.author_name, c.author_email])).toEqual(gitLog);
    expect(commits.json[0]).toMatchObject({ committer_name: 'Dev', authored_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    const files = await http(`${url}/pulls/${pull.id}/files`);
    expect(files.status).toBe(200);
    // Every file's line counts as git's numstat gives them ("-" for binary), and every patch as git diff prints it.
    const numstat = (await clone.git('diff', '--numstat', '-M', 'main...topic')).split('\n').map((line) => line.split('\t'));
    expect(files.json.map((f: { filename: string; additions: number; deletions: number }) => [f.filename, f.additions, f.deletions])).toEqual(
      numstat.map(([added, deleted, name]) => [name!.replace(/^old-name\.txt => /, ''), added === '-' ? 0 : Number(added), deleted === '-' ? 0 : Number(deleted)]),
    );
    for (const file of files.json as Array<{ filename: string; previous_filename: string | null; patch?: string }>) {
      if (file.patch === undefined) continue;
      const paths = file.previous_filename ? [file.previous_filename, file.filename] : [file.filename];
      const byGit = await clone.git('diff', '-M', 'main...topic', '--', ...paths);
      expect(byGit.slice(byGit.indexOf('\n@@') + 1)).toBe(file.patch);
    }
    const byName = Object.fromEntries(files.json.map((f: { filename: string }) => [f.filename, f]));
    expect(byName['new-name.txt']).toMatchObject({ status: 'renamed', previous_filename: 'old-name.txt', additions: 1, deletions: 1, changes: 2 });
    expect(byName['logo.bin']).toMatchObject({ status: 'added', additions: 0, deletions: 0 });
    expect(byName['logo.bin'].patch).toBeUndefined();
    expect(byName['gone.txt']).toMatchObject({ status: 'deleted', additions: 0, deletions: 1 });
    expect(byName['src/keep.txt']).toMatchObject({ status: 'modified', additions: 2, deletions: 1, changes: 3 });
    expect(byName['src/keep.txt'].patch).toContain('+line two');
    expect(byName['README.md']).toBeUndefined();

    const diff = await http(`${url}/pulls/${pull.id}.diff`);
    expect(diff.status).toBe(200);
    expect(String(diff.headers['content-type'])).toMatch(/^text\/x-diff/);
    expect(diff.text.trim()).toBe(await clone.git('diff', '-M', 'main...topic'));
    expect(diff.text).toContain('rename from old-name.txt');
    const viaAccept = await http(`${url}/pulls/${pull.id}`, { headers: { accept: 'text/x-diff' } });
    expect(viaAccept.text).toBe(diff.text);
    const patch = await http(`${url}/pulls/${pull.id}.patch`);
    expect(patch.text.match(/^From [0-9a-f]{40} /gm)).toHaveLength(3);
    expect(patch.text).toContain('Subject: [PATCH 1/3] Rename and edit');
  });

  it('pages its commits and files (page, limit, X-Total-Count, Link) and leaves out a patch over the size bound', async () => {
    const { clone, url } = await repository();
    await clone.git('checkout', '-q', '-b', 'topic');
    const many = Object.fromEntries(Array.from({ length: 34 }, (_, i) => [`many/f${String(i).padStart(2, '0')}.txt`, `file ${i}\n`]));
    // 300 KiB of new lines: over the 256 KiB a patch may have.
    await clone.commit('Many files and a big one', { ...many, 'big.txt': 'a line of the big file, long enough to count\n'.repeat(7000) });
    for (let i = 0; i < 34; i++) await clone.commit(`Edit ${i}`, { [`many/f${String(i).padStart(2, '0')}.txt`]: `file ${i} edited\n` });
    await clone.git('push', '-q', 'origin', 'topic');
    const pull = await openPull(url);

    const firstFiles = await http(`${url}/pulls/${pull.id}/files`);
    expect(firstFiles.json).toHaveLength(30);
    expect(firstFiles.headers['x-total-count']).toBe('35');
    expect(String(firstFiles.headers.link)).toContain('rel="next"');
    const allFiles = [...firstFiles.json, ...(await http(`${url}/pulls/${pull.id}/files?page=2`)).json];
    expect(allFiles.map((f: { filename: string }) => f.filename)).toEqual((await clone.git('diff', '--name-only', 'main...topic')).split('\n'));
    const big = allFiles.find((f: { filename: string }) => f.filename === 'big.txt');
    expect(big).toMatchObject({ status: 'added', additions: 7000, deletions: 0, patch_omitted: true });
    expect(big.patch).toBeUndefined();

    const commits = await http(`${url}/pulls/${pull.id}/commits?limit=20&page=2`);
    expect(commits.headers['x-total-count']).toBe('35');
    expect(String(commits.headers.link)).toContain('rel="prev"');
    const gitLog = (await clone.git('log', '--reverse', '--format=%H', 'main..topic')).split('\n');
    expect(commits.json.map((c: { sha: string }) => c.sha)).toEqual(gitLog.slice(20));
  });

  describe('each merge method gives the history git would', () => {
    async function prepared(): Promise<{ name: string; clone: Clone; url: string; base: string; topic: string[] }> {
      const repo = await repository();
      const { clone } = repo;
      await clone.git('checkout', '-q', '-b', 'topic');
      const topic = [await clone.commit('Topic one', { 'a.txt': 'a\n' }), await clone.commit('Topic two', { 'b.txt': 'b\n' })];
      await clone.git('checkout', '-q', 'main');
      const base = await clone.commit('Main moves', { 'c.txt': 'c\n' });
      await clone.git('push', '-q', 'origin', 'main', 'topic');
      return { ...repo, base, topic };
    }

    it('merge: a merge commit with base and head as parents, committed by the merger', async () => {
      const { name, url, base, topic } = await prepared();
      const pull = await openPull(url);
      const merged = await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(writer.token), json: { method: 'merge' } });
      expect(merged.json).toEqual({ success: true, merged: true, sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
      const history = await freshHistory(name);
      const merger = 'writer <writer@users.noreply.repohost>';
      expect(history[0]).toMatchObject({ sha: merged.json.sha, parents: [base, topic[1]], subject: `Merge pull request #${pull.number} from owner/topic`, author: merger, committer: merger });
      expect(history.map((c) => c.sha)).toEqual(expect.arrayContaining([...topic, base]));
      const summary = await http(`${url}/pulls/${pull.id}`);
      expect(summary.json).toMatchObject({ status: 'merged', merged: true, merged_by: 'writer', merge_commit_sha: merged.json.sha, mergeable: null });
      expect(Date.parse(summary.json.merged_at)).not.toBeNaN();
      expectError(await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(writer.token), json: {} }), 405, 'already merged');
    });

    it('squash: one new commit with one parent and the tree of the merge, authored by the pull request author and committed by the merger (GitHub)', async () => {
      const { name, clone, url, base } = await prepared();
      const pull = await openPull(url, 'topic', 'main', writer);
      const merged = await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { method: 'squash', title: 'Squashed topic', message: 'All of it' } });
      expect(merged.status).toBe(200);
      const history = await freshHistory(name);
      expect(history[0]).toMatchObject({
        sha: merged.json.sha,
        parents: [base],
        subject: 'Squashed topic',
        author: 'writer <writer@users.noreply.repohost>',
        committer: 'owner <owner@users.noreply.repohost>',
      });
      await clone.git('fetch', '-q', 'origin');
      expect(await clone.git('ls-tree', '-r', '--name-only', 'origin/main')).toBe(['README.md', 'a.txt', 'b.txt', 'c.txt', 'gone.txt', 'old-name.txt', 'src/keep.txt'].join('\n'));
      // The squashed commits' author (Dev, not the pull request's author) is kept as a co-author trailer, once.
      expect(await clone.git('log', '-1', '--format=%B', 'origin/main')).toBe('Squashed topic\n\nAll of it\n\nCo-authored-by: Dev <dev@example.com>');
      expect(await clone.git('log', '-1', '--format=%(trailers:key=Co-authored-by,valueonly)', 'origin/main')).toBe('Dev <dev@example.com>');
    });

    it('a merge commits the tree found for mergeability, and runs merge-tree again when that tree was pruned', async () => {
      const { name, clone, url, base, topic } = await prepared();
      const serverRepo = join(host.options.dataDir, 'repositories', 'owner', `${name}.git`);
      const inServer = (...args: string[]) => run('git', ['--git-dir', serverRepo, ...args], { env: { PATH: process.env.PATH ?? '', GIT_CONFIG_NOSYSTEM: '1' } });
      // git's own merge of the pair, for the tree both methods must commit.
      const tree = (await clone.git('merge-tree', '--write-tree', 'main', 'topic')).split('\n')[0]!;
      const pull = await openPull(url);
      expect((await http(`${url}/pulls/${pull.id}`)).json.mergeable).toBe(true);
      await host.idle();
      // Computing mergeability wrote the merged tree into the server's repository (unreachable until a merge commits it).
      await inServer('cat-file', '-e', tree);
      await inServer('prune', '--expire=now');
      await expect(inServer('cat-file', '-e', tree)).rejects.toThrow();

      const merged = await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { method: 'merge' } });
      expect(merged.status).toBe(200);
      const history = await freshHistory(name);
      expect(history[0]).toMatchObject({ sha: merged.json.sha, parents: [base, topic[1]], tree });
    });

    it('rebase: the commits replayed on base, same messages and authors, linear', async () => {
      const { name, clone, url, base } = await prepared();
      const pull = await openPull(url);
      const merged = await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { method: 'rebase' } });
      expect(merged.status).toBe(200);
      const history = await freshHistory(name);
      expect(history.slice(0, 3).map((c) => c.subject)).toEqual(['Topic two', 'Topic one', 'Main moves']);
      expect(history[0]!.sha).toBe(merged.json.sha);
      expect(history[1]!.parents).toEqual([base]);
      expect(history[0]!.parents).toEqual([history[1]!.sha]);
      await clone.git('fetch', '-q', 'origin');
      expect(await clone.git('log', '-1', '--format=%an <%ae>', 'origin/main')).toBe('Dev <dev@example.com>');
      expect(await clone.git('log', '-1', '--format=%cn <%ce>', 'origin/main')).toBe('owner <owner@users.noreply.repohost>');
    });

    it('fast-forward: no new commit when base is behind; 405 when it is not', async () => {
      const { name, clone, url } = await repository();
      await clone.git('checkout', '-q', '-b', 'topic');
      const tip = await clone.commit('Ahead', { 'ahead.txt': 'x\n' });
      await clone.git('push', '-q', 'origin', 'topic');
      const pull = await openPull(url);
      const merged = await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { method: 'fast-forward' } });
      expect(merged.json.sha).toBe(tip);
      expect((await freshHistory(name))[0]!.sha).toBe(tip);

      const diverged = await prepared();
      const other = await openPull(diverged.url);
      expectError(await http(`${diverged.url}/pulls/${other.id}/merge`, { headers: bearer(owner.token), json: { method: 'fast-forward' } }), 405, 'fast-forward');
    });

    it('refuses merges without write (403), anonymous (401), unknown methods (400) and a moved head (409)', async () => {
      const { url, clone } = await prepared();
      const pull = await openPull(url);
      expectError(await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(reader.token), json: {} }), 403);
      expectError(await http(`${url}/pulls/${pull.id}/merge`, { json: {} }), 401);
      expectError(await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { method: 'octopus' } }), 400);
      expectError(await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { head_sha: '0'.repeat(40) } }), 409);
      const withSha = await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { head_sha: await clone.git('rev-parse', 'topic'), delete_branch: true } });
      expect(withSha.status).toBe(200);
      const branches = await http(`${url}/branches`);
      expect(branches.json.map((b: { name: string }) => b.name)).toEqual(['main']);
    });
  });

  it('reports a conflicting pull request unmergeable and refuses it with 405, then merges after a push that resolves it', async () => {
    const { clone, url } = await repository();
    await clone.git('checkout', '-q', '-b', 'topic');
    await clone.commit('Topic edits line 2', { 'src/keep.txt': 'line 1\ntopic\nline 3\n' });
    await clone.git('checkout', '-q', 'main');
    await clone.commit('Main edits line 2', { 'src/keep.txt': 'line 1\nmain\nline 3\n' });
    await clone.git('push', '-q', 'origin', 'main', 'topic');
    const pull = await openPull(url);
    expect((await http(`${url}/pulls/${pull.id}`)).json.mergeable).toBe(false);
    expectError(await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: {} }), 405, 'conflict');
    await clone.git('checkout', '-q', 'topic');
    await clone.git('merge', '-q', 'main', '-X', 'ours', '-m', 'Resolve');
    await clone.git('push', '-q', 'origin', 'topic');
    const after = await http(`${url}/pulls/${pull.id}`);
    expect(after.json).toMatchObject({ mergeable: true, head_sha: await clone.git('rev-parse', 'topic') });
    // The pushed commits join the pull request's commit list.
    const commits = await http(`${url}/pulls/${pull.id}/commits`);
    expect(commits.json.map((c: { sha: string }) => c.sha)).toEqual((await clone.git('log', '--reverse', '--topo-order', '--format=%H', 'main..topic')).split('\n'));
    expect((await http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: {} })).status).toBe(200);
  });

  it('a merge racing a push to base: one wins and nothing is lost', async () => {
    for (let round = 0; round < 4; round++) {
      const { name, clone, url } = await repository();
      await clone.git('checkout', '-q', '-b', 'topic');
      const topicTip = await clone.commit(`Topic ${round}`, { [`t${round}.txt`]: 't\n' });
      await clone.git('push', '-q', 'origin', 'topic');
      await clone.git('checkout', '-q', 'main');
      const pushed = await clone.commit(`Pushed ${round}`, { [`p${round}.txt`]: 'p\n' });
      const pull = await openPull(url);
      const [merge, push] = await Promise.all([
        http(`${url}/pulls/${pull.id}/merge`, { headers: bearer(owner.token), json: { method: 'merge' } }),
        clone.git('push', '-q', 'origin', 'main').then(
          () => 'ok',
          (error: { stderr: string }) => error.stderr,
        ),
      ]);
      const history = (await freshHistory(name)).map((c) => c.sha);
      if (merge.status === 200) {
        expect(history).toContain(merge.json.sha);
        expect(history).toContain(topicTip);
        // The push either landed first (then the merge was refused) or was refused as a non-fast-forward.
        if (push === 'ok') throw new Error('both the merge and the push claimed the same base');
        expect(push).toMatch(/rejected|fetch first|non-fast-forward/);
      } else {
        expect(merge.status).toBe(409);
        expect(push).toBe('ok');
        expect(history[0]).toBe(pushed);
      }
    }
  });

  it('marks a pull request merged when its head is merged on the command line and pushed; deleting a head makes it unmergeable', async () => {
    const { clone, url } = await repository();
    await clone.git('checkout', '-q', '-b', 'topic');
    await clone.commit('By hand', { 'hand.txt': 'h\n' });
    await clone.git('checkout', '-q', '-b', 'other', 'main');
    await clone.commit('Other', { 'other.txt': 'o\n' });
    await clone.git('push', '-q', 'origin', 'topic', 'other');
    const pull = await openPull(url);
    const other = await openPull(url, 'other');
    await clone.git('push', '-q', 'origin', '--delete', 'other');
    expect((await http(`${url}/pulls/${other.id}`)).json).toMatchObject({ status: 'open', mergeable: false });
    await clone.git('checkout', '-q', 'main');
    await clone.git('merge', '-q', '--no-ff', 'topic', '-m', 'Merged by hand');
    const mergeSha = await clone.git('rev-parse', 'HEAD');
    await clone.git('push', '-q', 'origin', 'main');
    const summary = await http(`${url}/pulls/${pull.id}`);
    expect(summary.json).toMatchObject({ status: 'merged', merged: true, merge_commit_sha: mergeSha, merged_by: 'owner' });
  });

  it('opens, edits, closes and reopens: 409 for a second open pull request joining the same branches', async () => {
    const { clone, url } = await repository();
    await clone.git('checkout', '-q', '-b', 'topic');
    await clone.commit('T', { 't.txt': 't\n' });
    await clone.git('push', '-q', 'origin', 'topic');
    const pull = await openPull(url, 'topic', 'main', reader);
    expectError(await http(`${url}/pulls`, { headers: bearer(owner.token), json: { title: 'Again', head: 'topic', base: 'main' } }), 409);
    expectError(await http(`${url}/pulls`, { headers: bearer(owner.token), json: { title: 'Nope', head: 'nope', base: 'main' } }), 400);
    const edited = await http(`${url}/pulls/${pull.id}`, { method: 'PATCH', headers: bearer(reader.token), json: { title: 'Better title', status: 'closed' } });
    expect(edited.json).toMatchObject({ title: 'Better title', status: 'closed', mergeable: null });
    const second = await openPull(url);
    expectError(await http(`${url}/pulls/${pull.id}`, { method: 'PATCH', headers: bearer(reader.token), json: { status: 'open' } }), 409);
    expectError(await http(`${url}/pulls/${second.id}`, { method: 'PATCH', headers: bearer(reader.token), json: { title: 'x' } }), 403);
    expectError(await http(`${url}/pulls/${second.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { status: 'merged' } }), 400);
    expect((await http(`${url}/pulls?status=closed`)).json.map((p: { id: number }) => p.id)).toEqual([pull.id]);
    // a new base: it must exist, differ from head, and follow the base branch's commit
    await clone.git('push', '-q', 'origin', 'main:stable');
    const rebased = await http(`${url}/pulls/${second.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { base: 'stable' } });
    expect(rebased.json).toMatchObject({ base: 'stable', base_sha: await clone.git('rev-parse', 'main'), mergeable: true });
    expectError(await http(`${url}/pulls/${second.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { base: 'topic' } }), 400);
    expectError(await http(`${url}/pulls/${second.id}`, { method: 'PATCH', headers: bearer(owner.token), json: { base: 'missing' } }), 400);
    expect((await http(`${url}/pulls?status=all`)).json.map((p: { id: number }) => p.id)).toEqual([second.id, pull.id]);
  });

  it('conversation comments: spec shape kept, editable by the author or a writer', async () => {
    const { clone, url } = await repository();
    await clone.git('checkout', '-q', '-b', 'topic');
    await clone.commit('T', { 't.txt': 't\n' });
    await clone.git('push', '-q', 'origin', 'topic');
    const pull = await openPull(url);
    const comment = await http(`${url}/pulls/${pull.id}/comments`, { headers: bearer(reader.token), json: { text: 'LGTM' } });
    expect(comment.json).toMatchObject({ id: expect.any(Number), author: 'reader', text: 'LGTM' });
    const commentUrl = `${url}/pulls/${pull.id}/comments/${comment.json.id}`;
    expect((await http(commentUrl, { method: 'PATCH', headers: bearer(reader.token), json: { text: 'LGTM!' } })).json.text).toBe('LGTM!');
    expectError(await http(commentUrl, { method: 'PATCH', headers: bearer((await newUser(host, `someone${counter}`)).token), json: { text: 'x' } }), 403);
    expect((await http(`${url}/pulls/${pull.id}`)).json.comments).toBe(1);
    expect((await http(commentUrl, { method: 'DELETE', headers: bearer(writer.token) })).status).toBe(204);
    expect((await http(`${url}/pulls/${pull.id}/comments`)).json).toEqual([]);
  });
});
