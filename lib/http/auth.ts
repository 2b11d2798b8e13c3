import { getCookie, getRequestHeader, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { notFound, unauthorized } from '../errors.js';
import { looksLikeApiToken } from '../services/credentials.js';
import type { UserRow } from '../store/queries/users.js';

export const SESSION_COOKIE = 'token';

export interface BasicCredentials {
  username: string;
  secret: string;
}

export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/**
 * The user behind HTTP Basic credentials. An API token is accepted in either field whatever the other holds, as
 * Gitea does (tools written for GitHub and GitLab send `x-access-token:<token>`, `oauth2:<token>` or `<token>:`);
 * tokens are checked first (cheap). A token-shaped value that is no live token is refused as a bad token: it is
 * neither tried as a password nor counted as a failed sign-in of the named user. Otherwise the secret is the
 * password of the named user (bcrypt, throttled).
 */
async function userFromBasic(ctx: AppContext, event: H3Event, credentials: BasicCredentials): Promise<UserRow | undefined> {
  const tokenUser = await ctx.credentials.userOfApiToken(credentials.secret) ?? await ctx.credentials.userOfApiToken(credentials.username);
  if (tokenUser) return tokenUser;
  if (looksLikeApiToken(credentials.secret) || looksLikeApiToken(credentials.username)) return undefined;
  if (credentials.secret.length === 0 || credentials.secret.length > 256) return undefined;
  return ctx.users.authenticate(credentials.username, credentials.secret, clientAddress(event));
}

/** The address of the client's connection (the peer; no proxy header is trusted). */
export function clientAddress(event: H3Event): string | undefined {
  return event.runtime?.node?.req?.socket?.remoteAddress ?? undefined;
}

const resolved = new WeakMap<H3Event, Promise<UserRow | undefined>>();

/**
 * The authenticated user of a request, from `Authorization: Bearer <api token>`, `Authorization: Basic`, or the
 * `token` session cookie; undefined when none is present or valid. Resolved once per request.
 */
export function currentUser(ctx: AppContext, event: H3Event): Promise<UserRow | undefined> {
  let user = resolved.get(event);
  if (!user) {
    user = resolveUser(ctx, event);
    resolved.set(event, user);
  }
  return user;
}

async function resolveUser(ctx: AppContext, event: H3Event): Promise<UserRow | undefined> {
  const authorization = getRequestHeader(event, 'authorization');
  if (authorization) {
    const bearer = /^(?:Bearer|token)\s+(\S+)\s*$/i.exec(authorization);
    if (bearer) return await ctx.credentials.userOfApiToken(bearer[1]!);
    const basic = parseBasic(authorization);
    if (basic) return userFromBasic(ctx, event, basic);
    return undefined;
  }
  const session = getCookie(event, SESSION_COOKIE);
  return session ? await ctx.credentials.userOfSession(session) : undefined;
}

/** The authenticated user, or 401. */
export async function requireUser(ctx: AppContext, event: H3Event): Promise<UserRow> {
  const user = await currentUser(ctx, event);
  if (!user) throw unauthorized('Unauthorized');
  return user;
}

/** The authenticated user, or 404 `Not found` (endpoints where the spec hides rather than challenges). */
export async function requireUserOrNotFound(ctx: AppContext, event: H3Event): Promise<UserRow> {
  const user = await currentUser(ctx, event);
  if (!user) throw notFound('Not found');
  return user;
}
