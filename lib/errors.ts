/** The kinds of failure a service may report; the HTTP layer maps each to one status. */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'not_allowed'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unsupported'
  | 'unavailable'
  | 'moved';

/** HTTP status for each error kind: the one mapping used by the whole app. */
export const STATUS_BY_KIND: Readonly<Record<ErrorKind, number>> = Object.freeze({
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_allowed: 405,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unsupported: 415,
  unavailable: 503,
  moved: 301,
});

/** An expected failure with a message that is safe to show to the client. */
export class RepoHostError extends Error {
  readonly kind: ErrorKind;
  /** For refusals that pass (429, 503): when to try again, sent as `Retry-After`. */
  readonly retryAfterSeconds: number | undefined;
  constructor(kind: ErrorKind, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'RepoHostError';
    this.kind = kind;
    this.retryAfterSeconds = retryAfterSeconds;
  }
  get status(): number {
    return STATUS_BY_KIND[this.kind];
  }
}

/**
 * A repository asked for by a former name (it was renamed): every layer answers with a redirect to the same path under
 * its new name (301 for reads, 307 for other methods, so they are sent again as they were).
 */
export class RepositoryMoved extends RepoHostError {
  constructor(
    readonly from: { owner: string; name: string },
    readonly to: { owner_name: string; name: string },
  ) {
    super('moved', 'Moved Permanently');
    this.name = 'RepositoryMoved';
  }

  /** The request's URL (path and query) with the repository's old name replaced by its new one. */
  locationFor(url: URL): string {
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const segment = new RegExp(`/${escape(encodeURIComponent(this.from.owner))}/${escape(encodeURIComponent(this.from.name))}(?=\\.git(?:/|$)|/|$)`, 'i');
    return `${url.pathname.replace(segment, `/${encodeURIComponent(this.to.owner_name)}/${encodeURIComponent(this.to.name)}`)}${url.search}`;
  }

  /** 301 for GET and HEAD; 307 keeps the method and body of anything else. */
  static statusFor(method: string): 301 | 307 {
    return method === 'GET' || method === 'HEAD' ? 301 : 307;
  }
}

/**
 * A ref or commit id that names no commit of the repository: 404 with the service's message; GitHub's API answers it
 * 422 `No commit found for SHA: <ref>` (github-api/http.ts, `noCommitFor`).
 */
export class NoSuchCommit extends RepoHostError {
  constructor(
    readonly ref: string,
    message: string,
  ) {
    super('not_found', message);
    this.name = 'NoSuchCommit';
  }
}

export const invalid = (message: string) => new RepoHostError('invalid', message);

/**
 * A request refused by a rule GitHub states in its own words (`Can not approve your own pull request`): invalid on
 * every surface, and on `/api/v3` GitHub's 422 `Unprocessable Entity` with those words as its one error, which bots
 * match.
 */
export class RuleRefusal extends RepoHostError {
  constructor(message: string) {
    super('invalid', message);
    this.name = 'RuleRefusal';
  }
}
export const refusedByRule = (message: string) => new RuleRefusal(message);
export const unauthorized = (message = 'Unauthorized') => new RepoHostError('unauthorized', message);
export const forbidden = (message = 'Forbidden') => new RepoHostError('forbidden', message);
export const notFound = (message = 'Not found') => new RepoHostError('not_found', message);
export const conflict = (message: string) => new RepoHostError('conflict', message);
/** The action is understood but cannot be done to this resource in its state (a pull request that cannot merge). */
export const notAllowed = (message: string) => new RepoHostError('not_allowed', message);
export const tooLarge = (message: string) => new RepoHostError('too_large', message);
export const unsupported = (message: string) => new RepoHostError('unsupported', message);
export const unavailable = (message: string, retryAfterSeconds?: number) => new RepoHostError('unavailable', message, retryAfterSeconds);

export function isRepoHostError(error: unknown): error is RepoHostError {
  return error instanceof RepoHostError;
}
