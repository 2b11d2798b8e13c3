import { forbidden, notFound, unauthorized } from '../errors.js';
import type { ReadTx } from '../store/interface.js';
import { collaboratorPermission, collaboratorPermissions } from '../store/queries/collaborators.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { ownValue } from '../own-value.js';

/** What a caller may do with a repository, in increasing order. */
export type AccessLevel = 'none' | 'read' | 'write' | 'admin';

/**
 * What an installation token lets a GitHub App's bot do: the repositories of one account (all of them, or those
 * listed) at the level its permissions give (see apps.ts `levelOf`).
 */
export interface InstallationGrant {
  installationId: number;
  appId: number;
  accountId: number;
  /** Ids of the repositories covered; null for every repository of the account. */
  repoIds: readonly number[] | null;
  level: AccessLevel;
  /** GitHub's permission names granted → 'read' | 'write' (the token's, as `POST …/access_tokens` answered them). */
  permissions: Readonly<Record<string, string>>;
}

/** Who is asking: undefined for anonymous callers; an app's bot carries the grant of its installation token. */
export type Viewer = (UserRow & { installation?: InstallationGrant }) | undefined;

const RANK: Readonly<Record<AccessLevel, number>> = { none: 0, read: 1, write: 2, admin: 3 };

export function atLeast(level: AccessLevel, needed: AccessLevel): boolean {
  return RANK[level] >= RANK[needed];
}

/**
 * The one answer to "what may this caller do with this repository" (Gitea's GetUserRepoPermission): the owner is
 * admin, a collaborator has the permission granted, anyone (signed in or not) reads a public repository, and
 * nobody else sees a private one. Every path (API, git transport, pages) asks this, never the row itself.
 */
export async function accessLevel(db: ReadTx, viewer: Viewer, repo: RepositoryRow): Promise<AccessLevel> {
  return levelOf(viewer, repo, asksGrant(viewer, repo) ? await collaboratorPermission(db, repo.id, viewer!.id) : undefined);
}

/** `accessLevel` of several repositories (a list's), by repository id, with one query for every grant. */
export async function accessLevels(db: ReadTx, viewer: Viewer, repos: readonly RepositoryRow[]): Promise<Map<number, AccessLevel>> {
  const asked = repos.filter((repo) => asksGrant(viewer, repo)).map((repo) => repo.id);
  const granted = viewer ? await collaboratorPermissions(db, viewer.id, asked) : new Map<number, AccessLevel>();
  return new Map(repos.map((repo) => [repo.id, levelOf(viewer, repo, granted.get(repo.id))]));
}

/** Whether the viewer's level on the repository depends on what it was granted as a collaborator. */
function asksGrant(viewer: Viewer, repo: RepositoryRow): boolean {
  return viewer !== undefined && !viewer.installation && viewer.id !== repo.owner_id;
}

/** The one rule, given what the viewer was granted on the repository (see `asksGrant`). */
function levelOf(viewer: Viewer, repo: RepositoryRow, granted: AccessLevel | undefined): AccessLevel {
  if (viewer?.installation) return installationAccess(viewer.installation, repo);
  if (viewer && viewer.id === repo.owner_id) return 'admin';
  if (granted) return granted;
  return repo.is_private === 1 ? 'none' : 'read';
}

/** An app's bot: its grant on the repositories it covers; elsewhere what anyone may (public repositories are read). */
function installationAccess(grant: InstallationGrant, repo: RepositoryRow): AccessLevel {
  if (installationCovers(grant, repo)) return grant.level;
  return repo.is_private === 1 ? 'none' : 'read';
}

/** Whether the repository is one of those the installation covers. */
export function installationCovers(grant: InstallationGrant, repo: Pick<RepositoryRow, 'id' | 'owner_id'>): boolean {
  return repo.owner_id === grant.accountId && (grant.repoIds === null || grant.repoIds.includes(repo.id));
}

/**
 * Whether an app's installation may read (`read`) or change (`write`) what one of `permissions` governs in the
 * repository (`contents` for git, `issues` for issues...): the role of `accessLevel` is the widest its grant gives,
 * this is the narrower check of each request. Outside the repositories it covers it may only read (what anyone may
 * read of a public repository; a private one is hidden by `accessLevel`).
 */
export function integrationAllows(grant: InstallationGrant, repo: Pick<RepositoryRow, 'id' | 'owner_id'>, kind: 'read' | 'write', ...permissions: string[]): boolean {
  if (!installationCovers(grant, repo)) return kind === 'read';
  return permissions.some((name) => {
    const level = ownValue(grant.permissions, name);
    return level === 'write' || (kind === 'read' && level === 'read');
  });
}

/** What a deploy key may do with a repository: read (write when the key is writable) its own, nothing elsewhere. */
export function deployKeyAccess(key: { repo_id: number | null; read_only: number }, repo: RepositoryRow): AccessLevel {
  if (key.repo_id !== repo.id) return 'none';
  return key.read_only === 1 ? 'read' : 'write';
}

/** GitHub's `permissions` object of a repository for its caller. */
export function permissionFlags(level: AccessLevel): { admin: boolean; push: boolean; pull: boolean } {
  return { admin: atLeast(level, 'admin'), push: atLeast(level, 'write'), pull: atLeast(level, 'read') };
}

/**
 * Throws unless the viewer has `needed` on the repository: 404 when it cannot even see it (private repositories
 * never leak), 401 for an anonymous caller who could do more by signing in, 403 for a signed-in one who cannot.
 */
export async function requireAccess(db: ReadTx, viewer: Viewer, repo: RepositoryRow, needed: AccessLevel, message = 'Forbidden'): Promise<AccessLevel> {
  const level = await accessLevel(db, viewer, repo);
  if (atLeast(level, needed)) return level;
  if (level === 'none') throw notFound('Not found');
  if (!viewer) throw unauthorized('Unauthorized');
  throw forbidden(message);
}
