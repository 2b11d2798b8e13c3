import { randomBytes } from 'node:crypto';
import { getRequestHeader, HTTPError, HTTPResponse, type H3Event, type Middleware } from 'h3';
import type { AppContext } from '../context.js';
import { lastModifiedOf } from '../github/time.js';
import { isRepoHostError, NoSuchCommit, RepositoryMoved, RuleRefusal, type RepoHostError } from '../errors.js';
import { retryAfterOf } from '../http/retry-after.js';
import { PreparedJson } from '../answer-cache.js';
import { rememberedAnswer } from '../http/answer-cache.js';
import { formatBodies } from './body-formats.js';
import { RequestForgeryGuard } from '../http/csrf.js';
import { queryString, readLimitedText, type FormFields } from '../http/validate.js';
import { pageOf, type Page } from '../http/pagination.js';
import type { CommentOrder } from '../store/queries/issues.js';
import { RefUpdateRefused } from '../services/ref-updates.js';
import { GITHUB_API_PREFIX } from '../github/api-ids.js';
import { UPLOADS_PREFIX } from '../github/release-shapes.js';
import { unusedRate, type GitHubRateLimits, type RateCaller, type RateLimit, type RateResource } from '../github/rate-limit.js';
import { bearerJwt, clientAddress, currentUser } from '../http/auth.js';
import { parseRequestJson } from '../http/request-json.js';
import { ownValue } from '../own-value.js';

/** Where GitHub's error bodies point; the REST reference is the contract this API follows. */
export const DOCUMENTATION_URL = 'https://docs.github.com/rest';

/** One entry of a 422's `errors`, as GitHub reports validation failures. */
export interface ValidationError {
  resource: string;
  field?: string;
  code: 'missing_field' | 'invalid' | 'already_exists' | 'custom' | 'missing';
  message?: string;
  /** What a deployment's required status contexts were (GitHub's 409 when they are not all successful). */
  contexts?: ReadonlyArray<{ context: string; state: string }>;
}

/** A failure only the GitHub-compatible API has a shape for (422 `Validation Failed` with `errors`, 400 for bad JSON). */
export class GitHubApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: ValidationError[],
  ) {
    super(message);
    this.name = 'GitHubApiError';
  }
}

export const validationFailed = (...errors: ValidationError[]) => new GitHubApiError(422, 'Validation Failed', errors);
/** A refusal GitHub words itself (e.g. 422 `Update is not a fast forward`, `Reference already exists`). */
export const unprocessable = (message: string) => new GitHubApiError(422, message);

/** For `.catch`: a ref that names no commit as GitHub answers it (422 in its words, which tools look for). */
export function noCommitFor(error: unknown): never {
  throw error instanceof NoSuchCommit ? unprocessable(`No commit found for SHA: ${error.ref}`) : error;
}

/** GitHub's 422 for text over its bound (`description is too long (maximum is 140 characters)`). */
export function refuseTooLong(resource: string, field: string, value: unknown, max: number): void {
  if (typeof value === 'string' && value.length > max) throw validationFailed({ resource, code: 'custom', field, message: `${field} is too long (maximum is ${max} characters)` });
}

/** GitHub's `since` of a list (ISO 8601), as stored; a time it cannot read is a 422 of the list's resource. */
export function sinceOf(event: H3Event, resource: string): string | undefined {
  const since = queryString(event, 'since');
  if (!since) return undefined;
  const time = Date.parse(since);
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || Number.isNaN(time)) throw validationFailed({ resource, field: 'since', code: 'invalid' });
  return new Date(time).toISOString();
}

/** GitHub's `sort` (`created`, `updated`), `direction` and `since` of a list of comments. */
export function commentOrderOf(event: H3Event, resource: string): CommentOrder {
  const sort = queryString(event, 'sort') ?? 'created';
  if (sort !== 'created' && sort !== 'updated') throw validationFailed({ resource, field: 'sort', code: 'invalid' });
  // GitHub ignores `direction` without `sort` (ascending then).
  const direction = queryString(event, 'sort') === undefined ? 'asc' : (queryString(event, 'direction') ?? 'desc');
  if (direction !== 'asc' && direction !== 'desc') throw validationFailed({ resource, field: 'direction', code: 'invalid' });
  return { sort, direction, since: sinceOf(event, resource) };
}

