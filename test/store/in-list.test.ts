import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../lib/store/database.js';
import { IN_LIST_CHUNK, inChunks, inList } from '../../lib/store/queries/in-list.js';
import { openPullsTouching, insertPull } from '../../lib/store/queries/pulls.js';
import { insertRepository } from '../../lib/store/queries/repositories.js';
import { insertUser } from '../../lib/store/queries/users.js';
import { tempDir } from '../helpers/host.js';

describe('IN lists in portable SQL (issue 18)', () => {
  it('rounds the placeholders up to a few sizes, repeating the last value', () => {
    expect(inList(['a'])).toEqual({ sql: 'IN (?)', params: ['a'] });
    expect(inList(['a', 'b', 'c'])).toEqual({ sql: 'IN (?, ?, ?, ?)', params: ['a', 'b', 'c', 'c'] });
    const sizes = new Set<number>();
    for (let length = 1; length <= 3 * IN_LIST_CHUNK; length++) {
      const { sql, params } = inList(Array.from({ length }, (_, n) => n));
      expect(params.length).toBeGreaterThanOrEqual(length);
      expect(sql.split('?').length - 1).toBe(params.length);
      sizes.add(params.length);
    }
    // Powers of two up to the chunk, then multiples of it: a bounded set of statements to prepare and cache.
    expect([...sizes]).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 3072]);
  });

  it('gives an empty list as IN (NULL), which matches nothing, and no chunks', () => {
    expect(inList([])).toEqual({ sql: 'IN (NULL)', params: [] });
    expect(inChunks([])).toEqual([]);
    expect(inChunks(Array.from({ length: 2 * IN_LIST_CHUNK + 1 }, (_, n) => n)).map((chunk) => chunk.length)).toEqual([IN_LIST_CHUNK, IN_LIST_CHUNK, 1]);
  });

  describe('on a database', () => {
    let dir: { path: string; cleanup: () => Promise<void> };
    let store: Store;
    beforeEach(async () => {
      dir = await tempDir('repohost-in-list-');
      store = await Store.open(join(dir.path, 'lists.db'), { snapshotThresholdBytes: 1 << 30, ephemeral: true });
    });
    afterEach(async () => {
      await store.close();
      await dir.cleanup();
    });

    it('matches nothing with an empty list', async () => {
      const { sql, params } = inList([]);
      expect(await store.all(`SELECT 1 AS one FROM (SELECT 'a' AS value UNION ALL SELECT NULL AS value) AS v WHERE value ${sql}`, params)).toEqual([]);
    });

    it('finds the open pull requests a push of thousands of branches touches, each once, by number', async () => {
      const now = '2026-01-01T00:00:00.000Z';
      const branches = Array.from({ length: 3 * IN_LIST_CHUNK }, (_, n) => `branch-${n}`);
      const repoId = await store.write(async (tx) => {
        const user = await insertUser(tx, { username: 'alice', email: 'alice@example.com', fullName: '', passwordHash: 'x', isAdmin: false, now });
        const id = await insertRepository(tx, { ownerId: user.id, name: 'many', description: '', isPrivate: false, defaultBranch: 'main', now });
        // Head in the first chunk and base in the last; head and base in the same chunk; untouched; touched twice.
        const pulls: Array<[number, string, string]> = [
          [4, 'branch-1', `branch-${3 * IN_LIST_CHUNK - 1}`],
          [2, 'branch-2000', 'main'],
          [3, 'other', 'main'],
          [1, 'main', 'branch-5'],
        ];
        for (const [number, head, base] of pulls) {
          await insertPull(tx, { repoId: id, number, authorId: user.id, title: `#${number}`, description: '', head, base, headSha: '', baseSha: '', now });
        }
        return id;
      });
      expect((await openPullsTouching(store, repoId, branches)).map((pull) => pull.number)).toEqual([1, 2, 4]);
      expect((await openPullsTouching(store, repoId, ['main'])).map((pull) => pull.number)).toEqual([1, 2, 3]);
      expect(await openPullsTouching(store, repoId, [])).toEqual([]);
    });
  });
});
