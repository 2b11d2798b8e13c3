import type { WriteTx, ReadTx } from '../interface.js';

/** Stars and watches: one row per (user, repository) while the toggle is on. */
export type ToggleTable = 'stars' | 'watches';

/** Flips the toggle and returns whether it is now on. */
export async function flipToggle(tx: WriteTx, table: ToggleTable, userId: number, repoId: number, now: string): Promise<boolean> {
  const removed = (await tx.run(`DELETE FROM ${table} WHERE user_id = ? AND repo_id = ?`, [userId, repoId])).changes;
  if (removed > 0) return false;
  await tx.run(`INSERT INTO ${table} (user_id, repo_id, created_at) VALUES (?, ?, ?)`, [userId, repoId, now]);
  return true;
}

export async function countToggles(db: ReadTx, table: ToggleTable, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE repo_id = ?`, [repoId]))!.n;
}

export async function isToggled(db: ReadTx, table: ToggleTable, userId: number, repoId: number): Promise<boolean> {
  return await db.get(`SELECT 1 AS found FROM ${table} WHERE user_id = ? AND repo_id = ?`, [userId, repoId]) !== undefined;
}
