import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';

// Assignees of issues and pull requests, by their number (one numbering per repository for both).

/** The assignees (usernames, in the order they were assigned) of several numbers of a repository, in one query. */
export async function assigneesOf(db: ReadTx, repoId: number, numbers: readonly number[]): Promise<Map<number, string[]>> {
  const byNumber = new Map<number, string[]>();
  if (numbers.length === 0) return byNumber;
  const list = inList([...new Set(numbers)]);
  const rows = await db.all<{ number: number; username: string }>(
    `SELECT a.number, u.username FROM assignees a JOIN users u ON u.id = a.user_id WHERE a.repo_id = ? AND a.number ${list.sql} ORDER BY a.created_at, u.username`,
    [repoId, ...list.params],
  );
  for (const row of rows) byNumber.set(row.number, [...(byNumber.get(row.number) ?? []), row.username]);
  return byNumber;
}

export async function assign(tx: WriteTx, repoId: number, number: number, userId: number, now: string): Promise<boolean> {
  return (await tx.run('INSERT INTO assignees (repo_id, number, user_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (repo_id, number, user_id) DO NOTHING', [repoId, number, userId, now])).changes > 0;
}

export async function unassign(tx: WriteTx, repoId: number, number: number, userId: number): Promise<boolean> {
  return (await tx.run('DELETE FROM assignees WHERE repo_id = ? AND number = ? AND user_id = ?', [repoId, number, userId])).changes > 0;
}

/** Who may be assigned in a repository: its owner, then its collaborators, by name. */
export async function assignableUsernames(db: ReadTx, repoId: number): Promise<string[]> {
  const rows = await db.all<{ username: string }>(
    `SELECT u.username FROM repositories r JOIN users u ON u.id = r.owner_id WHERE r.id = ?
      UNION ALL SELECT u.username FROM collaborators c JOIN users u ON u.id = c.user_id WHERE c.repo_id = ?`,
    [repoId, repoId],
  );
  return rows.map((row) => row.username);
}
