import { getCookie, getRequestHeader, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { forbidden, notFound, unauthorized } from '../errors.js';
import { looksLikeJwt } from '../services/app-jwt.js';
import { looksLikeApiToken } from '../services/credentials.js';
import type { Viewer } from '../services/permissions.js';
import type { UserRow } from '../store/queries/users.js';

export const SESSION_COOKIE = 'token';

export interface CookieAttributes {
  httpOnly: true;
  sameSite: 'lax';
  path: '/';
  secure: boolean;
}

/**
 * The attributes of the cookies a browser keeps for this host (the session, the sign-in form's pre-session):
 * `Secure` when the host is served over HTTPS (its public URL says so), so they never travel in the clear.
 */
export function cookieAttributes(ctx: AppContext): CookieAttributes {
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: ctx.baseUrl().startsWith('https://') };
}

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
async function userFromBasic(ctx: AppContext, event: H3Event, credentials: BasicCredentials): Promise<Viewer> {
  const tokenUser = await userOfToken(ctx, event, credentials.secret) ?? await userOfToken(ctx, event, credentials.username);
  if (tokenUser) return tokenUser;
  if (looksLikeApiToken(credentials.secret) || looksLikeApiToken(credentials.username)) return undefined;
  if (credentials.secret.length === 0 || credentials.secret.length > 256) return undefined;
  return ctx.users.authenticate(credentials.username, credentials.secret, clientAddress(event));
}

/**
 * The account a token stands for: a personal API token's owner, or for a GitHub App's installation token (`ghs_…`,
 * what apps also clone and push with as `x-access-token:<token>`) the app's bot with its installation's grant.
 */
async function userOfToken(ctx: AppContext, event: H3Event, token: string): Promise<Viewer> {
  if (token.startsWith('ghs_')) {
    const bot = await ctx.apps.viewerOfToken(token);
    // An installation token is GitHub's: it works where GitHub takes it, and nowhere else (pages, forms, /api/v1).
    if (bot) return APP_TOKEN_PATHS.test(event.url.pathname) ? bot : undefined;
  }
  // A personal token may have any shape, `ghs_` too (fixtures choose theirs).
  const user = await ctx.credentials.userOfApiToken(token);
  // GitHub's answers to a personal token name its scopes (`X-OAuth-Scopes`, lib/github-api/http.ts).
  if (user) event.context.personalToken = true;
  return user;
}

/** Where installation tokens are taken: the GitHub API and its uploads, git over HTTP and Git LFS. */
const APP_TOKEN_PATHS = /^\/api\/(?:v3|uploads)(?:\/|$)|^\/[^/]+\/[^/]+\/(?:info\/refs|git-upload-pack|git-receive-pack|info\/lfs\/)/;

/** The address of the client's connection (the peer; no proxy header is trusted). */
export function clientAddress(event: H3Event): string | undefined {
  return event.runtime?.node?.req?.socket?.remoteAddress ?? undefined;
}

const resolved = new WeakMap<H3Event, Promise<Viewer>>();

/**
 * The authenticated user of a request, from `Authorization: Bearer <api token>`, `Authorization: Basic`, or the
 * `token` session cookie; undefined when none is present or valid. Resolved once per request.
 */
export function currentUser(ctx: AppContext, event: H3Event): Promise<Viewer> {
  let user = resolved.get(event);
  if (!user) {
    user = resolveUser(ctx, event);
    resolved.set(event, user);
  }
  return user;
}

async function resolveUser(ctx: AppContext, event: H3Event): Promise<Viewer> {
  const authorization = getRequestHeader(event, 'authorization');
  if (authorization) {
    const bearer = /^(?:Bearer|token)\s+(\S+)\s*$/i.exec(authorization);
    // An app's JSON web token speaks for the app, not an account: only the app's own endpoints read it (appOf).
    if (bearer) return looksLikeJwt(bearer[1]!) ? undefined : await userOfToken(ctx, event, bearer[1]!);
    const basic = parseBasic(authorization);
    if (basic) return userFromBasic(ctx, event, basic);
    return undefined;
  }
  const session = getCookie(event, SESSION_COOKIE);
  return session ? await ctx.credentials.userOfSession(session) : undefined;
}

/**
 * Refuses an app's bot on what belongs to an account (its profile, keys, tokens, repositories it would own), as GitHub
 * refuses installation tokens there: 403 `Resource not accessible by integration`.
 */
export async function refuseIntegration(ctx: AppContext, event: H3Event): Promise<void> {
  if ((await currentUser(ctx, event))?.installation) throw forbidden('Resource not accessible by integration');
}

/** The bearer JSON web token of a request, if it carries one (a GitHub App speaking as itself). */
export function bearerJwt(event: H3Event): string | undefined {
  const bearer = /^(?:Bearer|token)\s+(\S+)\s*$/i.exec(getRequestHeader(event, 'authorization') ?? '');
  return bearer && looksLikeJwt(bearer[1]!) ? bearer[1] : undefined;
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
