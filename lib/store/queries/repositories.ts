import type { ReadTx, WriteTx } from '../interface.js';
import { addHooksOfNewRepository, forgetRepositoryInTokens } from './apps.js';
import { takeId } from './id-sequences.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import { readableBy } from './readable.js';

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
  /** When a ref of it last moved (its creation until then): GitHub's `pushed_at`. */
  pushed_at: string;
}

// The owner's name by a scalar subquery rather than a join: every repository request looks one up, and on sql.js a
// statement over two joined tables costs a fixed ~10 µs more (a lookup by full name took ~16 µs joined, ~4 µs so).
const SELECT = `SELECT r.id, r.owner_id, (SELECT username FROM users WHERE id = r.owner_id) AS owner_name, r.name, r.description,
  r.is_private, r.default_branch, r.created_at, r.updated_at, r.pushed_at FROM repositories r`;

export async function repositoryById(db: ReadTx, id: number): Promise<RepositoryRow | undefined> {
  return await db.get<RepositoryRow>(`${SELECT} WHERE r.id = ?`, [id]);
}

/** The repositories with these ids that exist, in id order: one query. */
export async function repositoriesWithIds(db: ReadTx, ids: readonly number[]): Promise<RepositoryRow[]> {
  if (ids.length === 0) return [];
  const list = inList([...new Set(ids)]);
  return await db.all<RepositoryRow>(`${SELECT} WHERE r.id ${list.sql} ORDER BY r.id`, list.params);
}

export async function repositoryExists(db: ReadTx, id: number): Promise<boolean> {
  return await db.get('SELECT 1 AS found FROM repositories WHERE id = ?', [id]) !== undefined;
}

/** Names are unique per owner regardless of case. */
export async function repositoryByName(db: ReadTx, ownerId: number, name: string): Promise<RepositoryRow | undefined> {
  return await db.get<RepositoryRow>(`${SELECT} WHERE r.owner_id = ? AND r.name_lower = ?`, [ownerId, name.toLowerCase()]);
}

/** The repository `owner/name`, both names regardless of case, in one query. */
export async function repositoryByFullName(db: ReadTx, ownerName: string, name: string): Promise<RepositoryRow | undefined> {
  return await db.get<RepositoryRow>(`${SELECT} WHERE r.owner_id = (SELECT id FROM users WHERE username_lower = ?) AND r.name_lower = ?`, [
    ownerName.toLowerCase(),
    name.toLowerCase(),
  ]);
}

const READABLE_BY = `r.owner_id = ? AND ${readableBy('?')}`;

/** The owner's repositories that `viewerId` may read: public ones, and private ones it owns or collaborates on. */
export async function repositoriesOfOwner(db: ReadTx, ownerId: number, viewerId: number | undefined, page: PageWindow): Promise<RepositoryRow[]> {
  return await db.all<RepositoryRow>(`${SELECT} WHERE ${READABLE_BY} ORDER BY r.name_lower LIMIT ? OFFSET ?`, [ownerId, viewerId ?? 0, viewerId ?? 0, page.limit, page.offset]);
}

/** How many public and private repositories an account owns (GitHub's `public_repos`, `owned_private_repos`). */
export async function repositoryCountsOfOwner(db: ReadTx, ownerId: number): Promise<{ public: number; private: number }> {
  const counts = await db.get<{ open: number | null; closed: number | null }>(
    'SELECT SUM(CASE WHEN is_private = 0 THEN 1 ELSE 0 END) AS open, SUM(CASE WHEN is_private = 1 THEN 1 ELSE 0 END) AS closed FROM repositories WHERE owner_id = ?',
    [ownerId],
  );
  return { public: Number(counts?.open ?? 0), private: Number(counts?.closed ?? 0) };
}

export async function countRepositoriesOfOwner(db: ReadTx, ownerId: number, viewerId: number | undefined): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM repositories r WHERE ${READABLE_BY}`, [ownerId, viewerId ?? 0, viewerId ?? 0]))!.n;
}

/** `LIKE` pattern matching names that contain `text` (its own `%`, `_` and backslash taken literally). */
const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** Public repositories whose name contains `search` (all for ''), newest first. */
export async function publicRepositories(db: ReadTx, search: string, page: PageWindow): Promise<RepositoryRow[]> {
  return await db.all<RepositoryRow>(`${SELECT} WHERE r.is_private = 0 AND r.name_lower LIKE ? ESCAPE '\\' ORDER BY r.created_at DESC, r.id DESC LIMIT ? OFFSET ?`, [
    containing(search),
    page.limit,
    page.offset,
  ]);
}

export async function countPublicRepositories(db: ReadTx, search: string): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM repositories r WHERE r.is_private = 0 AND r.name_lower LIKE ? ESCAPE '\\'`, [containing(search)]))!.n;
}

