import type { ReadTx, WriteTx } from '../interface.js';
import type { PageWindow } from './page-window.js';
import { inList } from './in-list.js';

/** What a collaborator may do; the owner is always `admin` and has no row. */
export type CollaboratorPermission = 'read' | 'write' | 'admin';

export interface CollaboratorRow {
  user_id: number;
  username: string;
  full_name: string;
  avatar_file: string | null;
  permission: CollaboratorPermission;
  created_at: string;
}

const SELECT = `SELECT c.user_id, u.username, u.full_name, u.avatar_file, c.permission, c.created_at
  FROM collaborators c JOIN users u ON u.id = c.user_id`;

export async function collaboratorPermission(db: ReadTx, repoId: number, userId: number): Promise<CollaboratorPermission | undefined> {
  return (await db.get<{ permission: CollaboratorPermission }>('SELECT permission FROM collaborators WHERE repo_id = ? AND user_id = ?', [repoId, userId]))
    ?.permission;
}

/** What the account was granted on each of several repositories, in one query (none asked, none sent). */
export async function collaboratorPermissions(db: ReadTx, userId: number, repoIds: readonly number[]): Promise<Map<number, CollaboratorPermission>> {
  if (repoIds.length === 0) return new Map();
  const ids = inList(repoIds);
  const rows = await db.all<{ repo_id: number; permission: CollaboratorPermission }>(`SELECT repo_id, permission FROM collaborators WHERE user_id = ? AND repo_id ${ids.sql}`, [userId, ...ids.params]);
  return new Map(rows.map((row) => [row.repo_id, row.permission]));
}

export async function collaboratorsOf(db: ReadTx, repoId: number, page: PageWindow): Promise<CollaboratorRow[]> {
  return await db.all<CollaboratorRow>(`${SELECT} WHERE c.repo_id = ? ORDER BY u.username_lower LIMIT ? OFFSET ?`, [repoId, page.limit, page.offset]);
}

/** Which of these accounts (by name, regardless of case) collaborate on the repository, lower-cased: one query. */
export async function collaboratorsAmong(db: ReadTx, repoId: number, usernames: readonly string[]): Promise<Set<string>> {
  if (usernames.length === 0) return new Set();
  const list = inList([...new Set(usernames.map((name) => name.toLowerCase()))]);
  const rows = await db.all<{ name: string }>(`SELECT u.username_lower AS name FROM collaborators c JOIN users u ON u.id = c.user_id WHERE c.repo_id = ? AND u.username_lower ${list.sql}`, [repoId, ...list.params]);
  return new Set(rows.map((row) => row.name));
}

export async function countCollaborators(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM collaborators WHERE repo_id = ?', [repoId]))!.n;
}

export async function upsertCollaborator(tx: WriteTx, repoId: number, userId: number, permission: CollaboratorPermission, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO collaborators (repo_id, user_id, permission, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (repo_id, user_id) DO UPDATE SET permission = excluded.permission`,
    [repoId, userId, permission, now],
  );
}

export async function deleteCollaborator(tx: WriteTx, repoId: number, userId: number): Promise<boolean> {
  return (await tx.run('DELETE FROM collaborators WHERE repo_id = ? AND user_id = ?', [repoId, userId])).changes > 0;
}
