import { HTTPError } from 'h3';
import { TooManyAttemptsError } from '../services/login-throttle.js';

/** Seconds to wait, for failures that say when to try again (429); undefined for others. */
export function retryAfterOf(error: unknown): number | undefined {
  const cause = error instanceof HTTPError ? error.cause : error;
  return cause instanceof TooManyAttemptsError ? cause.retryAfterSeconds : undefined;
}