/**
 * Refuses (422) the documented query parameters of a list that ask for more than it does: each named one, when
 * given, must be one of the values it answers as anyway (`[]`: never). GitHub's parameters are never silently ignored.
 */
export function refuseUnsupportedParams(event: H3Event, list: string, answered: Readonly<Record<string, readonly string[]>>): void {
  for (const [name, values] of Object.entries(answered)) {
    const value = queryString(event, name);
    if (value !== undefined && !values.includes(value)) throw unprocessable(`repohost does not support ${name}=${value.slice(0, 100)} on ${list}`);
  }
}

/**
 * Runs a service call whose only conflict is a name or pair already taken (a label, a repository, an open pull request
 * of the same branches), answering it as GitHub does, 422 with `error`, rather than the 409 of the spec's `/api/v1`.
 */
export async function conflictAs<T>(work: () => Promise<T>, error: () => GitHubApiError): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    if (isRepoHostError(cause) && cause.kind === 'conflict') throw error();
    throw cause;
  }
}

/** GitHub's resource names, from the path of the request (the `resource` of a 422's errors). */
const RESOURCES: ReadonlyArray<[RegExp, string]> = [
  [/\/search\//, 'Search'],
  [/\/issues\/comments|\/issues\/\d+\/comments/, 'IssueComment'],
  [/\/labels/, 'Label'],
  [/\/milestones/, 'Milestone'],
  [/\/issues/, 'Issue'],
  [/\/pulls\/\d+\/reviews/, 'PullRequestReview'],
  [/\/pulls\/comments|\/pulls\/\d+\/comments/, 'PullRequestReviewComment'],
  [/\/pulls/, 'PullRequest'],
  [/\/hooks/, 'Hook'],
  [/\/statuses/, 'Status'],
  [/\/check-runs/, 'CheckRun'],
  [/\/check-suites/, 'CheckSuite'],
  [/\/git\/(?:refs|ref\/)/, 'Reference'],
  [/\/git\/blobs/, 'Blob'],
  [/\/git\/trees/, 'Tree'],
  [/\/git\/commits/, 'Commit'],
  [/\/contents/, 'Content'],
  [/\/user\/keys/, 'PublicKey'],
  [/\/repos\/[^/]+\/[^/]+\/keys/, 'DeployKey'],
  [/\/releases\/assets|\/releases\/\d+\/assets/, 'ReleaseAsset'],
  [/\/releases/, 'Release'],
  [/\/git\/tags/, 'Tag'],
  [/\/repos|\/user\/repos/, 'Repository'],
];

function resourceOf(path: string): string {
  return RESOURCES.find(([pattern]) => pattern.test(path))?.[1] ?? 'Resource';
}

/**
 * Service field names that GitHub's requests call otherwise, by resource: an issue's or pull request's `description`
 * and `status` are its `body` and `state`, while a label's description and a check run's status keep their names.
 */
const GITHUB_FIELD: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Issue: { description: 'body', status: 'state' },
  PullRequest: { description: 'body', status: 'state', method: 'merge_method' },
  IssueComment: { text: 'body' },
  PullRequestReviewComment: { text: 'body' },
};

/**
 * A service's `invalid` refusal as GitHub's 422: messages name their field first ("title is required",
 * "color must be ..."), which becomes `field` with GitHub's code; anything else is a `custom` error with the message.
 */
function validationOf(error: RepoHostError, resource: string): ValidationError {
  const match = /^([a-z_][a-z_.]*) (is required|must\b)/.exec(error.message);
  if (!match) return { resource, code: 'custom', message: error.message };
  const names = ownValue(GITHUB_FIELD, resource);
  const field = (names && ownValue(names, match[1]!)) ?? match[1]!;
  return { resource, field, code: match[2] === 'is required' ? 'missing_field' : 'invalid', message: error.message.replace(match[1]!, field) };
}

const MESSAGES: Readonly<Record<number, string>> = { 401: 'Requires authentication', 404: 'Not Found' };

