import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A high-entropy random token for sessions and API tokens: 32 bytes, hex. */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Tokens are stored only as their SHA-256: a leaked database does not leak usable credentials. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two hex digests without leaking, through timing, how many leading characters match. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
