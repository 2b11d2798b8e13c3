import type { ReadTx, WriteTx } from '../database.js';
import type { PageWindow } from './page-window.js';

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

export function sessionByHash(db: ReadTx, tokenHash: string): SessionRow | undefined {
  return db.get<SessionRow>('SELECT id, user_id, token_hash, expires_at FROM sessions WHERE token_hash = ?', [tokenHash]);
}

export function insertSession(tx: WriteTx, session: { userId: number; tokenHash: string; now: string; expiresAt: string }): void {
  tx.run('INSERT INTO sessions (user_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)', [
    session.userId,
    session.tokenHash,
    session.now,
    session.expiresAt,
  ]);
}

/** A user's sessions that have not expired, newest first: the account page lists them. */
export function sessionsOfUser(db: ReadTx, userId: number, now: string): Array<SessionRow & { created_at: string }> {
  return db.all<SessionRow & { created_at: string }>(
    'SELECT id, user_id, token_hash, created_at, expires_at FROM sessions WHERE user_id = ? AND expires_at > ? ORDER BY id DESC LIMIT 100',
    [userId, now],
  );
}

export function deleteSessionOfUser(tx: WriteTx, userId: number, sessionId: number): number {
  return tx.run('DELETE FROM sessions WHERE user_id = ? AND id = ?', [userId, sessionId]).changes;
}

export function deleteSessionByHash(tx: WriteTx, tokenHash: string): void {
  tx.run('DELETE FROM sessions WHERE token_hash = ?', [tokenHash]);
}

/** Ends every session of the user but the one whose hash is `keepHash` (if given). */
export function deleteSessionsOfUser(tx: WriteTx, userId: number, keepHash?: string): void {
  tx.run('DELETE FROM sessions WHERE user_id = ? AND token_hash != ?', [userId, keepHash ?? '']);
}

export function deleteExpiredSessions(tx: WriteTx, now: string): void {
  tx.run('DELETE FROM sessions WHERE expires_at <= ?', [now]);
}

const TOKEN_COLUMNS = 'id, user_id, name, token_hash, last_eight, created_at';

export function apiTokenByHash(db: ReadTx, tokenHash: string): ApiTokenRow | undefined {
  return db.get<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE token_hash = ?`, [tokenHash]);
}

export function apiTokensOfUser(db: ReadTx, userId: number, page: PageWindow): ApiTokenRow[] {
  return db.all<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?`, [userId, page.limit, page.offset]);
}

export function countApiTokens(db: ReadTx, userId: number): number {
  return db.get<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens WHERE user_id = ?', [userId])!.n;
}

export function apiTokenById(db: ReadTx, userId: number, id: number): ApiTokenRow | undefined {
  return db.get<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ? AND id = ?`, [userId, id]);
}

export function apiTokenByName(db: ReadTx, userId: number, name: string): ApiTokenRow | undefined {
  return db.get<ApiTokenRow>(`SELECT ${TOKEN_COLUMNS} FROM api_tokens WHERE user_id = ? AND name = ?`, [userId, name]);
}

export function insertApiToken(tx: WriteTx, token: { userId: number; name: string; tokenHash: string; lastEight: string; now: string }): ApiTokenRow {
  return tx.run<ApiTokenRow>(
    `INSERT INTO api_tokens (user_id, name, token_hash, last_eight, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${TOKEN_COLUMNS}`,
    [token.userId, token.name, token.tokenHash, token.lastEight, token.now],
  ).rows[0]!;
}

export function deleteApiToken(tx: WriteTx, userId: number, tokenId: number): number {
  return tx.run('DELETE FROM api_tokens WHERE user_id = ? AND id = ?', [userId, tokenId]).changes;
}