/** Any failure as GitHub's error body `{ message, documentation_url[, errors] }` with its status. */
export function githubError(error: unknown, path: string): { status: number; body: Record<string, unknown>; retryAfter?: number } {
  const cause = error instanceof HTTPError && error.cause ? error.cause : error;
  if (cause instanceof GitHubApiError) {
    return { status: cause.status, body: { message: cause.message, ...(cause.errors ? { errors: cause.errors } : {}), documentation_url: DOCUMENTATION_URL } };
  }
  if (cause instanceof RefUpdateRefused) return { status: 422, body: { message: cause.message, documentation_url: DOCUMENTATION_URL } };
  if (cause instanceof RuleRefusal) return { status: 422, body: { message: 'Unprocessable Entity', errors: [cause.message], documentation_url: DOCUMENTATION_URL } };
  if (isRepoHostError(cause)) {
    if (cause.kind === 'invalid') {
      return { status: 422, body: { message: 'Validation Failed', errors: [validationOf(cause, resourceOf(path))], documentation_url: DOCUMENTATION_URL } };
    }
    const message = MESSAGES[cause.status] ?? cause.message;
    return { status: cause.status, body: { message, documentation_url: DOCUMENTATION_URL }, retryAfter: retryAfterOf(cause) };
  }
  if (error instanceof HTTPError && !error.unhandled && error.status < 500) {
    return { status: error.status, body: { message: MESSAGES[error.status] ?? error.message, documentation_url: DOCUMENTATION_URL } };
  }
  return { status: 500, body: { message: 'Server Error', documentation_url: DOCUMENTATION_URL } };
}

/**
 * The operations whose 422 GitHub describes as `validation_failed_simple`: `errors` a list of plain messages rather
 * than objects naming resource, field and code.
 */
const SIMPLE_ERRORS: ReadonlyArray<readonly [string, RegExp]> = [
  ['PUT', /\/repos\/[^/]+\/[^/]+\/branches\/.+\/protection$/],
  ['DELETE', /\/repos\/[^/]+\/[^/]+\/deployments\/[^/]+$/],
  ['POST', /\/repos\/[^/]+\/[^/]+\/pulls\/[^/]+\/reviews$/],
  ['PUT', /\/repos\/[^/]+\/[^/]+\/pulls\/[^/]+\/reviews\/[^/]+(?:\/dismissals)?$/],
  ['DELETE', /\/repos\/[^/]+\/[^/]+\/pulls\/[^/]+\/reviews\/[^/]+$/],
  ['POST', /\/repos\/[^/]+\/[^/]+\/pulls\/[^/]+\/reviews\/[^/]+\/events$/],
  ['PUT', /\/repos\/[^/]+\/[^/]+\/topics$/],
];

const answersSimpleErrors = (method: string, path: string) => SIMPLE_ERRORS.some(([verb, pattern]) => verb === method && pattern.test(path));

function simpleErrors(body: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(body.errors)) return body;
  // The field an error is about is named in its message when the message does not name it already.
  const message = ({ field, resource, code, message: text }: ValidationError) => {
    if (text === undefined) return `${field ?? resource} is ${code}`;
    return field === undefined || text.toLowerCase().includes(field.toLowerCase()) ? text : `${field}: ${text}`;
  };
  const errors = body.errors.map((error: unknown) => (typeof error === 'string' ? error : message(error as ValidationError)));
  return { ...body, errors };
}

/** The answer for any path or method of /api/v3 that no route serves: a 404 naming it, as the issue asks. */
export function notImplemented(event: H3Event): Response {
  const path = event.url.pathname.startsWith(UPLOADS_PREFIX) ? event.url.pathname : event.url.pathname.slice(GITHUB_API_PREFIX.length) || '/';
  return githubJson(404, { message: `Not Found: repohost does not implement ${event.req.method} ${path}`, documentation_url: DOCUMENTATION_URL }, {}, event);
}

/**
 * A JSON answer built here rather than by a route (errors, the 404 of what is not implemented). h3 adds no headers set
 * on the event to an error response, so it carries GitHub's headers itself.
 */
function githubJson(status: number, body: unknown, headers: Record<string, string>, event: H3Event | undefined): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...githubHeaders(event), ...headers } });
}

/**
 * A failure on a path of /api/v3 as GitHub answers it. The envelope uses it for what its routes throw, and the app's
 * error handler for what fails before them (the request-forgery guard, the store).
 */
