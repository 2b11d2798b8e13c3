import { conflict, invalid, notFound } from '../errors.js';
import type { Db } from '../store/interface.js';
import {
  apiTokenByHash,
  apiTokenUserByHash,
  apiTokenById,
  apiTokenByName,
  apiTokensOfUser,
  countApiTokens,
  deleteApiToken,
  deleteExpiredSessions,
  deleteSessionOfUser,
  deleteSessionByHash,
  insertApiToken,
  insertSession,
  sessionByHash,
  sessionsOfUser,
  type ApiTokenRow,
} from '../store/queries/credentials.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { userById, type UserRow } from '../store/queries/users.js';
import { digestsEqual, hashToken, newToken } from './secrets.js';

const SESSION_DAYS = 30;
const MAX_TOKEN_LABEL = 100;
/** Shortest fixed token: 16 characters of a token alphabet (GitHub-style `ghp_...` values fit). */
export const MIN_FIXED_TOKEN = 16;
const FIXED_TOKEN = new RegExp(`^[A-Za-z0-9_-]{${MIN_FIXED_TOKEN},200}$`);
/** What `newToken` mints (64 hex digits), and the prefixed forms of GitHub (`ghp_`, `github_pat_`...) and GitLab. */
const TOKEN_SHAPES = [/^[0-9a-f]{64}$/, /^(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{16,200}$/, /^glpat-[A-Za-z0-9_-]{16,200}$/];

/**
 * Whether a secret has the shape of an API token. Over HTTP Basic such a secret is taken for a token only: when it
 * is no live token (revoked, mistyped) it is a bad token, not a password guess, so it is never checked with bcrypt
 * nor counted as a failed sign-in (a CI job with a revoked token must not slow its owner's sign-in down).
 */
export function looksLikeApiToken(secret: string): boolean {
  return TOKEN_SHAPES.some((shape) => shape.test(secret));
}

/** What is shown of an API token: never the token itself, only its last eight characters. */
export function tokenSummary({ id, name, last_eight, created_at }: ApiTokenRow): { id: number; name: string; last_eight: string; created_at: string } {
  return { id, name, last_eight, created_at };
}

/** A session as the account page lists it: never its token. */
export interface SessionSummary {
  id: number;
  created_at: string;
  expires_at: string;
  /** The session of the request asking. */
  current: boolean;
}

/** Sessions (cookie `token`) and personal API tokens (bearer); both stored only as SHA-256 hashes. */
export class CredentialService {
  constructor(
    private readonly store: Db,
    private readonly now: () => Date,
  ) {}

  /** Starts a session and returns the plain session token (shown once, in the cookie). */
  async startSession(userId: number): Promise<string> {
    const token = newToken();
    const now = this.now();
    const expiresAt = new Date(now.getTime() + SESSION_DAYS * 86_400_000).toISOString();
    await this.store.write(async (tx) => {
      await deleteExpiredSessions(tx, now.toISOString());
      await insertSession(tx, { userId, tokenHash: hashToken(token), now: now.toISOString(), expiresAt });
    });
    return token;
  }

  async endSession(token: string): Promise<void> {
    await this.store.write(async (tx) => await deleteSessionByHash(tx, hashToken(token)));
  }

  /** The user's live sessions, newest first, the one of `currentToken` marked. */
  async sessions(userId: number, currentToken: string | undefined): Promise<SessionSummary[]> {
    const currentHash = currentToken === undefined ? '' : hashToken(currentToken);
    return (await sessionsOfUser(this.store, userId, this.now().toISOString())).map((row) => ({
      id: row.id,
      created_at: row.created_at,
      expires_at: row.expires_at,
      current: currentHash !== '' && digestsEqual(row.token_hash, currentHash),
    }));
  }

  /** Ends one of the user's sessions (signs that browser out); 404 if it is not theirs or already gone. */
  async revokeSession(userId: number, sessionId: number): Promise<void> {
    const removed = await this.store.write(async (tx) => await deleteSessionOfUser(tx, userId, sessionId));
    if (!removed) throw notFound('Session not found');
  }

  async userOfSession(token: string): Promise<UserRow | undefined> {
    const tokenHash = hashToken(token);
    const session = await sessionByHash(this.store, tokenHash);
    if (!session || !digestsEqual(session.token_hash, tokenHash)) return undefined;
    if (session.expires_at <= this.now().toISOString()) return undefined;
    return await userById(this.store, session.user_id);
  }

  async userOfApiToken(token: string): Promise<UserRow | undefined> {
    const tokenHash = hashToken(token);
    const row = await apiTokenUserByHash(this.store, tokenHash);
    if (!row || !digestsEqual(row.token_hash, tokenHash)) return undefined;
    const { token_hash: _stored, ...user } = row;
    return user;
  }

  /** Creates an API token; the plain value is returned once and never stored. */
  createApiToken(userId: number, label: unknown): Promise<{ token: string; row: ApiTokenRow }> {
    return this.insertApiToken(userId, label, newToken());
  }

  /**
   * Stores a token whose value the caller chose (fixtures give bots a known token), under the same rules: only
   * its hash is kept. The value must be long and unguessable enough to be a credential, and not in use already.
   */
  async storeApiToken(userId: number, label: unknown, token: string): Promise<{ token: string; row: ApiTokenRow }> {
    if (!FIXED_TOKEN.test(token)) throw invalid(`a fixed token must be ${MIN_FIXED_TOKEN} to 200 letters, digits, '_' or '-'`);
    if (await apiTokenByHash(this.store, hashToken(token))) throw conflict('this token value is already in use');
    return this.insertApiToken(userId, label, token);
  }

  private async insertApiToken(userId: number, label: unknown, token: string): Promise<{ token: string; row: ApiTokenRow }> {
    if (typeof label !== 'string' || label.trim().length === 0) throw invalid('token name is required');
    const name = label.trim();
    if (name.length > MAX_TOKEN_LABEL) throw invalid(`token name must be at most ${MAX_TOKEN_LABEL} characters`);
    const now = this.now().toISOString();
    const row = await this.store.write(async (tx) => {
      if (await apiTokenByName(tx, userId, name)) throw conflict(`a token named '${name}' already exists`);
      if (await apiTokenByHash(tx, hashToken(token))) throw conflict('this token value is already in use');
      return await insertApiToken(tx, { userId, name, tokenHash: hashToken(token), lastEight: token.slice(-8), now });
    });
    return { token, row };
  }

  async apiTokens(userId: number, page: PageWindow): Promise<{ items: ApiTokenRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await apiTokensOfUser(tx, userId, page), total: await countApiTokens(tx, userId) }));
  }

  /** Revokes by numeric id or by label. */
  async revokeApiToken(userId: number, idOrLabel: string): Promise<ApiTokenRow> {
    const row = /^\d+$/.test(idOrLabel)
      ? await apiTokenById(this.store, userId, Number(idOrLabel))
      : await apiTokenByName(this.store, userId, idOrLabel);
    if (!row) throw notFound('Token not found');
    await this.store.write(async (tx) => await deleteApiToken(tx, userId, row.id));
    return row;
  }
}
