import type { ReadTx } from '../database.js';

/**
 * The number of issues or pull requests of a repository with one of `statuses` (all when undefined), read from the
 * counts that triggers keep (migration 4), so a list's total costs no scan of the list.
 */
export function keptCount(db: ReadTx, repoId: number, kind: 'issue' | 'pull', statuses?: readonly string[]): number {
  const row = statuses
    ? db.get<{ n: number }>('SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE repo_id = ? AND kind = ? AND status IN (SELECT value FROM json_each(?))', [
        repoId,
        kind,
        JSON.stringify(statuses),
      ])
    : db.get<{ n: number }>('SELECT COALESCE(SUM(n), 0) AS n FROM list_counts WHERE repo_id = ? AND kind = ?', [repoId, kind]);
  return row!.n;
}
