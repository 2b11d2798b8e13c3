import { RepoHostError } from '../errors.js';

/** Too many failed password attempts: 429 with `Retry-After`. */
export class TooManyAttemptsError extends RepoHostError {
  constructor(retryAfterSeconds: number) {
    super('rate_limited', `Too many failed sign-in attempts; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
  }
}

export interface LoginThrottleLimits {
  /** Failed attempts allowed per account within the window. */
  perAccount: number;
  /** Failed attempts allowed per client address within the window. */
  perAddress: number;
  windowMs: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** Most keys remembered; past this, expired windows are dropped (and, if need be, the oldest). */
const MAX_KEYS = 50_000;

/**
 * Limits guessing: failed password checks are counted per account and per client address in a fixed window, and
 * once either count is reached every further password check for it is refused (429) until the window ends,
 * before any bcrypt work. Only failures count, so a user who types the password right is never slowed; API tokens
 * do not go through here at all.
 */
export class LoginThrottle {
  readonly #windows = new Map<string, Window>();

  constructor(
    private readonly limits: LoginThrottleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws TooManyAttemptsError when the account or the address used up its failures. */
  check(username: string, address: string | undefined): void {
    const now = this.now();
    for (const [key, limit] of this.#keys(username, address)) {
      const window = this.#windows.get(key);
      if (window && window.endsAt > now && window.failures >= limit) throw new TooManyAttemptsError(Math.ceil((window.endsAt - now) / 1000));
    }
  }

  failed(username: string, address: string | undefined): void {
    const now = this.now();
    for (const [key] of this.#keys(username, address)) {
      const window = this.#windows.get(key);
      if (window && window.endsAt > now) window.failures += 1;
      else this.#windows.set(key, { failures: 1, endsAt: now + this.limits.windowMs });
    }
    if (this.#windows.size > MAX_KEYS) this.#prune(now);
  }

  /** Forgets every failure counted (the accounts were put back to an earlier state, see host.restore). */
  clear(): void {
    this.#windows.clear();
  }

  #keys(username: string, address: string | undefined): Array<[string, number]> {
    const keys: Array<[string, number]> = [[`user:${username.toLowerCase()}`, this.limits.perAccount]];
    if (address) keys.push([`addr:${address}`, this.limits.perAddress]);
    return keys;
  }

  #prune(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
    for (const key of this.#windows.keys()) {
      if (this.#windows.size <= MAX_KEYS) break;
      this.#windows.delete(key);
    }
  }
}
