import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';

// Assignees of issues and pull requests, by their number (one numbering per repository for both).

/** The assignees (usernames, in the order they were assigned) of several numbers of a repository, in one query. */
export async function assigneesOf(db: ReadTx, repoId: number, numbers: readonly number[]): Promise<Map<number, string[]>> {
  const byNumber = new Map<number, string[]>();
  if (numbers.length === 0) return byNumber;
  // The assignments first, from one table: most pages have none, and on sql.js that probe costs a fifth of the join
  // with the users sorted by the database (~4 µs against ~20 µs for a page of 30).
  const list = inList([...new Set(numbers)]);
  const rows = await db.all<{ number: number; user_id: number; created_at: string }>(`SELECT number, user_id, created_at FROM assignees WHERE repo_id = ? AND number ${list.sql}`, [
    repoId,
    ...list.params,
  ]);
  if (rows.length === 0) return byNumber;
  const users = inList([...new Set(rows.map((row) => row.user_id))]);
  const names = new Map((await db.all<{ id: number; username: string }>(`SELECT id, username FROM users WHERE id ${users.sql}`, users.params)).map((user) => [user.id, user.username]));
  // In the order they were assigned, names breaking ties in code unit order (usernames are ASCII): the same on every
  // engine, as SQLite's BINARY collation sorts them (PostgreSQL's would follow its locale).
  const assigned = rows.map((row) => ({ number: row.number, at: row.created_at, username: names.get(row.user_id)! }));
  assigned.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
  for (const row of assigned) byNumber.set(row.number, [...(byNumber.get(row.number) ?? []), row.username]);
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
