/** One allowance as GitHub reports it (headers and `GET /rate_limit`). */
export interface RateLimit {
  limit: number;
  remaining: number;
  used: number;
  /** Seconds since the epoch when the allowance is renewed. */
  reset: number;
}

/**
 * How a harness makes the host answer as a rate-limited GitHub, so that back-off code can be tested
 * (`host.admin.simulateRateLimit`), whoever asks:
 * - `remaining`: requests left before the primary limit; at 0 every `/api/v3` answer is GitHub's 403 "API rate limit
 *   exceeded" with `x-ratelimit-remaining: 0` until `resetAt` (then the allowance is `limit` again);
 * - `secondary`: every answer is GitHub's 403 for a secondary rate limit, with `retry-after`.
 */
export interface RateLimitSimulation {
  /** @default 5000 */
  limit?: number;
  remaining: number;
  /** When the allowance is renewed. @default an hour from now */
  resetAt?: Date;
  secondary?: { retryAfterSeconds: number };
}

/** What a refused request is answered with. */
export interface RateLimitRefusal {
  status: 403;
  message: string;
  documentationUrl: string;
  headers: Record<string, string>;
}

/** Who a request counts against: its account, its app installation, or (anonymous) its client address. */
export interface RateCaller {
  kind: 'anonymous' | 'user' | 'installation';
  /** The account's or installation's id, or the client's address. */
  id: string;
}

/** The allowances GitHub documents, per caller kind: `core` an hour, `search` a minute. */
export type RateLimitAllowances = Record<RateCaller['kind'], number>;
export type RateResource = 'core' | 'search';

/** How a host counts `/api/v3` requests (HostOptions.rateLimit). */
export interface RateLimitOptions {
  /** Refuse requests past the allowance (403, as GitHub); otherwise only count and report. */
  enforce?: boolean;
  /** Requests an hour, per caller kind. @default GitHub's: 60 anonymous, 5,000 a user, 15,000 an installation */
  core?: Partial<RateLimitAllowances>;
  /** Searches a minute, per caller kind. @default GitHub's: 10 anonymous, 30 otherwise */
  search?: Partial<RateLimitAllowances>;
}

const DEFAULTS: Record<RateResource, RateLimitAllowances> = {
  core: { anonymous: 60, user: 5000, installation: 15000 },
  search: { anonymous: 10, user: 30, installation: 30 },
};
/** How long a window of each resource lasts, in seconds: `core` an hour, `search` a minute. */
const windowSeconds = (resource: RateResource): number => (resource === 'search' ? 60 : 3600);

/**
 * Windows kept at most for each kind of caller: one per caller and resource. Anonymous callers are addresses, which
 * anyone can make many of: they are kept apart, so that they never push out accounts' windows, and when full, windows
 * that ended go first, then the oldest, down to nine tenths (one sweep makes room for many).
 */
const MAX_WINDOWS = 50_000;

