/** A time as `toISOString()` writes it (how repohost stores every one). */
const STORED = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/**
 * A timestamp as GitHub writes every one in its REST answers and webhook payloads: ISO 8601 in UTC to the whole
 * second, `2026-11-24T17:26:36Z`. repohost stores milliseconds (`2026-11-24T17:26:36.890Z`, what the spec's
 * `/api/v1` answers show); clients written for GitHub parse only GitHub's form (PyGithub's parser refuses the
 * fraction). The fraction is dropped, never rounded up, so a time never moves past the moment it records. Anything
 * that is not a date is returned as it is.
 */
export function githubTime(value: string): string;
export function githubTime(value: string | null): string | null;
export function githubTime(value: string | null | undefined): string | null | undefined;
export function githubTime(value: string | null | undefined): string | null | undefined {
  if (value === null || value === undefined) return value;
  // What repohost stores (`toISOString()`): the fraction cut off as it stands, without parsing a date (lists shape many).
  if (STORED.test(value)) return `${value.slice(0, 19)}Z`;
  const millis = Date.parse(value);
  if (Number.isNaN(millis)) return value;
  return new Date(millis - (((millis % 1000) + 1000) % 1000)).toISOString().replace(/\.000Z$/, 'Z');
}

/**
 * HTTP's `Last-Modified` of an answer, as GitHub sends it: an object's `updated_at`, as an HTTP date (a list has
 * none). `If-Modified-Since` at or after it answers 304 (lib/github-api/http.ts).
 */
export function lastModifiedOf(answer: unknown): Array<readonly [string, string]> {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return [];
  const updated = (answer as { updated_at?: unknown }).updated_at;
  const millis = typeof updated === 'string' ? Date.parse(updated) : Number.NaN;
  return Number.isNaN(millis) ? [] : [['last-modified', new Date(millis).toUTCString()]];
}
