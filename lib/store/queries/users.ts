import type { ReadTx, WriteTx } from '../database.js';
import { inList } from './in-list.js';

export interface UserRow {
  id: number;
  username: string;
  email: string;
  full_name: string;
  password_hash: string;
  is_admin: number;
  avatar_file: string | null;
  created_at: string;
}

const COLUMNS = 'id, username, email, full_name, password_hash, is_admin, avatar_file, created_at';

export function userById(db: ReadTx, id: number): UserRow | undefined {
  return db.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = ?`, [id]);
}

/** The accounts with these names (regardless of case), by lower-cased name: one query for a page's authors. */
export function usersByNames(db: ReadTx, usernames: readonly string[]): Map<string, UserRow> {
  const list = inList([...new Set(usernames.map((name) => name.toLowerCase()))]);
  const users = new Map<string, UserRow>();
  for (const user of db.all<UserRow>(`SELECT ${COLUMNS} FROM users WHERE username_lower ${list.sql}`, list.params)) users.set(user.username.toLowerCase(), user);
  return users;
}

/** Usernames are unique regardless of case. */
export function userByName(db: ReadTx, username: string): UserRow | undefined {
  return db.get<UserRow>(`SELECT ${COLUMNS} FROM users WHERE username_lower = ?`, [username.toLowerCase()]);
}

/** True once any account exists (a host without one has no repositories either). */
export function hasUsers(db: ReadTx): boolean {
  return db.get('SELECT 1 AS one FROM users LIMIT 1') !== undefined;
}

export function listUsers(db: ReadTx): UserRow[] {
  return db.all<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY id`);
}

export function insertUser(
  tx: WriteTx,
  user: { username: string; email: string; fullName: string; passwordHash: string; isAdmin: boolean; now: string },
): UserRow {
  return tx.run<UserRow>(
    `INSERT INTO users (username, username_lower, email, full_name, password_hash, is_admin, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [user.username, user.username.toLowerCase(), user.email, user.fullName, user.passwordHash, user.isAdmin ? 1 : 0, user.now],
  ).rows[0]!;
}

export function setPasswordHash(tx: WriteTx, userId: number, passwordHash: string): void {
  tx.run('UPDATE users SET password_hash = ? WHERE id = ?', [passwordHash, userId]);
}

export function setAvatarFile(tx: WriteTx, userId: number, avatarFile: string): void {
  tx.run('UPDATE users SET avatar_file = ? WHERE id = ?', [avatarFile, userId]);
}