export async function insertRepository(
  tx: WriteTx,
  repo: { ownerId: number; name: string; description: string; isPrivate: boolean; defaultBranch: string; now: string },
): Promise<number> {
  const id = await takeId(tx, 'repository');
  await tx.run(
    `INSERT INTO repositories (id, owner_id, name, name_lower, description, is_private, default_branch, created_at, updated_at, pushed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [id, repo.ownerId, repo.name, repo.name.toLowerCase(), repo.description, repo.isPrivate ? 1 : 0, repo.defaultBranch, repo.now, repo.now, repo.now],
  );
  // Apps installed on all of the owner's repositories hear of this one too.
  await addHooksOfNewRepository(tx, id, repo.ownerId, repo.now);
  return id;
}

/**
 * Deletes the repository and, by ON DELETE CASCADE, everything of it: issues, pull requests and their comments, its
 * rows of `list_counts`. Its id and its comments' ids are never given again (see id-sequences.ts).
 */
export async function deleteRepository(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM repositories WHERE id = ?', [id]);
  await forgetRepositoryInTokens(tx, id);
}

/**
 * Renames the repository; its old name redirects to it from now on (unless only its case changed), and a redirect of
 * the new name ends (the name is taken again).
 */
export async function renameRepository(tx: WriteTx, id: number, name: string, now: string): Promise<void> {
  const before = await tx.get<{ owner_id: number; name_lower: string }>('SELECT owner_id, name_lower FROM repositories WHERE id = ?', [id]);
  await tx.run('UPDATE repositories SET name = ?, name_lower = ?, updated_at = ? WHERE id = ?', [name, name.toLowerCase(), now, id]);
  if (!before) return;
  await dropRedirect(tx, before.owner_id, name);
  if (before.name_lower !== name.toLowerCase()) {
    await tx.run(
      `INSERT INTO repository_redirects (owner_id, name_lower, repo_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (owner_id, name_lower) DO UPDATE SET repo_id = excluded.repo_id, created_at = excluded.created_at`,
      [before.owner_id, before.name_lower, id, now],
    );
  }
}

/** Ends the redirect of a name (a repository of that name exists again). */
export async function dropRedirect(tx: WriteTx, ownerId: number, name: string): Promise<void> {
  await tx.run('DELETE FROM repository_redirects WHERE owner_id = ? AND name_lower = ?', [ownerId, name.toLowerCase()]);
}

/** The repository a former name `owner/name` leads to, if it was renamed and the name not taken since. */
export async function redirectedRepository(db: ReadTx, ownerName: string, name: string): Promise<RepositoryRow | undefined> {
  return await db.get<RepositoryRow>(
    `${SELECT} JOIN repository_redirects d ON d.repo_id = r.id JOIN users o ON o.id = d.owner_id WHERE o.username_lower = ? AND d.name_lower = ?`,
    [ownerName.toLowerCase(), name.toLowerCase()],
  );
}

export async function setRepositoryDetails(tx: WriteTx, id: number, details: { description: string; isPrivate: boolean }, now: string): Promise<void> {
  await tx.run('UPDATE repositories SET description = ?, is_private = ?, updated_at = ? WHERE id = ?', [details.description, details.isPrivate ? 1 : 0, now, id]);
}

export async function setDefaultBranch(tx: WriteTx, id: number, branch: string, now: string): Promise<void> {
  await tx.run('UPDATE repositories SET default_branch = ?, updated_at = ? WHERE id = ?', [branch, now, id]);
}

/**
 * The repository's next issue or pull request number, taken (both share one sequence, as on GitHub and Gitea);
 * undefined when there is no such repository.
 */
export async function takeNextNumber(tx: WriteTx, repoId: number): Promise<number | undefined> {
  return (await tx.run<{ number: number }>('UPDATE repositories SET next_number = next_number + 1 WHERE id = ? RETURNING next_number - 1 AS number', [repoId]))
    .rows[0]?.number;
}

export interface BranchRow {
  name: string;
  commit_sha: string;
}

export async function branchesOf(db: ReadTx, repoId: number, page: PageWindow): Promise<BranchRow[]> {
  return await db.all<BranchRow>('SELECT name, commit_sha FROM branches WHERE repo_id = ? ORDER BY name LIMIT ? OFFSET ?', [repoId, page.limit, page.offset]);
}

export async function countBranchesOf(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM branches WHERE repo_id = ?', [repoId]))!.n;
}

export async function branchTip(db: ReadTx, repoId: number, name: string): Promise<string | undefined> {
  return (await db.get<{ commit_sha: string }>('SELECT commit_sha FROM branches WHERE repo_id = ? AND name = ?', [repoId, name]))?.commit_sha;
}

/** The commits several branches point to, by name, in one statement (a branch not recorded is left out). */
export async function branchTipsNamed(db: ReadTx, repoId: number, names: readonly string[]): Promise<Map<string, string>> {
  const list = inList([...new Set(names)]);
  const rows = await db.all<{ name: string; commit_sha: string }>(`SELECT name, commit_sha FROM branches WHERE repo_id = ? AND name ${list.sql}`, [repoId, ...list.params]);
  return new Map(rows.map((row) => [row.name, row.commit_sha]));
}

/** Notes that refs of the repository moved (GitHub's `pushed_at`). */
export async function markPushed(tx: WriteTx, repoId: number, now: string): Promise<void> {
  await tx.run('UPDATE repositories SET pushed_at = ? WHERE id = ?', [now, repoId]);
}

export async function upsertBranch(tx: WriteTx, repoId: number, name: string, commitSha: string, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO branches (repo_id, name, commit_sha, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (repo_id, name) DO UPDATE SET commit_sha = excluded.commit_sha, updated_at = excluded.updated_at`,
    [repoId, name, commitSha, now],
  );
}

export async function deleteBranch(tx: WriteTx, repoId: number, name: string): Promise<void> {
  await tx.run('DELETE FROM branches WHERE repo_id = ? AND name = ?', [repoId, name]);
}

/** The branches whose tip is `sha`, by name. */
export async function branchesAt(db: ReadTx, repoId: number, sha: string): Promise<string[]> {
  return (await db.all<{ name: string }>('SELECT name FROM branches WHERE repo_id = ? AND commit_sha = ? ORDER BY name', [repoId, sha])).map((row) => row.name);
}
