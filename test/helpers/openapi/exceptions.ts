/**
 * Where an answer may differ from GitHub's OpenAPI description: one reviewed list, each entry with its reason and the
 * GitHub documentation it relies on. Everything else that differs fails the suite (issue 41).
 */
export interface Mismatch {
  /** `METHOD /template`. */
  operation: string;
  operationId?: string;
  status: number;
  /** The JSON pointer of the field (`/owner/login`), `header X` or '' for the whole answer. */
  field: string;
  /** The schema keyword (`required`, `type`, `format`…) or `status`, `json`, `body`, `header`, `operation`. */
  rule: string;
  message: string;
}

interface Exception {
  /** `METHOD /template`s, or `*` for every operation. */
  operations: readonly string[] | '*';
  field: RegExp;
  rules: readonly string[];
  /** Only where the mismatch's message matches (it ends with the value found: `was ""`). */
  message?: RegExp;
  reason: string;
  documentation: string;
}

/**
 * Statuses any operation may answer whether or not GitHub's description lists them for it, each with the schema its
 * body is checked against (none: no body is expected) and GitHub's documentation of it.
 */
export const ANY_OPERATION_STATUSES: ReadonlyMap<number, { schema?: string; reason: string; documentation: string }> = new Map([
  ...[301, 302, 307].map((status) => [status, { reason: "a renamed repository's old path redirects, as GitHub's does", documentation: 'https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#follow-redirects' }] as const),
  [304, { reason: 'a conditional request (If-None-Match) whose answer has not changed', documentation: 'https://docs.github.com/en/rest/using-the-rest-api/best-practices-for-using-the-rest-api#use-conditional-requests-if-appropriate' }],
  ...[400, 401, 403, 404, 409, 410, 429].map((status) => [status, { schema: 'basic-error', reason: 'a bad request, a bad token, no access, a private repository (404), a conflict or too many requests', documentation: 'https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api' }] as const),
  [422, { schema: 'validation-error', reason: 'a body or parameter refused', documentation: 'https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api' }],
  ...[413, 414].map((status) => [status, { schema: 'basic-error', reason: "repohost's limit on every body and URL (GitHub has limits of its own, undocumented per operation)", documentation: 'https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api' }] as const),
  [415, { schema: 'basic-error', reason: 'a media type (Accept or Content-Type) the operation does not serve', documentation: 'https://docs.github.com/en/rest/using-the-rest-api/getting-started-with-the-rest-api#media-types' }],
  [503, { schema: 'basic-error', reason: 'a repository busy with another write past the wait (GitHub lists 503 for many operations)', documentation: 'https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api' }],
]);

const REVIEW_COMMENTS = [
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments',
  'GET /repos/{owner}/{repo}/pulls/comments',
  'GET /repos/{owner}/{repo}/pulls/comments/{comment_id}',
  'PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}',
];
const DEPLOYMENT_STATUSES = [
  'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
  'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
  'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses/{status_id}',
];

export const EXCEPTIONS: readonly Exception[] = [
  {
    operations: REVIEW_COMMENTS,
    field: /(?:^|\/)(?:position|original_position|line|original_line)$/,
    rules: ['type'],
    message: /was null/,
    reason:
      "A comment on a whole file (`subject_type: file`) has no line, and an outdated one no position: GitHub answers null there. Its REST description types them integer only; its webhook description of the same comment (pull_request_review_comment) makes them nullable.",
    documentation: 'https://docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request_review_comment',
  },
  {
    operations: DEPLOYMENT_STATUSES,
    field: /(?:^|\/)(?:target_url|log_url|environment_url)$/,
    rules: ['format'],
    message: /was ""/,
    reason: 'A URL the status was not given is the empty string, the default GitHub documents for each of them in the request; its answer schema still says `format: uri`.',
    documentation: 'https://docs.github.com/en/rest/deployments/statuses#create-a-deployment-status',
  },
  {
    operations: ['GET /search/issues'],
    field: /^\/items\/\d+\/body$/,
    rules: ['type'],
    message: /was null/,
    reason: "An issue without a body: GitHub's issue answers have `body: null` (nullable in its `issue` schema) and a search hit is the same issue; only `issue-search-result-item` types it string.",
    documentation: 'https://docs.github.com/en/rest/search/search#search-issues-and-pull-requests',
  },
  {
    operations: ['GET /app/installations'],
    field: /^\/\d+\/account$/,
    rules: ['required', 'type', 'anyOf'],
    // Only the enterprise half and the alternatives it fails: a user's own fields are still checked (`allOf/0`).
    message: /allOf\/1\/|anyOf\/1\/type\)$|account\/anyOf\)$/,
    reason:
      "This operation's description makes an account both a user and an enterprise (`allOf`), where GitHub's `installation` schema (every other installation answer) says one of them (`anyOf`); an account is a user here, as on GitHub.",
    documentation: 'https://docs.github.com/en/rest/apps/apps#list-installations-for-the-authenticated-app',
  },
  {
    operations: '*',
    field: /^$/,
    rules: ['oneOf'],
    reason:
      "Some errors are described as exactly one of `basic-error` (or `validation-error`) and `repository-rule-violation-error`, whose required fields one error body fills for both: a body valid for each fails `oneOf`. The body is still checked against each (an `anyOf` would pass it).",
    documentation: 'https://docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api',
  },
];

const used = new Set<Exception>();

export function excepted(mismatch: Mismatch): boolean {
  const exception = EXCEPTIONS.find(
    (entry) =>
      (entry.operations === '*' || entry.operations.includes(mismatch.operation)) &&
      entry.rules.includes(mismatch.rule) &&
      entry.field.test(mismatch.field) &&
      (entry.message === undefined || entry.message.test(mismatch.message)),
  );
  if (exception) used.add(exception);
  return exception !== undefined;
}

/** The exceptions some answer of this process needed, by index into EXCEPTIONS. */
export const usedExceptions = () => [...used].map((entry) => EXCEPTIONS.indexOf(entry));
