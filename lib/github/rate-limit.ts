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
 * (`host.admin.simulateRateLimit`):
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

/** The API does not limit requests unless a simulation says so: one generous, constant allowance. */
const UNLIMITED = 1_000_000;

/**
 * The allowance reported when nothing is simulated: never used up, renewed an hour from the real now (clients compute
 * waits from their own clock, not the host's).
 */
export function unlimitedRate(): RateLimit {
  return { limit: UNLIMITED, remaining: UNLIMITED, used: 0, reset: Math.ceil(Date.now() / 1000) + 3600 };
}

/** The rate limit of one host's `/api/v3`: never used up, unless a harness simulates one. */
interface Simulated {
  limit: number;
  used: number;
  reset: number;
  secondary?: { retryAfterSeconds: number };
}

export class GitHubRateLimits {
  #simulation: Simulated | undefined;

  constructor(private readonly now: () => Date) {}

  /** Starts simulating a limit, or stops (`undefined`: unlimited again). */
  simulate(simulation: RateLimitSimulation | undefined): void {
    if (!simulation) return void (this.#simulation = undefined);
    const limit = simulation.limit ?? 5000;
    if (!Number.isInteger(simulation.remaining) || simulation.remaining < 0 || simulation.remaining > limit) throw new RangeError('remaining must be a whole number from 0 to limit');
    const reset = Math.ceil((simulation.resetAt?.getTime() ?? this.now().getTime() + 3_600_000) / 1000);
    this.#simulation = { limit, used: limit - simulation.remaining, reset, secondary: simulation.secondary };
  }

  /** The allowance as it stands. */
  current(): RateLimit {
    const simulation = this.#renewed();
    if (!simulation) return unlimitedRate();
    return { limit: simulation.limit, remaining: simulation.limit - simulation.used, used: simulation.used, reset: simulation.reset };
  }

  /** Counts one request; the refusal GitHub would answer it with when the simulated limit is reached. */
  take(): RateLimitRefusal | undefined {
    const simulation = this.#renewed();
    if (!simulation) return undefined;
    if (simulation.secondary) {
      return {
        status: 403,
        message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        documentationUrl: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
        headers: { 'retry-after': String(simulation.secondary.retryAfterSeconds) },
      };
    }
    if (simulation.used >= simulation.limit) {
      return { status: 403, message: 'API rate limit exceeded.', documentationUrl: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api', headers: {} };
    }
    simulation.used += 1;
    return undefined;
  }

  /** Gives back what `take` counted for a request that does not count after all (a conditional one answered 304). */
  refund(): void {
    const simulation = this.#renewed();
    if (simulation && !simulation.secondary && simulation.used > 0) simulation.used -= 1;
  }

  /** The simulation, its allowance renewed once its reset time has passed. */
  #renewed(): Simulated | undefined {
    const simulation = this.#simulation;
    if (simulation && !simulation.secondary && this.now().getTime() / 1000 >= simulation.reset) {
      simulation.used = 0;
      simulation.reset += 3600;
    }
    return simulation;
  }
}
