import type { WriteTx, ReadTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import { readableBy } from './readable.js';

/** Stars and watches: one row per (user, repository) while the toggle is on. */
export type ToggleTable = 'stars' | 'watches';

/** Turns the toggle on or off; the caller read it the other way in the same write. */
export async function setToggle(tx: WriteTx, table: ToggleTable, userId: number, repoId: number, on: boolean, now: string): Promise<void> {
  if (on) await tx.run(`INSERT INTO ${table} (user_id, repo_id, created_at) VALUES (?, ?, ?)`, [userId, repoId, now]);
  else await tx.run(`DELETE FROM ${table} WHERE user_id = ? AND repo_id = ?`, [userId, repoId]);
}

export async function countToggles(db: ReadTx, table: ToggleTable, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE repo_id = ?`, [repoId]))!.n;
}

/** How many accounts turned the toggle on, of each of several repositories (those with none left out), in one query. */
export async function countTogglesOf(db: ReadTx, table: ToggleTable, repoIds: readonly number[]): Promise<Map<number, number>> {
  const ids = inList(repoIds);
  const rows = await db.all<{ repo_id: number; n: number }>(`SELECT repo_id, COUNT(*) AS n FROM ${table} WHERE repo_id ${ids.sql} GROUP BY repo_id`, ids.params);
  return new Map(rows.map((row) => [row.repo_id, Number(row.n)]));
}

/** When the account turned the toggle on; undefined while it is off. */
export async function toggledAt(db: ReadTx, table: ToggleTable, userId: number, repoId: number): Promise<string | undefined> {
  return (await db.get<{ created_at: string }>(`SELECT created_at FROM ${table} WHERE user_id = ? AND repo_id = ?`, [userId, repoId]))?.created_at;
}

export async function isToggled(db: ReadTx, table: ToggleTable, userId: number, repoId: number): Promise<boolean> {
  return await db.get(`SELECT 1 AS found FROM ${table} WHERE user_id = ? AND repo_id = ?`, [userId, repoId]) !== undefined;
}

/** The accounts whose toggle of the repository is on, first to turn it on first, with when they did. */
export async function togglersOf(db: ReadTx, table: ToggleTable, repoId: number, page: PageWindow): Promise<Array<{ username: string; toggled_at: string }>> {
  return await db.all(`SELECT u.username, t.created_at AS toggled_at FROM ${table} t JOIN users u ON u.id = t.user_id WHERE t.repo_id = ? ORDER BY t.created_at, t.user_id LIMIT ? OFFSET ?`, [
    repoId,
    page.limit,
    page.offset,
  ]);
}

/** Whose repositories `viewerId` may read among those joined as `r`. */
const READABLE = readableBy('?');

/**
 * The repositories the account's toggle is on for that `viewerId` may read, with when it was turned on, by that time
 * (`created`) or the repository's last change (`updated`); with how many there are.
 */
export async function toggledBy(
  db: ReadTx,
  table: ToggleTable,
  userId: number,
  viewerId: number | undefined,
  order: { sort: 'created' | 'updated'; direction: 'asc' | 'desc' },
  page: PageWindow,
): Promise<{ rows: Array<{ repo_id: number; toggled_at: string }>; total: number }> {
  const where = `t.user_id = ? AND ${READABLE}`;
  const params = [userId, viewerId ?? 0, viewerId ?? 0];
  const key = order.sort === 'created' ? 't.created_at' : 'r.updated_at';
  const direction = order.direction === 'asc' ? 'ASC' : 'DESC';
  const rows = await db.all<{ repo_id: number; toggled_at: string }>(
    `SELECT t.repo_id, t.created_at AS toggled_at FROM ${table} t JOIN repositories r ON r.id = t.repo_id WHERE ${where} ORDER BY ${key} ${direction}, t.repo_id ${direction} LIMIT ? OFFSET ?`,
    [...params, page.limit, page.offset],
  );
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} t JOIN repositories r ON r.id = t.repo_id WHERE ${where}`, params))!.n;
  return { rows, total };
}
