import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getCookie, getRequestHeader, type H3Event, type Middleware } from 'h3';
import { forbidden } from '../errors.js';
import { SESSION_COOKIE } from './auth.js';

/** The hidden form field that carries the per-session token. */
export const CSRF_FIELD = '_csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const EXPECTED = Symbol('csrf token this request must carry');

/**
 * Request-forgery protection for requests authenticated by the session cookie (bearer and Basic requests carry
 * their credential explicitly and are unaffected). A state-changing request is refused when the browser says it
 * comes from another site: its `Origin` (or, without one, `Sec-Fetch-Site` or `Referer`) does not name this host.
 * SameSite=Lax alone lets same-site attackers through (another port, a sibling subdomain). A browser request must
 * also carry the per-session token that every form of ours holds; clients that are not browsers (no Origin, no
 * Sec-Fetch-Site, no Referer: curl, test harnesses) keep using the spec's cookie endpoints as they are.
 */
export class RequestForgeryGuard {
  readonly #secret = randomBytes(32);

  /** The token of a session, for the hidden field of the forms rendered to it. */
  tokenFor(session: string): string {
    return createHmac('sha256', this.#secret).update(session).digest('base64url');
  }

  /** The token for the session of this request, if it has one. */
  tokenOf(event: H3Event): string | undefined {
    const session = getCookie(event, SESSION_COOKIE);
    return session ? this.tokenFor(session) : undefined;
  }

  /** The h3 middleware: checks the origin, and notes the token the body must carry (see `verifyForm`). */
  middleware(): Middleware {
    return (event) => {
      if (SAFE_METHODS.has(event.req.method) || getRequestHeader(event, 'authorization')) return;
      const session = getCookie(event, SESSION_COOKIE);
      if (!session) return;
      const browser = checkSameOrigin(event);
      if (browser) (event.context as Record<symbol, string>)[EXPECTED] = this.tokenFor(session);
    };
  }

  /** Refuses a browser's cookie-authenticated form whose token is missing or wrong; strips the field. */
  static verifyForm(event: H3Event, fields: Record<string, unknown>): void {
    const expected = (event.context as Record<symbol, string | undefined>)[EXPECTED];
    const given = fields[CSRF_FIELD];
    delete fields[CSRF_FIELD];
    if (expected === undefined) return;
    const matches = typeof given === 'string' && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    if (!matches) throw forbidden('The form is missing its request-forgery token or it has expired: reload the page and try again');
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Throws 403 when the browser says the request comes from another origin; returns whether it came from a browser
 * at all. The origin is compared with the Host the browser addressed (a browser cannot forge it), so the same
 * server reached as localhost, 127.0.0.1 or through a proxy that keeps Host is recognised.
 */
function checkSameOrigin(event: H3Event): boolean {
  const host = (getRequestHeader(event, 'host') ?? '').toLowerCase();
  const origin = getRequestHeader(event, 'origin');
  const refuse = () => {
    throw forbidden('Cross-site request refused');
  };
  if (origin !== undefined) {
    if (hostOf(origin) !== host) refuse();
    return true;
  }
  const site = getRequestHeader(event, 'sec-fetch-site');
  if (site !== undefined) {
    if (site !== 'same-origin' && site !== 'none') refuse();
    return true;
  }
  const referer = getRequestHeader(event, 'referer');
  if (referer !== undefined) {
    if (hostOf(referer) !== host) refuse();
    return true;
  }
  return false;
}
