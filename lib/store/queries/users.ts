import type { ReadTx, WriteTx } from '../interface.js';
import { inChunks, inList } from './in-list.js';

export interface UserRow {
  id: number;
  username: string;
  email: string;
  full_name: string;
  password_hash: string;
  is_admin: number;
  avatar_file: string | null;
  created_at: string;
  /** 1 once the address was confirmed (admin CLI, fixtures): commits by it are the account's. */
  email_verified: number;
}

/** The columns of a `UserRow`. */
export const USER_COLUMNS = 'id, username, email, full_name, password_hash, is_admin, avatar_file, created_at, email_verified';

export async function userById(db: ReadTx, id: number): Promise<UserRow | undefined> {
  return await db.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [id]);
}

/** The accounts with these names (regardless of case), by lower-cased name: one query for a page's authors. */
export async function usersByNames(db: ReadTx, usernames: readonly string[]): Promise<Map<string, UserRow>> {
  const users = new Map<string, UserRow>();
  // No names, no round trip (a page without assignees or milestones, a text without mentions).
  if (usernames.length === 0) return users;
  const list = inList([...new Set(usernames.map((name) => name.toLowerCase()))]);
  for (const user of await db.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username_lower ${list.sql}`, list.params)) users.set(user.username.toLowerCase(), user);
  return users;
}

/**
 * The accounts commits by these addresses are, by lower-cased address (GitHub links commits by verified addresses):
 * an account's confirmed address, or the host's no-reply address of it (`<username>@<noreplyDomain>`, which the host's
 * own commits use). One query for each kind present, none for no address.
 */
export async function accountsOfAddresses(db: ReadTx, emails: readonly string[], noreplyDomain: string): Promise<Map<string, UserRow>> {
  const addresses = [...new Set(emails.map((email) => email.toLowerCase()))];
  const suffix = `@${noreplyDomain.toLowerCase()}`;
  const isNoreply = (email: string) => noreplyDomain !== '' && email.endsWith(suffix);
  const accounts = new Map<string, UserRow>();
  // In slices: a history's authors (the contributors) may be tens of thousands of addresses.
  for (const chunk of inChunks(addresses.filter(isNoreply))) {
    const named = await usersByNames(db, chunk.map((email) => email.slice(0, -suffix.length)));
    for (const email of chunk) {
      const user = named.get(email.slice(0, -suffix.length));
      if (user) accounts.set(email, user);
    }
  }
  for (const chunk of inChunks(addresses.filter((email) => !isNoreply(email)))) {
    const list = inList(chunk);
    // Newest first, so that should two accounts confirm one address, the older keeps its commits.
    const verified = await db.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) ${list.sql} AND email_verified = 1 ORDER BY id DESC`, list.params);
    for (const user of verified) accounts.set(user.email.toLowerCase(), user);
  }
  return accounts;
}

export async function setEmailVerified(tx: WriteTx, userId: number): Promise<void> {
  await tx.run('UPDATE users SET email_verified = 1 WHERE id = ?', [userId]);
}

/** The accounts with these ids, by id: one query. */
export async function usersByIds(db: ReadTx, ids: readonly number[]): Promise<Map<number, UserRow>> {
  if (ids.length === 0) return new Map();
  const list = inList([...new Set(ids)]);
  return new Map((await db.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id ${list.sql}`, list.params)).map((user) => [user.id, user]));
}

/** Usernames are unique regardless of case. */
export async function userByName(db: ReadTx, username: string): Promise<UserRow | undefined> {
  return await db.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username_lower = ?`, [username.toLowerCase()]);
}

/** True once any account exists (a host without one has no repositories either). */
export async function hasUsers(db: ReadTx): Promise<boolean> {
  return await db.get('SELECT 1 AS one FROM users LIMIT 1') !== undefined;
}

export async function listUsers(db: ReadTx): Promise<UserRow[]> {
  return await db.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`);
}

export async function insertUser(
  tx: WriteTx,
  user: { username: string; email: string; fullName: string; passwordHash: string; isAdmin: boolean; now: string },
): Promise<UserRow> {
  return (await tx.run<UserRow>(
    `INSERT INTO users (username, username_lower, email, full_name, password_hash, is_admin, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${USER_COLUMNS}`,
    [user.username, user.username.toLowerCase(), user.email, user.fullName, user.passwordHash, user.isAdmin ? 1 : 0, user.now],
  )).rows[0]!;
}

export async function setPasswordHash(tx: WriteTx, userId: number, passwordHash: string): Promise<void> {
  await tx.run('UPDATE users SET password_hash = ? WHERE id = ?', [passwordHash, userId]);
}

export async function setAvatarFile(tx: WriteTx, userId: number, avatarFile: string): Promise<void> {
  await tx.run('UPDATE users SET avatar_file = ? WHERE id = ?', [avatarFile, userId]);
}
