import { isIPv6 } from 'node:net';
import { RepoHostError } from '../errors.js';
import type { ChangeFeed } from '../store/interface.js';

/** Too many failed password attempts: 429 with `Retry-After`. */
export class TooManyAttemptsError extends RepoHostError {
  constructor(retryAfterSeconds: number) {
    super('rate_limited', `Too many failed sign-in attempts; try again in ${retryAfterSeconds} seconds`, retryAfterSeconds);
  }
}

export interface LoginThrottleLimits {
  /**
   * Failed attempts on one account (from all addresses together) before the addresses that failed on it must wait
   * between attempts: 1 second after the next failure, doubling with every further one, at most `windowMs`.
   */
  perAccount: number;
  /** Failed attempts allowed per client address (on all accounts together) within the window. */
  perAddress: number;
  windowMs: number;
}

/** A count of failures, forgotten at `endsAt`; `lastAt` is when the latest one happened. */
interface Failures {
  count: number;
  lastAt: number;
  endsAt: number;
}

/** What the change feed carries between instances: a failure on an account, one naming no account, a clear. */
const FAILED = 'login-failed:';
const FAILED_FROM = 'login-failed-from:';
const CLEARED = 'login-failures-cleared';

/** The first wait once an account is past its failures; each further failure doubles it. */
const BASE_DELAY_MS = 1000;
/** Most keys remembered; past this, expired entries are dropped (and, if need be, the least recently failed). */
const MAX_KEYS = 50_000;

/**
 * Slows password guessing without letting a stranger lock the owner out. Only failed password checks count (API
 * tokens never come here, and token-shaped Basic secrets are refused before it, see auth.ts), and three things are
 * remembered:
 *
 * - per client address, its failures on any account in a fixed window: past `perAddress`, that address is refused
 *   (429) until the window ends. This is the first limit a single guesser meets;
 * - per account, its failures from every address, forgotten `windowMs` after the latest: past `perAccount`, the
 *   account asks for a delay that doubles with each further failure (1 s, 2 s, 4 s, ... at most `windowMs`);
 * - per account and address, when that address last failed on that account.
 *
 * The account's delay applies only to addresses that have themselves failed on it within the window, counted from
 * their own latest failure. A guesser therefore meets a growing wait, and a distributed guesser gets about one try
 * per address per delay (so it needs ever more addresses, and each is also limited by its own count), while the
 * owner signing in from an address that has not failed is never refused: no number of wrong guesses from elsewhere
 * locks the account. Nothing is refused by the account's delay before bcrypt runs unless the address failed first.
 */
export class LoginThrottle {
  readonly #entries = new Map<string, Failures>();
  readonly #feed: ChangeFeed | undefined;

  /**
   * `feed`: other instances of the database (PostgreSQL). Each failure is told to them and counted by each as its own,
   * so a guesser gains nothing by spreading attempts over instances; an instance counts from its start.
   */
  constructor(
    private readonly limits: LoginThrottleLimits,
    private readonly now: () => number = Date.now,
    feed?: ChangeFeed,
  ) {
    this.#feed = feed;
    feed?.follow(
      (key) => this.#heard(key),
      () => undefined,
    );
  }

  /** Throws TooManyAttemptsError when the address used up its failures, or must still wait on this account. */
  check(username: string, address: string | undefined): void {
    const now = this.now();
    const { addressKey, accountKey, pairKey } = this.#keys(username, address);
    const addressWait = this.#addressWaitMs(addressKey, now);
    if (addressWait > 0) throw tooMany(addressWait);
    const pair = this.#live(pairKey, now);
    const account = pair && this.#live(accountKey, now);
    if (!pair || !account || account.count < this.limits.perAccount) return;
    const readyAt = pair.lastAt + this.#delay(account.count);
    if (readyAt > now) throw tooMany(readyAt - now);
  }

  failed(username: string, address: string | undefined): void {
    this.#countFailure(username, address);
    this.#feed?.announce(`${FAILED}${JSON.stringify([username, address ?? null])}`);
  }

