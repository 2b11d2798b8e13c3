// Our own reading of a GitHub App's JSON web token, rather than `jose` (issue 40). Only one form is ever accepted:
// RS256, verified with the app's public key, which is always RSA (made by repohost, or checked to be RSA when given:
// services/apps.ts keyPair), so there is no algorithm to confuse: any other `alg` is refused before a key is touched.
// The claims are checked with GitHub's own error messages, which a library's errors would have to be mapped back to;
// node:crypto does the signature, the only hard part.
import { createPublicKey, verify } from 'node:crypto';
import { unauthorized } from '../errors.js';

/** The claims of a GitHub App's JSON web token that repohost checks. */
export interface AppJwtClaims {
  /** The app's id (a number, or its digits as a string). */
  iss: number;
  iat: number;
  exp: number;
}

/** GitHub's limit: a token may be valid for at most ten minutes. */
const MAX_LIFETIME_S = 600;
/** Clocks apart by this much are forgiven when a token was issued (never once it expired). */
const DRIFT_S = 60;

const NOT_DECODED = 'A JSON web token could not be decoded';

/** Whether a bearer credential has the shape of a JSON web token (three base64url parts, a JSON header first). */
export function looksLikeJwt(token: string): boolean {
  return /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

function part(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    /* refused below */
  }
  throw unauthorized(NOT_DECODED);
}

/** The claims of a token, read but not yet trusted: the issuer says whose key verifies it. GitHub's 401s otherwise. */
export function readAppJwt(token: string, nowMs: number): AppJwtClaims {
  const [header, payload] = token.split('.');
  if (part(header!).alg !== 'RS256') throw unauthorized(NOT_DECODED);
  const claims = part(payload!);
  const iss = typeof claims.iss === 'string' && /^\d{1,15}$/.test(claims.iss) ? Number(claims.iss) : claims.iss;
  if (typeof iss !== 'number' || !Number.isSafeInteger(iss)) throw unauthorized(NOT_DECODED);
  const { iat, exp } = claims;
  const now = Math.floor(nowMs / 1000);
  if (typeof iat !== 'number' || !Number.isFinite(iat) || iat > now + DRIFT_S) {
    throw unauthorized("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
  }
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= now) {
    throw unauthorized("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
  }
  if (exp > now + MAX_LIFETIME_S + DRIFT_S || exp - iat > MAX_LIFETIME_S + DRIFT_S) throw unauthorized("'Expiration time' claim ('exp') is too far in the future");
  return { iss, iat, exp };
}

/** Whether the token's RS256 signature is the app's (its public key, PEM). */
export function signedBy(token: string, publicKeyPem: string): boolean {
  const last = token.lastIndexOf('.');
  try {
    return verify('sha256', Buffer.from(token.slice(0, last)), createPublicKey(publicKeyPem), Buffer.from(token.slice(last + 1), 'base64url'));
  } catch {
    return false;
  }
}
