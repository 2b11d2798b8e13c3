import type { ReadTx, WriteTx } from '../database.js';
import { commentIdsReleased } from './comment-ids.js';
import type { PageWindow } from './page-window.js';

export interface RepositoryRow {
  id: number;
  owner_id: number;
  owner_name: string;
  name: string;
  description: string;
  is_private: number;
  default_branch: string;
  created_at: string;
  updated_at: string;
}

const SELECT = `SELECT r.id, r.owner_id, u.username AS owner_name, r.name, r.description, r.is_private, r.default_branch,
  r.created_at, r.updated_at FROM repositories r JOIN users u ON u.id = r.owner_id`;

export function repositoryById(db: ReadTx, id: number): RepositoryRow | undefined {
  return db.get<RepositoryRow>(`${SELECT} WHERE r.id = ?`, [id]);
}

export function repositoryExists(db: ReadTx, id: number): boolean {
  return db.get('SELECT 1 AS found FROM repositories WHERE id = ?', [id]) !== undefined;
}

/** Names are unique per owner regardless of case. */
export function repositoryByName(db: ReadTx, ownerId: number, name: string): RepositoryRow | undefined {
  return db.get<RepositoryRow>(`${SELECT} WHERE r.owner_id = ? AND r.name_lower = ?`, [ownerId, name.toLowerCase()]);
}

/** The repository `owner/name`, both names regardless of case, in one query. */
export function repositoryByFullName(db: ReadTx, ownerName: string, name: string): RepositoryRow | undefined {
  return db.get<RepositoryRow>(`${SELECT} WHERE u.username_lower = ? AND r.name_lower = ?`, [ownerName.toLowerCase(), name.toLowerCase()]);
}

const READABLE_BY = `r.owner_id = ? AND (r.is_private = 0 OR r.owner_id = ?
  OR EXISTS (SELECT 1 FROM collaborators c WHERE c.repo_id = r.id AND c.user_id = ?))`;

/** The owner's repositories that `viewerId` may read: public ones, and private ones it owns or collaborates on. */
export function repositoriesOfOwner(db: ReadTx, ownerId: number, viewerId: number | undefined, page: PageWindow): RepositoryRow[] {
  return db.all<RepositoryRow>(`${SELECT} WHERE ${READABLE_BY} ORDER BY r.name_lower LIMIT ? OFFSET ?`, [ownerId, viewerId ?? 0, viewerId ?? 0, page.limit, page.offset]);
}

export function countRepositoriesOfOwner(db: ReadTx, ownerId: number, viewerId: number | undefined): number {
  return db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM repositories r WHERE ${READABLE_BY}`, [ownerId, viewerId ?? 0, viewerId ?? 0])!.n;
}

/** `LIKE` pattern matching names that contain `text` (its own `%`, `_` and backslash taken literally). */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** Public repositories whose name contains `search` (all for ''), newest first. */
export function publicRepositories(db: ReadTx, search: string, page: PageWindow): RepositoryRow[] {
  return db.all<RepositoryRow>(`${SELECT} WHERE r.is_private = 0 AND r.name_lower LIKE ? ESCAPE '\\' ORDER BY r.created_at DESC, r.id DESC LIMIT ? OFFSET ?`, [
    containing(search),
    page.limit,
    page.offset,
  ]);
}

export function countPublicRepositories(db: ReadTx, search: string): number {
  return db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM repositories r WHERE r.is_private = 0 AND r.name_lower LIKE ? ESCAPE '\\'`, [containing(search)])!.n;
}

export function insertRepository(
  tx: WriteTx,
  repo: { ownerId: number; name: string; description: string; isPrivate: boolean; defaultBranch: string; now: string },
): number {
  return tx.run<{ id: number }>(
    `INSERT INTO repositories (owner_id, name, name_lower, description, is_private, default_branch, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [repo.ownerId, repo.name, repo.name.toLowerCase(), repo.description, repo.isPrivate ? 1 : 0, repo.defaultBranch, repo.now, repo.now],
  ).rows[0]!.id;
}

/**
 * Deletes the repository and, by ON DELETE CASCADE, everything of it: issues, pull requests and their comments, its
 * rows of `list_counts`. The comment id sequence then follows the newest comment left (see comment-ids.ts).
 */
export function deleteRepository(tx: WriteTx, id: number): void {
  tx.run('DELETE FROM repositories WHERE id = ?', [id]);
  commentIdsReleased(tx);
}

export function renameRepository(tx: WriteTx, id: number, name: string, now: string): void {
  tx.run('UPDATE repositories SET name = ?, name_lower = ?, updated_at = ? WHERE id = ?', [name, name.toLowerCase(), now, id]);
}

export function setRepositoryDetails(tx: WriteTx, id: number, details: { description: string; isPrivate: boolean }, now: string): void {
  tx.run('UPDATE repositories SET description = ?, is_private = ?, updated_at = ? WHERE id = ?', [details.description, details.isPrivate ? 1 : 0, now, id]);
}

export function setDefaultBranch(tx: WriteTx, id: number, branch: string, now: string): void {
  tx.run('UPDATE repositories SET default_branch = ?, updated_at = ? WHERE id = ?', [branch, now, id]);
}

/** Issues and pull requests share one number sequence per repository, as on GitHub and Gitea. */
export function takeNextNumber(tx: WriteTx, repoId: number): number {
  return tx.run<{ number: number }>('UPDATE repositories SET next_number = next_number + 1 WHERE id = ? RETURNING next_number - 1 AS number', [repoId])
    .rows[0]!.number;
}

export interface BranchRow {
  name: string;
  commit_sha: string;
}

export function branchesOf(db: ReadTx, repoId: number, page: PageWindow): BranchRow[] {
  return db.all<BranchRow>('SELECT name, commit_sha FROM branches WHERE repo_id = ? ORDER BY name LIMIT ? OFFSET ?', [repoId, page.limit, page.offset]);
}

export function countBranchesOf(db: ReadTx, repoId: number): number {
  return db.get<{ n: number }>('SELECT COUNT(*) AS n FROM branches WHERE repo_id = ?', [repoId])!.n;
}

export function branchTip(db: ReadTx, repoId: number, name: string): string | undefined {
  return db.get<{ commit_sha: string }>('SELECT commit_sha FROM branches WHERE repo_id = ? AND name = ?', [repoId, name])?.commit_sha;
}

export function upsertBranch(tx: WriteTx, repoId: number, name: string, commitSha: string, now: string): void {
  tx.run(
    `INSERT INTO branches (repo_id, name, commit_sha, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (repo_id, name) DO UPDATE SET commit_sha = excluded.commit_sha, updated_at = excluded.updated_at`,
    [repoId, name, commitSha, now],
  );
}

export function deleteBranch(tx: WriteTx, repoId: number, name: string): void {
  tx.run('DELETE FROM branches WHERE repo_id = ? AND name = ?', [repoId, name]);
}

/** The branches whose tip is `sha`, by name. */
export function branchesAt(db: ReadTx, repoId: number, sha: string): string[] {
  return db.all<{ name: string }>('SELECT name FROM branches WHERE repo_id = ? AND commit_sha = ? ORDER BY name', [repoId, sha]).map((row) => row.name);
}
