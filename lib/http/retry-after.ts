import { HTTPError } from 'h3';
import { isRepoHostError } from '../errors.js';

/** Seconds to wait, for failures that say when to try again (429, 503); undefined for others. */
export function retryAfterOf(error: unknown): number | undefined {
  const cause = error instanceof HTTPError ? error.cause : error;
  return isRepoHostError(cause) ? cause.retryAfterSeconds : undefined;
}
