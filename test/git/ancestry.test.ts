import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAncestor, tipsContaining } from '../../lib/git/ancestry.js';
import { tempDir } from '../helpers/host.js';
import { WorkTree } from './fixtures.js';

/** lib/git/ancestry.ts against a real repository: which tips hold a commit, checked pair by pair with git's own answer. */
describe('tips containing a commit', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let gitDir: string;
  const commits: Record<string, string> = {};

  beforeAll(async () => {
    dir = await tempDir();
    const work = await WorkTree.init(join(dir.path, 'work'));
    gitDir = join(dir.path, 'work', '.git');
    // root - a - b (main) - merge (main), c on a side branch from a, d on a branch from root, merged into main.
    commits.root = await work.commit('root', { 'r.txt': 'r' });
    commits.a = await work.commit('a', { 'a.txt': 'a' });
    await work.git(['checkout', '-q', '-b', 'side']);
    commits.c = await work.commit('c', { 'c.txt': 'c' });
    await work.git(['checkout', '-q', 'main']);
    commits.b = await work.commit('b', { 'b.txt': 'b' });
    await work.git(['checkout', '-q', '-b', 'other', commits.root]);
    commits.d = await work.commit('d', { 'd.txt': 'd' });
    await work.git(['checkout', '-q', 'main']);
    await work.git(['merge', '-q', '--no-ff', '-m', 'merge', 'other']);
    commits.merge = await work.git(['rev-parse', 'HEAD'], { sameTime: true });
  });
  afterAll(() => dir.cleanup());

  it('finds exactly the tips that descend from the commit (it included), in one walk', async () => {
    const tips = Object.values(commits);
    for (const [name, commit] of Object.entries(commits)) {
      const found = await tipsContaining(gitDir, commit, tips);
      const expected = new Set<string>();
      for (const tip of tips) if (await isAncestor(gitDir, commit, tip)) expected.add(tip);
      expect([...found].sort(), name).toEqual([...expected].sort());
    }
    expect(await tipsContaining(gitDir, commits.d!, [commits.c!, commits.b!])).toEqual(new Set());
    expect(await tipsContaining(gitDir, commits.a!, [])).toEqual(new Set());
  });

  it('leaves out a tip git does not have (a pruned commit of a deleted branch), not failing', async () => {
    const gone = 'f'.repeat(40);
    expect(await tipsContaining(gitDir, commits.a!, [gone, commits.b!, commits.c!])).toEqual(new Set([commits.b!, commits.c!]));
  });
});