export function githubErrorResponse(error: unknown, event: H3Event, log: (message: string) => void): Response {
  const cause = error instanceof HTTPError && error.cause ? error.cause : error;
  if (cause instanceof RepositoryMoved) {
    // GitHub's answer for a renamed repository: 301 (307 for writes) to where it is now, which clients follow.
    const location = new URL(cause.locationFor(event.url), event.url).toString();
    return githubJson(RepositoryMoved.statusFor(event.req.method), { message: 'Moved Permanently', url: location, documentation_url: DOCUMENTATION_URL }, { location, 'cache-control': 'no-store' }, event);
  }
  const { status, body: full, retryAfter } = githubError(error, event.url.pathname);
  const body = status === 422 && answersSimpleErrors(event.req.method, event.url.pathname) ? simpleErrors(full) : full;
  // Expected refusals (a RepoHostError, a busy host's 503 included) are answers, not failures to log.
  if (status >= 500 && !isRepoHostError(error)) log(`repohost: ${event.req.method} ${event.url.pathname} failed: ${(error as Error)?.stack ?? String(error)}`);
  return githubJson(status, body, { 'cache-control': 'no-store', ...(retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) }) }, event);
}

const NOT_FOUND = Symbol.for('h3.notFound');

/**
 * GitHub's `X-GitHub-Request-Id` of the request in hand, made on first asking: five groups of hex, as GitHub's look
 * (`C0DE:1A2B3C:4D5E6F:7A8B9C:6571B2C3`); what support would ask a user for, and what logs can be searched by.
 */
function requestIdOf(event: H3Event | undefined): string {
  if (!event) return randomRequestId();
  return (event.context.githubRequestId ??= randomRequestId()) as string;
}

const randomRequestId = () => {
  const hex = randomBytes(16).toString('hex').toUpperCase();
  return `${hex.slice(0, 4)}:${hex.slice(4, 10)}:${hex.slice(10, 16)}:${hex.slice(16, 22)}:${hex.slice(22, 30)}`;
};
/** The allowance of the request in hand, as the envelope counted it (an anonymous caller's, whole, before it did). */
function rateOf(event: H3Event | undefined): RateLimit {
  return (event?.context.githubRateLimit as RateLimit | undefined) ?? unusedRate(60);
}

/** The resource a request counts against: GitHub's `search` for searches, `core` for the rest. */
const rateResourceOf = (event: H3Event | undefined): RateResource => (event?.url.pathname.startsWith(`${GITHUB_API_PREFIX}/search/`) ? 'search' : 'core');

/**
 * Who a request counts against: its app installation, its account (a token, a password or a session), or the
 * address of its client. An app's JSON web token is counted by address (it speaks for no account).
 */
export async function rateCallerOf(ctx: AppContext, event: H3Event): Promise<RateCaller> {
  const viewer = bearerJwt(event) ? undefined : await currentUser(ctx, event);
  if (viewer?.installation) return { kind: 'installation', id: String(viewer.installation.installationId) };
  if (viewer) return { kind: 'user', id: String(viewer.id) };
  return { kind: 'anonymous', id: clientAddress(event) ?? 'unknown' };
}

/**
 * The headers GitHub sends with every REST answer, failures included (401, 404, 422, ...): its media type and the
 * rate limit of the `core` resource. Clients that pace themselves (Octokit's throttling plugin, PyGithub's
 * `rate_limiting`, gh) read them from whatever answer they get.
 */
export function githubHeaders(event: H3Event | undefined): Record<string, string> {
  const rate = rateOf(event);
  return {
    'x-github-request-id': requestIdOf(event),
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': String(rate.limit),
    'x-ratelimit-remaining': String(rate.remaining),
    'x-ratelimit-used': String(rate.used),
    'x-ratelimit-reset': String(rate.reset),
    'x-ratelimit-resource': rateResourceOf(event),
    ...(event?.context.personalToken ? { 'x-oauth-scopes': PERSONAL_TOKEN_SCOPES } : {}),
  };
}

/**
 * The scopes of a personal token, as GitHub names those of a classic token: a repohost token may do whatever its
 * account may (it has no narrower kind), which GitHub's scopes for the parts repohost has say. gh prints them
 * (`gh auth status`) and checks for `repo`.
 */
const PERSONAL_TOKEN_SCOPES = 'admin:public_key, admin:repo_hook, delete_repo, notifications, repo, user';

/**
 * The REST API version whose shapes repohost answers. A client asking for another (GitHub's newer `2026-03-10`
 * included) is refused in GitHub's words rather than answered in shapes it did not ask for.
 */
