import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMPTY_TREE_ID, readDiff, type ChangedFile } from '../../lib/git/diff.js';
import { tempDir } from '../helpers/host.js';
import { sh, WorkTree } from './fixtures.js';

/** lib/git/diff.ts `readDiff`: windows of a real diff, read as git writes it, are the same as the whole read. */
describe('reading a window of a diff', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let gitDir: string;
  let before: string;
  let after: string;

  beforeAll(async () => {
    dir = await tempDir('repohost-diff-window-');
    const tree = await WorkTree.init(join(dir.path, 'work'));
    const files: Record<string, string> = { 'gone.txt': 'bye\n', 'old-name.txt': 'same content, moved\n'.repeat(20), 'bin.dat': 'a\0b' };
    for (let i = 0; i < 40; i += 1) files[`f${String(i).padStart(2, '0')}.txt`] = `file ${i}\nline two\n`;
    before = await tree.commit('Before', files);
    const changes: Record<string, string | null> = { 'gone.txt': null, 'old-name.txt': null, 'new-name.txt': 'same content, moved\n'.repeat(20), 'bin.dat': 'a\0c' };
    for (let i = 0; i < 40; i += 1) changes[`f${String(i).padStart(2, '0')}.txt`] = `file ${i} changed\nline two\n${'added\n'.repeat(i)}`;
    // 300 KiB of new lines: over the 256 KiB a patch may have.
    changes['huge.txt'] = 'a line of the huge file, long enough to count\n'.repeat(7000);
    after = await tree.commit('After', changes);
    gitDir = join(dir.path, 'work', '.git');
  });

  afterAll(async () => {
    await dir?.cleanup();
  });

  it('reads every file with its status, counts and patch; a patch over the bound is left out but counted', async () => {
    const whole = await readDiff(gitDir, before, after);
    expect(whole.total).toBe(44);
    expect(whole.truncated).toBe(false);
    expect(whole.files.map((file) => file.filename)).toEqual((await sh(gitDir, ['diff', '-M', '--name-only', before, after])).split('\n'));
    const byName = Object.fromEntries(whole.files.map((file) => [file.filename, file])) as Record<string, ChangedFile>;
    expect(byName['f05.txt']).toMatchObject({ status: 'modified', additions: 6, deletions: 1, changes: 7, patch: expect.stringMatching(/^@@ -1,2 \+1,7 @@\n-file 5\n\+file 5 changed\n line two\n(\+added\n){4}\+added$/) });
    expect(byName['new-name.txt']).toMatchObject({ status: 'renamed', previous_filename: 'old-name.txt', additions: 0, deletions: 0 });
    expect(byName['new-name.txt']!.patch).toBeUndefined();
    expect(byName['gone.txt']).toMatchObject({ status: 'deleted', deletions: 1 });
    expect(byName['bin.dat']).toMatchObject({ status: 'modified', additions: 0, deletions: 0 });
    expect(byName['bin.dat']!.patch).toBeUndefined();
    expect(byName['huge.txt']).toMatchObject({ status: 'added', additions: 7000, deletions: 0, patch_omitted: true });
    expect(byName['huge.txt']!.patch).toBeUndefined();
    // The numbers git itself counts.
    for (const line of (await sh(gitDir, ['diff', '-M', '--numstat', before, after])).split('\n')) {
      const [added, removed, name] = line.split('\t');
      const file = whole.files.find((candidate) => candidate.filename === (name!.includes('=>') ? 'new-name.txt' : name));
      expect([file?.additions, file?.deletions], name).toEqual(added === '-' ? [0, 0] : [Number(added), Number(removed)]);
    }
  });

  it('gives any window the same files as the whole read, and the total of all', async () => {
    const whole = await readDiff(gitDir, before, after);
    for (const [skip, maxFiles] of [[0, 1], [0, 10], [7, 5], [40, 10], [43, 1], [44, 3], [100, 5]] as const) {
      const window = await readDiff(gitDir, before, after, { skip, maxFiles });
      expect(window.total, `${skip}+${maxFiles}`).toBe(44);
      expect(window.files, `${skip}+${maxFiles}`).toEqual(whole.files.slice(skip, skip + maxFiles));
    }
    expect((await readDiff(gitDir, before, after, { maxFiles: 0 })).files).toEqual([]);
  });

  it('keeps patches within the budget, in order, and lists the rest with their counts', async () => {
    const whole = await readDiff(gitDir, before, after);
    const budgeted = await readDiff(gitDir, before, after, { budget: { bytes: 1_000_000, lines: 100 } });
    let lines = 0;
    budgeted.files.forEach((file, index) => {
      const full = whole.files[index]!;
      expect({ ...file, patch: undefined, patch_omitted: undefined }).toEqual({ ...full, patch: undefined, patch_omitted: undefined });
      if (file.patch !== undefined) {
        expect(file.patch).toBe(full.patch);
        lines += file.patch.split('\n').length;
      } else if (full.patch !== undefined) expect(file.patch_omitted).toBe(true);
    });
    expect(lines).toBeLessThanOrEqual(100);
    expect(budgeted.files.filter((file) => file.patch !== undefined).length).toBeGreaterThan(3);
    expect(budgeted.files.filter((file) => file.patch_omitted).length).toBeGreaterThan(20);
  });

  it('counts a line of megabytes (a minified file) without holding it, and reads on after it', async () => {
    const tree = new WorkTree(join(dir.path, 'work'));
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const minified = await tree.commit('Minified', { 'a-min.js': `${huge}\n${huge}\nshort\n`, 'b.txt': 'after\n' });
    const diff = await readDiff(gitDir, after, minified);
    // Each file names its blob whole (`--no-abbrev`), as `git rev-parse` does.
    const blob = (path: string) => sh(dir.path, ['--git-dir', gitDir, 'rev-parse', `${minified}:${path}`]);
    expect(diff.files).toEqual([
      { filename: 'a-min.js', status: 'added', additions: 3, deletions: 0, changes: 3, previous_filename: null, blob: await blob('a-min.js'), patch_omitted: true },
      { filename: 'b.txt', status: 'added', additions: 1, deletions: 0, changes: 1, previous_filename: null, blob: await blob('b.txt'), patch: '@@ -0,0 +1 @@\n+after' },
    ]);
  });

  it('compares a root commit with the empty tree, and fails on what is not a commit', async () => {
    const root = await readDiff(gitDir, EMPTY_TREE_ID, before, { direct: true });
    expect(root.total).toBe(43);
    expect(root.files.every((file) => file.status === 'added')).toBe(true);
    await expect(readDiff(gitDir, before, 'f'.repeat(40))).rejects.toThrow(/git diff/);
  });

  it('hides changes of white space alone: such a file has an empty patch, and every other file keeps its own, whatever the names', async () => {
    const tree = await WorkTree.init(join(dir.path, 'spaces'));
    // Names git quotes in its patch headers, around a file whose changes are all white space.
    const names = ['a "quoted" name.txt', 'b\tand a tab.txt', 'c.txt', 'd\\back.txt'];
    const base = await tree.commit('Base', Object.fromEntries(names.map((name) => [name, 'one\ntwo\n'])));
    const head = await tree.commit('Head', { [names[0]!]: 'one\nTWO\n', [names[1]!]: '  one\n  two\n', [names[2]!]: 'one\ntwo\nthree\n', [names[3]!]: 'one  \ntwo\n' });
    const gitDirOf = join(dir.path, 'spaces', '.git');
    const read = await readDiff(gitDirOf, base, head, { ignoreWhitespace: true });
    const byName = Object.fromEntries(read.files.map((file) => [file.filename, file.patch])) as Record<string, string | undefined>;
    expect(byName).toEqual({
      [names[0]!]: expect.stringContaining('+TWO'),
      [names[1]!]: '',
      [names[2]!]: expect.stringContaining('+three'),
      [names[3]!]: '',
    });
    // Without it, every file has its patch.
    expect((await readDiff(gitDirOf, base, head)).files.every((file) => (file.patch ?? '').length > 0)).toBe(true);
  });
});