/** The network an anonymous caller is counted by: its IPv4 address, or the /64 of its IPv6 one (GitHub's practice). */
export function networkOf(address: string): string {
  const plain = address.replace(/%.*$/, '').toLowerCase();
  if (!plain.includes(':') || /^::ffff:\d+\.\d+\.\d+\.\d+$/.test(plain)) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = plain.includes('::') ? [...left, ...new Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

interface Window {
  used: number;
  /** Seconds since the epoch when the window ends and its allowance is renewed. */
  reset: number;
}

/** GitHub's words for a caller past its allowance. */
function exceeded(caller: RateCaller): string {
  if (caller.kind === 'anonymous') return `API rate limit exceeded for ${caller.id}. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)`;
  return `API rate limit exceeded for ${caller.kind === 'user' ? 'user' : 'installation'} ID ${caller.id}.`;
}

/** An allowance nothing counted against (GitHub's resources repohost does not serve): all of it left. */
export function unusedRate(limit: number): RateLimit {
  return { limit, remaining: limit, used: 0, reset: Math.ceil(Date.now() / 1000) + 3600 };
}

/** Simulated by a harness (RateLimitSimulation): the same allowance for every caller. */
interface Simulated {
  limit: number;
  used: number;
  reset: number;
  secondary?: { retryAfterSeconds: number };
}

/**
 * The rate limits of one host's `/api/v3`, counted per caller (its account, its installation, or its address) in
 * windows that start with its first request, as GitHub's do. Kept in memory (our own: a map and a clock are all it
 * needs): each instance of several counts its own callers. The windows run on the real clock, not a harness's
 * (clients compute their waits from their own clock); a harness may simulate a limit instead, on its clock.
 */
export class GitHubRateLimits {
  #simulation: Simulated | undefined;
  readonly #windows: Record<RateCaller['kind'], Map<string, Window>> = { anonymous: new Map(), user: new Map(), installation: new Map() };
  readonly #allowances: Record<RateResource, RateLimitAllowances>;
  readonly #enforce: boolean;

  constructor(
    private readonly now: () => Date,
    options: RateLimitOptions = {},
  ) {
    this.#enforce = options.enforce === true;
    this.#allowances = { core: { ...DEFAULTS.core, ...options.core }, search: { ...DEFAULTS.search, ...options.search } };
    for (const resource of ['core', 'search'] as const) {
      for (const [kind, limit] of Object.entries(this.#allowances[resource])) {
        if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`rateLimit.${resource}.${kind} must be a whole number above 0`);
      }
    }
  }

  /** Starts simulating a limit, or stops (`undefined`: real counting again). */
  simulate(simulation: RateLimitSimulation | undefined): void {
    if (!simulation) return void (this.#simulation = undefined);
    const limit = simulation.limit ?? 5000;
    if (!Number.isInteger(simulation.remaining) || simulation.remaining < 0 || simulation.remaining > limit) throw new RangeError('remaining must be a whole number from 0 to limit');
    const reset = Math.ceil((simulation.resetAt?.getTime() ?? this.now().getTime() + 3_600_000) / 1000);
    this.#simulation = { limit, used: limit - simulation.remaining, reset, secondary: simulation.secondary };
  }

  /** The caller's allowance of `resource` as it stands. */
  current(caller: RateCaller, resource: RateResource = 'core'): RateLimit {
    const simulation = this.#renewedSimulation();
    if (simulation) return { limit: simulation.limit, remaining: simulation.limit - simulation.used, used: simulation.used, reset: simulation.reset };
    const limit = this.#allowances[resource][caller.kind];
    const window = this.#window(caller, resource, false);
    if (!window) return unusedRate(limit);
    return { limit, remaining: Math.max(0, limit - window.used), used: window.used, reset: window.reset };
  }

  /** The caller's allowance of a resource nothing counts (GitHub's others, e.g. `graphql`): its core limit, unused. */
  uncounted(caller: RateCaller): RateLimit {
    return unusedRate(this.current(caller).limit);
  }

  /** Counts one request; the refusal GitHub would answer when the caller is past its allowance (and limits hold). */
  take(caller: RateCaller, resource: RateResource = 'core'): RateLimitRefusal | undefined {
    const simulation = this.#renewedSimulation();
    if (simulation) return this.#takeSimulated(simulation);
    const limit = this.#allowances[resource][caller.kind];
    const window = this.#window(caller, resource, true)!;
    if (window.used >= limit && this.#enforce) {
      const wait = Math.max(1, window.reset - Math.floor(Date.now() / 1000));
      return { status: 403, message: exceeded(caller), documentationUrl: DOCUMENTATION, headers: { 'retry-after': String(wait) } };
    }
    window.used += 1;
    return undefined;
  }

  /** Gives back what `take` counted for a request that does not count after all (a conditional one answered 304). */
  refund(caller: RateCaller, resource: RateResource = 'core'): void {
    const simulation = this.#renewedSimulation();
    if (simulation) {
      if (!simulation.secondary && simulation.used > 0) simulation.used -= 1;
      return;
    }
    const window = this.#window(caller, resource, false);
    if (window && window.used > 0) window.used -= 1;
  }

  #takeSimulated(simulation: Simulated): RateLimitRefusal | undefined {
    if (simulation.secondary) {
      return {
        status: 403,
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentationUrl: `${DOCUMENTATION}#about-secondary-rate-limits`,
        headers: { 'retry-after': String(simulation.secondary.retryAfterSeconds) },
      };
    }
    if (simulation.used >= simulation.limit) return { status: 403, message: 'API rate limit exceeded.', documentationUrl: DOCUMENTATION, headers: {} };
    simulation.used += 1;
    return undefined;
  }

  /** The caller's window of a resource, renewed once it ended; made (with `create`) when it has none. */
  #window(caller: RateCaller, resource: RateResource, create: boolean): Window | undefined {
    const windows = this.#windows[caller.kind];
    const key = `${resource}:${caller.kind === 'anonymous' ? networkOf(caller.id) : caller.id}`;
    const seconds = Date.now() / 1000;
    let window = windows.get(key);
    if (window && seconds >= window.reset) {
      windows.delete(key);
      window = undefined;
    }
    if (!window && create) {
      if (windows.size >= MAX_WINDOWS) prune(windows, seconds);
      window = { used: 0, reset: Math.ceil(seconds) + windowSeconds(resource) };
      windows.set(key, window);
    }
    return window;
  }

  /** The simulation, its allowance renewed once its reset time has passed. */
  #renewedSimulation(): Simulated | undefined {
    const simulation = this.#simulation;
    if (simulation && !simulation.secondary && this.now().getTime() / 1000 >= simulation.reset) {
      simulation.used = 0;
      simulation.reset += 3600;
    }
    return simulation;
  }
}

const DOCUMENTATION = 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api';

/** Makes room in a full map of windows: those that ended go, then the oldest (a Map keeps insertion order). */
function prune(windows: Map<string, Window>, seconds: number): void {
  for (const [key, window] of windows) if (seconds >= window.reset) windows.delete(key);
  for (const key of windows.keys()) {
    if (windows.size <= MAX_WINDOWS * 0.9) break;
    windows.delete(key);
  }
}