const API_VERSION = '2022-11-28';
const unsupportedVersion = (version: string) =>
  `The version you specified in the "X-GitHub-API-Version" request header, ${JSON.stringify(version.slice(0, 100))}, is not a supported version. The following versions are currently supported: "${API_VERSION}" (most recent).`;

/**
 * What every /api/v3 answer carries and how it fails: GitHub's media type and rate-limit headers, errors in GitHub's
 * shape (the app's own handler keeps `/api/v1`'s), a 404 naming what is not implemented, and for JSON answers to GET
 * an ETag that `If-None-Match` turns into 304.
 */
export function githubEnvelope(ctx: AppContext, limits: GitHubRateLimits, log: (message: string) => void): Middleware {
  return async (event, next) => {
    const headers = event.res.headers;
    // Every request counts against its caller's allowance but the one that asks about it (as on GitHub).
    const caller = await rateCallerOf(ctx, event);
    const resource = rateResourceOf(event);
    const refusal = event.url.pathname === `${GITHUB_API_PREFIX}/rate_limit` ? undefined : limits.take(caller, resource);
    event.context.githubRateLimit = limits.current(caller, resource);
    if (refusal) return githubJson(refusal.status, { message: refusal.message, documentation_url: refusal.documentationUrl }, refusal.headers, event);
    const version = getRequestHeader(event, 'x-github-api-version');
    if (version !== undefined && version !== API_VERSION) return githubJson(400, { message: unsupportedVersion(version), documentation_url: DOCUMENTATION_URL }, {}, event);
    // On answers below 400 (h3 adds these to a Response a route returns); failures carry them from githubJson.
    for (const [name, value] of Object.entries(githubHeaders(event))) headers.set(name, value);
    // Paths of /api/v3 that only another part of the app matches (a web page's `/:owner/:repo`) are not this API's.
    const route = (event.context.matchedRoute as { route?: string } | undefined)?.route;
    if (route !== undefined && !route.startsWith(GITHUB_API_PREFIX) && !route.startsWith(UPLOADS_PREFIX)) return notImplemented(event);
    let result: unknown;
    try {
      result = await next();
    } catch (error) {
      headers.delete('link');
      return githubErrorResponse(error, event, log);
    }
    if (result === undefined || result === NOT_FOUND) return notImplemented(event);
    // Known once the route has read its caller.
    if (event.context.personalToken) headers.set('x-oauth-scopes', PERSONAL_TOKEN_SCOPES);
    // A prepared answer (`remembered`) is one to GET or HEAD, which answers the same headers.
    const plain = event.req.method !== 'GET' || result instanceof Response || result instanceof HTTPResponse || typeof result !== 'object' || result === null || (event.res.status ?? 200) !== 200;
    if (plain && !(result instanceof PreparedJson)) return result;
    const prepared = result instanceof PreparedJson ? result : new PreparedJson(Buffer.from(JSON.stringify(result)), lastModifiedOf(result));
    for (const [name, value] of prepared.headers) headers.set(name, value);
    const answer = withEtag(event, prepared);
    if (answer.status === 304) {
      // A conditional request answered 304 does not count against the rate limit (GitHub's rule, which clients that
      // poll with ETags rely on).
      limits.refund(caller, resource);
      event.context.githubRateLimit = limits.current(caller, resource);
      for (const [name, value] of Object.entries(githubHeaders(event))) headers.set(name, value);
    }
    return answer;
  };
}

/** A JSON answer with the weak ETag of its bytes; 304 when the client already holds it. */
function withEtag(event: H3Event, { bytes, etag, headers }: PreparedJson): Response | HTTPResponse {
  const known = getRequestHeader(event, 'if-none-match');
  const cache = { etag, 'cache-control': 'private, max-age=0, must-revalidate', vary: 'Accept, Authorization, Cookie' };
  // If-None-Match decides when sent (HTTP's rule); otherwise If-Modified-Since, against the answer's Last-Modified.
  const modified = headers.find(([name]) => name === 'last-modified')?.[1];
  const since = Date.parse(getRequestHeader(event, 'if-modified-since') ?? '');
  const unchanged = known ? known.split(',').some((tag) => tag.trim() === etag || tag.trim() === etag.slice(2)) : modified !== undefined && since >= Date.parse(modified);
  if (unchanged) return new Response(null, { status: 304, headers: cache });
  // h3's own response with the text in hand: no web stream between it and the socket (or the compression).
  return new HTTPResponse(bytes as unknown as BodyInit, { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...cache } });
}

