import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitTree, GitObjectError, readBlob, readCommit, readTag, readTree, writeBlob, writeTree } from '../../lib/git/objects.js';
import { importCommits } from '../../lib/git/history-import.js';
import { deleteRef, RefMovedError, updateRef } from '../../lib/git/ref-writes.js';
import { buildTree } from '../../lib/git/tree-builder.js';
import { runGit } from '../../lib/git/run-git.js';
import { tempDir } from '../helpers/host.js';
import { sh } from './fixtures.js';

/** The plumbing of lib/git/objects.ts against a real bare repository, checked with git's own porcelain. */
describe('git object plumbing', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let gitDir: string;
  const alice = { name: 'Alice', email: 'alice@example.com', date: '2024-01-02T03:04:05Z' };
  const bob = { name: 'Bob', email: 'bob@example.com', date: '1700000000 +0200' };

  beforeAll(async () => {
    dir = await tempDir();
    gitDir = join(dir.path, 'repo.git');
    await runGit(['init', '--bare', '--quiet', gitDir]);
  });
  afterAll(() => dir.cleanup());

  it('writes and reads blobs byte for byte', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13, 10]);
    const id = await writeBlob(gitDir, bytes);
    // The id git defines for a blob: sha1 of "blob <size>\0<bytes>".
    expect(id).toBe(createHash('sha1').update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes])).digest('hex'));
    expect(await readBlob(gitDir, id)).toEqual(bytes);
    expect(await writeBlob(gitDir, 'hello\n')).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(await readBlob(gitDir, '0'.repeat(40))).toBeUndefined();
    await expect(readBlob(gitDir, 'HEAD')).rejects.toBeInstanceOf(GitObjectError);
  });

  it('builds nested trees from a base, with deletions, modes and empty folders removed', async () => {
    const first = await buildTree(gitDir, undefined, {
      'README.md': { content: 'hello\n' },
      'src/a.js': { content: 'a\n' },
      'src/lib/deep/b.js': { content: 'b\n' },
      'bin/run': { content: '#!/bin/sh\n', mode: '100755' },
    });
    const listing = await readTree(gitDir, first, { recursive: true });
    expect(listing!.map((entry) => `${entry.mode} ${entry.type} ${entry.path}`)).toEqual([
      '100644 blob README.md',
      '040000 tree bin',
      '100755 blob bin/run',
      '040000 tree src',
      '100644 blob src/a.js',
      '040000 tree src/lib',
      '040000 tree src/lib/deep',
      '100644 blob src/lib/deep/b.js',
    ]);
    expect(listing!.find((entry) => entry.path === 'README.md')!.size).toBe(6);

    // Changed content keeps the executable bit; deleting the only file of a folder removes the folder.
    const second = await buildTree(gitDir, first, new Map([
      ['bin/run', { content: '#!/bin/sh\nexit 0\n' }],
      ['src/lib/deep/b.js', null],
      ['docs/guide.md', { content: 'guide\n' }],
      ['missing/file', null],
    ]));
    const paths = (await readTree(gitDir, second, { recursive: true }))!.map((entry) => `${entry.mode} ${entry.path}`);
    expect(paths).toEqual(['100644 README.md', '040000 bin', '100755 bin/run', '040000 docs', '100644 docs/guide.md', '040000 src', '100644 src/a.js']);
    // The untouched sub-tree is reused, not rewritten.
    const srcBefore = (await readTree(gitDir, first))!.find((entry) => entry.path === 'src')!.id;
    const third = await buildTree(gitDir, second, { 'README.md': { content: 'changed\n' } });
    expect((await readTree(gitDir, third))!.find((entry) => entry.path === 'README.md')!.id).toBe(await writeBlob(gitDir, 'changed\n'));
    expect(await sh(dir.path, ['--git-dir', gitDir, 'rev-parse', `${third}:src/a.js`])).toBe(await writeBlob(gitDir, 'a\n'));
    expect((await readTree(gitDir, `${first}:src`))!.map((entry) => entry.path)).toEqual(['a.js', 'lib']);
    // An existing object by id: a folder grafted under a new name.
    const grafted = await buildTree(gitDir, third, { copy: { id: srcBefore, mode: '040000' } });
    expect(await sh(dir.path, ['--git-dir', gitDir, 'rev-parse', `${grafted}:copy/lib/deep/b.js`])).toBe(await writeBlob(gitDir, 'b\n'));
    // Everything deleted: the empty tree.
    expect(await buildTree(gitDir, first, { 'README.md': null, bin: null, src: null })).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
  });

  it('refuses bad paths, modes and files used as folders', async () => {
    const base = await buildTree(gitDir, undefined, { file: { content: 'x' } });
    for (const path of ['', '/abs', 'a//b', 'a/../b', '.git/config', 'a/.GIT/x', 'trailing/']) {
      await expect(buildTree(gitDir, base, { [path]: { content: 'x' } }), path).rejects.toBeInstanceOf(GitObjectError);
    }
    await expect(buildTree(gitDir, base, { 'file/inner': { content: 'x' } })).rejects.toThrow(/file is a file, not a folder/);
    await expect(buildTree(gitDir, base, { a: { content: 'x', mode: '040000' } })).rejects.toBeInstanceOf(GitObjectError);
    await expect(buildTree(gitDir, base, { a: { content: 'x', mode: '100600' } })).rejects.toThrow(/unsupported file mode/);
    await expect(buildTree(gitDir, base, { a: { id: '1'.repeat(40) } })).rejects.toBeInstanceOf(GitObjectError);
    await expect(writeTree(gitDir, [{ mode: '100644', id: await writeBlob(gitDir, 'x'), path: 'a/b' }])).rejects.toBeInstanceOf(GitObjectError);
    expect(await readTree(gitDir, '1'.repeat(40))).toBeUndefined();
  });

  it('commits with exact parents, identities and dates, and reads them back', async () => {
    const tree = await buildTree(gitDir, undefined, { 'a.txt': { content: 'a\n' } });
    const root = await commitTree(gitDir, { tree, parents: [], message: 'Root\n\nBody line\n', author: alice, committer: bob });
    // Deterministic: the same input is the same commit id.
    expect(await commitTree(gitDir, { tree, parents: [], message: 'Root\n\nBody line\n', author: alice, committer: bob })).toBe(root);
    expect(await sh(dir.path, ['--git-dir', gitDir, 'show', '-s', '--format=%an|%ae|%aI|%cn|%ce|%cI|%s', root])).toBe(
      'Alice|alice@example.com|2024-01-02T03:04:05+00:00|Bob|bob@example.com|2023-11-15T00:13:20+02:00|Root',
    );
    const child = await commitTree(gitDir, { tree, parents: [root], message: 'Child', author: alice });
    const read = await readCommit(gitDir, child);
    expect(read).toMatchObject({ tree, parents: [root], message: 'Child', author: { ...alice, date: '1704164645 +0000', iso: '2024-01-02T03:04:05Z' } });
    expect((await readCommit(gitDir, root))!.committer).toEqual({ ...bob, iso: '2023-11-14T22:13:20Z' });
    expect(await readCommit(gitDir, tree)).toBeUndefined();
    // An annotated tag made by git itself, read back.
    await sh(dir.path, ['--git-dir', gitDir, 'tag', '-a', '-m', 'Release one', 'v1', root], { GIT_COMMITTER_DATE: '1700000000 +0000' });
    const tagId = await sh(dir.path, ['--git-dir', gitDir, 'rev-parse', 'refs/tags/v1']);
    expect(await readTag(gitDir, tagId)).toEqual({
      id: tagId,
      object: root,
      type: 'commit',
      tag: 'v1',
      tagger: { name: 'Test', email: 'test@example.com', date: '1700000000 +0000', iso: '2023-11-14T22:13:20Z' },
      message: 'Release one\n',
    });
    expect(await readTag(gitDir, root)).toBeUndefined();
    await expect(commitTree(gitDir, { tree, parents: ['nope'], message: 'x', author: alice })).rejects.toBeInstanceOf(GitObjectError);
    await expect(commitTree(gitDir, { tree, parents: [], message: 'x', author: { ...alice, date: 'yesterday-ish' } })).rejects.toThrow(/not a date/);
  });

  it('imports a series of commits in one run with the very ids buildTree and commitTree give', async () => {
    const odd = 'dir with space/"quoted"\\ ünï\ncode.txt';
    const first = new Map([['a.txt', { content: 'a\n' }], ['bin/x', { content: 'x', mode: '100755' }], [odd, { content: Buffer.from([0, 255]) }]] as const);
    // New content for bin/x keeps its executable bit in both.
    const second = new Map<string, { content: string } | null>([['a.txt', null], ['deep/er/b.txt', { content: 'b\n' }], ['bin/x', { content: 'y' }]]);
    const refsBefore = await sh(dir.path, ['--git-dir', gitDir, 'for-each-ref']);
    const [root, child, other] = await importCommits(gitDir, [
      { message: 'root\n\nbody', author: alice, committer: bob, changes: first },
      { parent: 0, message: 'child', author: bob, changes: second },
      { message: 'another root', author: alice, changes: new Map() },
    ]);
    // Built object by object instead: the same trees and commits.
    const rootTree = await buildTree(gitDir, undefined, first);
    expect(root).toBe(await commitTree(gitDir, { tree: rootTree, parents: [], message: 'root\n\nbody', author: alice, committer: bob }));
    expect(child).toBe(await commitTree(gitDir, { tree: await buildTree(gitDir, rootTree, second), parents: [root!], message: 'child', author: bob }));
    expect(other).toBe(await commitTree(gitDir, { tree: await writeTree(gitDir, []), parents: [], message: 'another root', author: alice }));
    expect(await readBlob(gitDir, await sh(dir.path, ['--git-dir', gitDir, 'rev-parse', `${root}:${odd}`]))).toEqual(Buffer.from([0, 255]));
    // A parent given by id; no ref was left behind or moved.
    const [grandchild] = await importCommits(gitDir, [{ parent: child, message: 'more', author: alice, changes: new Map([['bin/x', { content: 'z' }]]) }]);
    expect((await readCommit(gitDir, grandchild!))!.parents).toEqual([child]);
    expect(grandchild).toBe(await commitTree(gitDir, { tree: await buildTree(gitDir, (await readCommit(gitDir, child!))!.tree, { 'bin/x': { content: 'z' } }), parents: [child!], message: 'more', author: alice }));
    expect(await sh(dir.path, ['--git-dir', gitDir, 'for-each-ref'])).toBe(refsBefore);
    await expect(importCommits(gitDir, [{ parent: 0, message: 'x', author: alice, changes: new Map() }])).rejects.toThrow('its parent must come before it');
    await expect(importCommits(gitDir, [{ message: 'x', author: alice, changes: new Map([['../x', null]]) }])).rejects.toBeInstanceOf(GitObjectError);
  });

  it('moves refs only from the expected value', async () => {
    const tree = await buildTree(gitDir, undefined, { 'r.txt': { content: 'r\n' } });
    const one = await commitTree(gitDir, { tree, parents: [], message: 'one', author: alice });
    const two = await commitTree(gitDir, { tree, parents: [one], message: 'two', author: alice });
    const ref = 'refs/heads/guarded';
    await updateRef(gitDir, ref, one, null);
    await expect(updateRef(gitDir, ref, two, null)).rejects.toBeInstanceOf(RefMovedError);
    await expect(updateRef(gitDir, ref, two, two)).rejects.toBeInstanceOf(RefMovedError);
    await updateRef(gitDir, ref, two, one);
    expect(await sh(dir.path, ['--git-dir', gitDir, 'rev-parse', ref])).toBe(two);
    await expect(deleteRef(gitDir, ref, one)).rejects.toBeInstanceOf(RefMovedError);
    await deleteRef(gitDir, ref, two);
    await expect(sh(dir.path, ['--git-dir', gitDir, 'rev-parse', '--verify', '-q', ref])).rejects.toThrow();
    await expect(updateRef(gitDir, 'HEAD', one, undefined)).rejects.toBeInstanceOf(GitObjectError);
    await expect(updateRef(gitDir, 'refs/heads/a..b', one, undefined)).rejects.toBeInstanceOf(GitObjectError);
  });
});
