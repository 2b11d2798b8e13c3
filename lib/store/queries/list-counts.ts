import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';

/** What `list_counts` counts: issues and pull requests, per repository and status. */
export type CountedKind = 'issue' | 'pull';

/**
 * The number of issues or pull requests of a repository with one of `statuses` (all when undefined), read from the
 * kept counts (see `countAdded`), so a list's total costs no scan of the list.
 */
export async function keptCount(db: ReadTx, repoId: number, kind: CountedKind, statuses?: readonly string[]): Promise<number> {
  if (!statuses) return (await db.get<{ n: number }>('SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE repo_id = ? AND kind = ?', [repoId, kind]))!.n;
  const list = inList(statuses);
  return (await db.get<{ n: number }>(`SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE repo_id = ? AND kind = ? AND status ${list.sql}`, [repoId, kind, ...list.params]))!.n;
}

/** `keptCount` of several repositories in one query (those with none left out). */
export async function keptCountsOf(db: ReadTx, repoIds: readonly number[], kind: CountedKind, statuses: readonly string[]): Promise<Map<number, number>> {
  const ids = inList(repoIds);
  const list = inList(statuses);
  const rows = await db.all<{ repo_id: number; n: number }>(`SELECT repo_id, SUM(n) AS n FROM list_counts WHERE repo_id ${ids.sql} AND kind = ? AND status ${list.sql} GROUP BY repo_id`, [
    ...ids.params,
    kind,
    ...list.params,
  ]);
  return new Map(rows.map((row) => [row.repo_id, Number(row.n)]));
}

/*
 * The counts are kept by the functions that insert issues and pull requests or change their status, in the same
 * transaction (until schema version 9 SQLite triggers kept them; PostgreSQL has no triggers of that form). They are
 * statements run through `tx.run`, so the write log replays them with the rows. Deleting a repository removes its
 * rows of `list_counts` with it (ON DELETE CASCADE); issues and pull requests are never deleted otherwise.
 */

/** One more issue or pull request of `kind` in `status`. */
export async function countAdded(tx: WriteTx, repoId: number, kind: CountedKind, status: string): Promise<void> {
  await tx.run(
    `INSERT INTO list_counts (repo_id, kind, status, n) VALUES (?, ?, ?, 1)
     ON CONFLICT (repo_id, kind, status) DO UPDATE SET n = list_counts.n + 1`,
    [repoId, kind, status],
  );
}

/** An issue or pull request of `kind` went from status `from` to `to` (nothing when they are the same). */
export async function countMoved(tx: WriteTx, repoId: number, kind: CountedKind, from: string, to: string): Promise<void> {
  if (from === to) return;
  await tx.run('UPDATE list_counts SET n = n - 1 WHERE repo_id = ? AND kind = ? AND status = ?', [repoId, kind, from]);
  await countAdded(tx, repoId, kind, to);
}