const PROBLEMS_PARSING_JSON = 'Problems parsing JSON';

/**
 * The request body as GitHub reads it: JSON whatever the `Content-Type` says (`curl -d '{...}'` sends JSON as
 * `application/x-www-form-urlencoded`, and GitHub parses it as JSON; a form-encoded body is not JSON there either);
 * an empty body is `{}`. Unparseable text is 400 `Problems parsing JSON`. The request-forgery check of cookie-signed
 * browser requests holds as for forms: an object must carry the token, anything else cannot and is refused.
 */
async function readJsonValue(ctx: AppContext, event: H3Event): Promise<unknown> {
  let text: string;
  try {
    text = await readLimitedText(event, ctx.options.maxBodyBytes);
  } catch (error) {
    if (isRepoHostError(error) && error.kind === 'invalid') throw new GitHubApiError(400, PROBLEMS_PARSING_JSON);
    throw error;
  }
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = parseRequestJson(text);
    } catch {
      throw new GitHubApiError(400, PROBLEMS_PARSING_JSON);
    }
  }
  RequestForgeryGuard.verifyForm(event, isObject(value) ? value : {});
  return value;
}

const isObject = (value: unknown): value is FormFields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON object request body (anything else is 400 `Problems parsing JSON`); see readJsonValue. */
export async function readJson(ctx: AppContext, event: H3Event): Promise<FormFields> {
  const value = await readJsonValue(ctx, event);
  if (!isObject(value)) throw new GitHubApiError(400, PROBLEMS_PARSING_JSON);
  return value;
}

/** A JSON body that may also be a bare array (`["bug"]`, what octokit.rb and PyGithub send for an issue's labels). */
export async function readJsonOrArray(ctx: AppContext, event: H3Event): Promise<FormFields | unknown[]> {
  const value = await readJsonValue(ctx, event);
  if (!isObject(value) && !Array.isArray(value)) throw new GitHubApiError(400, PROBLEMS_PARSING_JSON);
  return value;
}

/** `rememberedAnswer` with its bodies in the formats `Accept` names. */
export async function remembered(ctx: AppContext, event: H3Event, make: () => Promise<unknown>): Promise<PreparedJson> {
  return await rememberedAnswer(ctx, event, async () => await formatBodies(ctx, event, await make()));
}

/** `page` and `per_page` as GitHub reads them, answered with GitHub's `Link` header. */
export function githubPage(ctx: AppContext, event: H3Event): Page {
  return pageOf(ctx, event, 'per_page');
}

/** 201 Created with the body. */
export function created<T>(event: H3Event, body: T): T {
  event.res.status = 201;
  // GitHub names what it made in `Location`: its API URL, which the answer's `url` is.
  const url = typeof body === 'object' && body !== null ? (body as { url?: unknown }).url : undefined;
  if (typeof url === 'string') event.res.headers.set('location', url);
  return body;
}

export const noContent = () => new Response(null, { status: 204 });

/** 202 Accepted with the body (GitHub's answer to work it finishes later; repohost's is done by then). */
export function accepted<T>(event: H3Event, body: T): T {
  event.res.status = 202;
  return body;
}

/**
 * The diff or patch an `Accept` header asks for (`application/vnd.github.diff`, or `.v3.diff` as Octokit's
 * mediaType.format sends it; the same for patch), or undefined for JSON.
 */
export function requestedDiff(event: H3Event): 'diff' | 'patch' | undefined {
  const accept = getRequestHeader(event, 'accept') ?? '';
  return /application\/vnd\.github(?:\.v3)?\.diff/.test(accept) ? 'diff' : /application\/vnd\.github(?:\.v3)?\.patch/.test(accept) ? 'patch' : undefined;
}

/** A diff or patch streamed from git, in GitHub's media type. */
export function diffResponse(kind: 'diff' | 'patch', body: import('node:stream').Readable): HTTPResponse {
  return new HTTPResponse(body as unknown as BodyInit, { headers: { 'content-type': `application/vnd.github.${kind}; charset=utf-8`, 'x-content-type-options': 'nosniff' } });
}