  #countFailure(username: string, address: string | undefined): void {
    const now = this.now();
    const { addressKey, accountKey, pairKey } = this.#keys(username, address);
    this.#countAddress(addressKey, now);
    // Unlike the address's, these last while failures keep coming.
    this.#count(accountKey, now, () => now + this.limits.windowMs);
    this.#count(pairKey, now, () => now + this.limits.windowMs);
    if (this.#entries.size > MAX_KEYS) this.#prune(now);
  }

  /**
   * For sign-ins that name no account (an SSH connection that offered keys and had none accepted): whether the address
   * used up its failures, which it shares with password checks, for now.
   */
  addressUsedUp(address: string): boolean {
    return this.#addressWaitMs(this.#keys('', address).addressKey, this.now()) > 0;
  }

  /** A failed sign-in that names no account: counts against the address only. */
  failedFromAddress(address: string): void {
    this.#countAddressFailure(address);
    this.#feed?.announce(`${FAILED_FROM}${address}`);
  }

  #countAddressFailure(address: string): void {
    const now = this.now();
    this.#countAddress(this.#keys('', address).addressKey, now);
    if (this.#entries.size > MAX_KEYS) this.#prune(now);
  }

  /** Forgets every failure counted, in every instance (the accounts were put back to an earlier state, see host.restore). */
  clear(): void {
    this.#entries.clear();
    this.#feed?.announce(CLEARED);
  }

  /** A failure (or a clear) another instance told of. */
  #heard(key: string): void {
    if (key === CLEARED) return void this.#entries.clear();
    if (key.startsWith(FAILED_FROM)) return this.#countAddressFailure(key.slice(FAILED_FROM.length));
    if (!key.startsWith(FAILED)) return;
    let told: unknown;
    try {
      told = JSON.parse(key.slice(FAILED.length));
    } catch {
      return;
    }
    if (Array.isArray(told) && typeof told[0] === 'string' && (typeof told[1] === 'string' || told[1] === null)) this.#countFailure(told[0], told[1] ?? undefined);
  }

  /** The address's window is fixed: its Retry-After is when the window ends. */
  #countAddress(addressKey: string | undefined, now: number): void {
    if (addressKey !== undefined) this.#count(addressKey, now, (entry) => entry?.endsAt ?? now + this.limits.windowMs);
  }

  /** How long the address must wait before its next sign-in: 0 unless it used up its failures. */
  #addressWaitMs(addressKey: string | undefined, now: number): number {
    const byAddress = addressKey === undefined ? undefined : this.#live(addressKey, now);
    return byAddress && byAddress.count >= this.limits.perAddress ? byAddress.endsAt - now : 0;
  }

  /** The wait an account past its failures asks of the addresses that failed on it. */
  #delay(failures: number): number {
    const doublings = Math.min(failures - this.limits.perAccount, 40);
    return Math.min(BASE_DELAY_MS * 2 ** doublings, this.limits.windowMs);
  }

  #keys(username: string, address: string | undefined): { addressKey: string | undefined; accountKey: string; pairKey: string } {
    const account = username.toLowerCase();
    // Requests without a known address (in-process, no socket) are one client among themselves.
    const client = address ? clientOf(address) : '';
    return { addressKey: client ? `addr:${client}` : undefined, accountKey: `user:${account}`, pairKey: `pair:${client}\n${account}` };
  }

  #live(key: string, now: number): Failures | undefined {
    const entry = this.#entries.get(key);
    return entry && entry.endsAt > now ? entry : undefined;
  }

  #count(key: string, now: number, endsAt: (live: Failures | undefined) => number): void {
    const live = this.#live(key, now);
    // Re-inserted, so the map's order is least recently failed first (what #prune drops first).
    this.#entries.delete(key);
    this.#entries.set(key, { count: (live?.count ?? 0) + 1, lastAt: now, endsAt: endsAt(live) });
  }

  #prune(now: number): void {
    for (const [key, entry] of this.#entries) if (entry.endsAt <= now) this.#entries.delete(key);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= MAX_KEYS) break;
      this.#entries.delete(key);
    }
  }
}

/**
 * The client an address stands for: an IPv4 address itself (also when written IPv4-mapped), an IPv6 address its
 * /64, since one network holds all of those and could otherwise take a fresh address for every guess.
 */
export function clientOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

function tooMany(waitMs: number): TooManyAttemptsError {
  return new TooManyAttemptsError(Math.max(1, Math.ceil(waitMs / 1000)));
}
