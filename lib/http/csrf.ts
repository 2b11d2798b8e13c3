import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getCookie, getRequestHeader, setCookie, type H3Event, type Middleware } from 'h3';
import { forbidden } from '../errors.js';
import { SESSION_COOKIE, type CookieAttributes } from './auth.js';

/** The hidden form field that carries the per-session token. */
export const CSRF_FIELD = '_csrf';

/**
 * The cookie that stands in for a session on the forms that start one (sign-in, sign-up): a random value the page
 * sets and the form's token is derived from, as Rails' pre-login session (GitHub) and Gitea's `_csrf` cookie do.
 */
export const PRE_SESSION_COOKIE = 'pre_session';
/** Long enough to fill in a form, short enough that a stale value is soon gone. */
const PRE_SESSION_MAX_AGE = 2 * 3600;
const PRE_SESSION_VALUE = /^[A-Za-z0-9_-]{43}$/;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const EXPECTED = Symbol('csrf token this request must carry');
/** What a browser form must carry: a token, or `null` when it cannot carry a right one (no pre-session cookie). */
type Expected = string | null;

/**
 * Request-forgery protection for requests authenticated by the session cookie, or by Basic credentials a browser may
 * have cached and sends by itself (git's prompt answered in a browser): bearer and token requests carry their
 * credential explicitly and are unaffected. A state-changing request is refused when the browser says it
 * comes from another site: its `Origin` (or, without one, `Sec-Fetch-Site` or `Referer`) does not name this host.
 * SameSite=Lax alone lets same-site attackers through (another port, a sibling subdomain). A browser request must
 * also carry the per-session token that every form of ours holds; clients that are not browsers (no Origin, no
 * Sec-Fetch-Site, no Referer: curl, test harnesses) keep using the spec's cookie endpoints as they are.
 *
 * The forms that start a session (`/login`, `/register`) are checked the same way when the browser has no session
 * yet (see `guardSignInForm`): otherwise another site could sign a visitor in to an account of its own (login CSRF).
 */
export class RequestForgeryGuard {
  readonly #secret = randomBytes(32);

  /** `cookies`: the attributes of the cookies this sets, the host's own (`Secure` over HTTPS: auth.ts). */
  constructor(private readonly cookies: () => CookieAttributes) {}

  /** The token of a session, for the hidden field of the forms rendered to it. */
  tokenFor(session: string): string {
    return createHmac('sha256', this.#secret).update(session).digest('base64url');
  }

  /** The token for the session of this request, if it has one. */
  tokenOf(event: H3Event): string | undefined {
    const session = getCookie(event, SESSION_COOKIE);
    return session ? this.tokenFor(session) : undefined;
  }

  /**
   * The token for the sign-in and sign-up forms: the session's when the browser has a session cookie, otherwise
   * one derived from the pre-session cookie, which this sets (or renews) on the response.
   */
  signInFormToken(event: H3Event): string {
    const session = getCookie(event, SESSION_COOKIE);
    if (session) return this.tokenFor(session);
    const value = preSessionOf(event) ?? randomBytes(32).toString('base64url');
    setCookie(event, PRE_SESSION_COOKIE, value, { ...this.cookies(), maxAge: PRE_SESSION_MAX_AGE });
    return this.#preSessionToken(value);
  }

  /**
   * Called by the forms that start a session, before the body is read. With a session cookie the middleware did the
   * work. Without one, a browser's post from another site is refused (403) and a same-origin one must carry the
   * token of the pre-session cookie; clients that are not browsers (no Origin, Sec-Fetch-Site or Referer) and
   * requests with an Authorization header pass as before.
   */
  guardSignInForm(event: H3Event): void {
    if (carriesOwnCredential(event) || getCookie(event, SESSION_COOKIE)) return;
    if (!checkSameOrigin(event)) return;
    const value = preSessionOf(event);
    (event.context as Record<symbol, Expected>)[EXPECTED] = value === undefined ? null : this.#preSessionToken(value);
  }

  /** The h3 middleware: checks the origin, and notes the token the body must carry (see `verifyForm`). */
  middleware(): Middleware {
    return (event) => {
      if (SAFE_METHODS.has(event.req.method) || carriesOwnCredential(event)) return;
      const session = getCookie(event, SESSION_COOKIE);
      if (!session) {
        // Basic credentials alone: a browser's post from another site is refused. Our forms hold no token without a
        // session, and the origin check is what stops another site (browsers send Origin with every form post).
        if (getRequestHeader(event, 'authorization') !== undefined) checkSameOrigin(event);
        return;
      }
      const browser = checkSameOrigin(event);
      if (browser) (event.context as Record<symbol, Expected>)[EXPECTED] = this.tokenFor(session);
    };
  }

  /** Refuses a browser's cookie-authenticated form whose token is missing or wrong; strips the field. */
  static verifyForm(event: H3Event, fields: Record<string, unknown>): void {
    const expected = (event.context as Record<symbol, Expected | undefined>)[EXPECTED];
    const given = fields[CSRF_FIELD];
    delete fields[CSRF_FIELD];
    if (expected === undefined) return;
    const matches =
      expected !== null && typeof given === 'string' && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    if (!matches) throw forbidden('The form is missing its request-forgery token or it has expired: reload the page and try again');
  }

  // Its own domain, so no pre-session value ever yields the token of a session with the same value.
  #preSessionToken(value: string): string {
    return createHmac('sha256', this.#secret).update(`pre-session\0${value}`).digest('base64url');
  }
}

/**
 * An Authorization header that only a program sets (a bearer or token credential). Basic credentials are not: a
 * browser that answered a Basic prompt of this host sends them by itself, also with another site's form.
 */
function carriesOwnCredential(event: H3Event): boolean {
  const authorization = getRequestHeader(event, 'authorization');
  return authorization !== undefined && !/^\s*basic\b/i.test(authorization);
}

/** The browser's pre-session cookie value, if it has a well-formed one. */
function preSessionOf(event: H3Event): string | undefined {
  const value = getCookie(event, PRE_SESSION_COOKIE);
  return value !== undefined && PRE_SESSION_VALUE.test(value) ? value : undefined;
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
