import { invalid } from '../errors.js';

const NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
export const MAX_NAME_LENGTH = 40;
export const MAX_REPO_NAME_LENGTH = 100;

/** Top-level paths of the web app and API: a user with one of these names would shadow a route. */
export const RESERVED_USERNAMES: ReadonlySet<string> = new Set([
  'admin', 'api', 'assets', 'avatars', 'ci', 'explore', 'favicon.ico', 'help', 'login', 'logout', 'new', 'register',
  'repos', 'robots.txt', 'settings', 'static', 'user', 'users', 'org', 'orgs', 'issues', 'pulls', 'notifications',
  'search', 'git', 'healthz', 'metrics',
]);

function checkName(kind: string, name: unknown, maxLength: number): string {
  if (typeof name !== 'string' || name.length === 0) throw invalid(`${kind} is required`);
  if (name.length > maxLength) throw invalid(`${kind} must be at most ${maxLength} characters`);
  if (!NAME_PATTERN.test(name) || name.includes('..')) {
    throw invalid(`${kind} may contain only letters, digits, '-', '_' and '.', and must not start with '.' or '-'`);
  }
  return name;
}

/**
 * Names that are path segments of repository URLs: `<owner>/<name>.git` is the clone URL of `<name>`, so a name
 * ending in `.git` (or `.wiki`) would be unreachable, or make its owner's repositories unreachable.
 */
function refuseUrlSuffix(kind: string, name: string): string {
  const lower = name.toLowerCase();
  if (lower.endsWith('.git') || lower.endsWith('.wiki')) throw invalid(`${kind} must not end in .git or .wiki`);
  return name;
}

export function validateUsername(name: unknown): string {
  const username = refuseUrlSuffix('username', checkName('username', name, MAX_NAME_LENGTH));
  if (RESERVED_USERNAMES.has(username.toLowerCase())) throw invalid(`username '${username}' is reserved`);
  return username;
}

export function validateRepositoryName(name: unknown): string {
  return refuseUrlSuffix('repository name', checkName('repository name', name, MAX_REPO_NAME_LENGTH));
}

/** Name-shaped check for path segments of lookups: a name that could never exist is simply not found. */
export function isPlausibleName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_REPO_NAME_LENGTH && NAME_PATTERN.test(name) && !name.includes('..');
}
