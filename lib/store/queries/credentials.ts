import type { ReadTx, WriteTx } from '../interface.js';
import type { PageWindow } from './page-window.js';
import { USER_COLUMNS, type UserRow } from './users.js';

export interface SessionRow {
  id: number;
  user_id: number;
  token_hash: string;
  expires_at: string;
}

export interface ApiTokenRow {
  id: number;
  user_id: number;
  name: string;
  token_hash: string;
  last_eight: string;
  created_at: string;
}

export async function sessionByHash(db: ReadTx, tokenHash: string): Promise<SessionRow | undefined> {
  return await db.get<SessionRow>('SELECT id, user_id, token_hash, expires_at FROM sessions WHERE token_hash = ?', [tokenHash]);
}

export async function insertSession(tx: WriteTx, session: { userId: number; tokenHash: string; now: string; expiresAt: string }): Promise<void> {
  await tx.run('INSERT INTO sessions (user_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)', [
    session.userId,
    session.tokenHash,
    session.now,
    session.expiresAt,
  ]);
}

/** A user's sessions that have not expired, newest first: the account page lists them. */
export async function sessionsOfUser(db: ReadTx, userId: number, now: string): Promise<Array<SessionRow & { created_at: string }>> {
  return await db.all<SessionRow & { created_at: string }>(
    'SELECT id, user_id, token_hash, created_at, expires_at FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY id DESC LIMIT 100',
    [userId, now],
  );
}

export async function deleteSessionOfUser(tx: WriteTx, userId: number, sessionId: number): Promise<number> {
  return (await tx.run('DELETE FROM sessions WHERE user_id = ? AND id = ?', [userId, sessionId])).changes;
}

export async function deleteSessionByHash(tx: WriteTx, tokenHash: string): Promise<void> {
  await tx.run('DELETE FROM sessions WHERE token_hash = ?', [tokenHash]);
}

/** Ends every session of the user but the one whose hash is `keepHash` (if given). */
export async function deleteSessionsOfUser(tx: WriteTx, userId: number, keepHash?: string): Promise<void> {
  await tx.run('DELETE FROM sessions WHERE user_id = ? AND token_hash != ?', [userId, keepHash ?? '']);
}

export async function deleteExpiredSessions(tx: WriteTx, now: string): Promise<void> {
  await tx.run('DELETE FROM sessions WHERE expires_at <= ?', [now]);
}

const TOKEN_COLUMNS = 'id, user_id, name, token_hash, last_eight, created_at';

export async function apiTokenByHash(db: ReadTx, tokenHash: string): Promise<ApiTokenRow | undefined> {
  return await db.get<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE token_hash = ?`, [tokenHash]);
}

/**
 * The account an API token belongs to, with the token's stored hash: one statement (one round trip on PostgreSQL), as
 * every token request asks it. Subqueries rather than a join: on sql.js a join cost ~15 µs here, this ~4.5 µs.
 */
export async function apiTokenUserByHash(db: ReadTx, tokenHash: string): Promise<(UserRow & { token_hash: string }) | undefined> {
  return await db.get(
    `SELECT (SELECT token_hash FROM api_tokens WHERE token_hash = ?) AS token_hash, ${USER_COLUMNS} FROM users
     WHERE id = (SELECT user_id FROM api_tokens WHERE token_hash = ?)`,
    [tokenHash, tokenHash],
  );
}

export async function apiTokensOfUser(db: ReadTx, userId: number, page: PageWindow): Promise<ApiTokenRow[]> {
  return await db.all<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?`, [userId, page.limit, page.offset]);
}

export async function countApiTokens(db: ReadTx, userId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ?', [userId]))!.n;
}

export async function apiTokenById(db: ReadTx, userId: number, id: number): Promise<ApiTokenRow | undefined> {
  return await db.get<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ? AND id = ?`, [userId, id]);
}

export async function apiTokenByName(db: ReadTx, userId: number, name: string): Promise<ApiTokenRow | undefined> {
  return await db.get<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ? AND name = ?`, [userId, name]);
}

export async function insertApiToken(tx: WriteTx, token: { userId: number; name: string; tokenHash: string; lastEight: string; now: string }): Promise<ApiTokenRow> {
  return (await tx.run<ApiTokenRow>(
    `INSERT INTO api_tokens (user_id, name, token_hash, last_eight, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${TOKEN_COLUMNS}`,
    [token.userId, token.name, token.tokenHash, token.lastEight, token.now],
  )).rows[0]!;
}

export async function deleteApiToken(tx: WriteTx, userId: number, tokenId: number): Promise<number> {
  return (await tx.run('DELETE FROM api_tokens WHERE user_id = ? AND id = ?', [userId, tokenId])).changes;
}
