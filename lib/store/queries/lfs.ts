import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';

/** A lock of the Git LFS locking API: one path of one repository, held by one account. */
export interface LfsLockRow {
  id: number;
  repo_id: number;
  path: string;
  owner_id: number;
  owner_name: string;
  created_at: string;
}

const LOCK = `SELECT l.id, l.repo_id, l.path, l.owner_id, u.username AS owner_name, l.created_at FROM lfs_locks l JOIN users u ON u.id = l.owner_id`;

/** Which of `oids` the repository holds, with their sizes: one query. */
export async function lfsObjectsAmong(db: ReadTx, repoId: number, oids: readonly string[]): Promise<Map<string, number>> {
  if (oids.length === 0) return new Map();
  const list = inList([...new Set(oids)]);
  const rows = await db.all<{ oid: string; size: number }>(`SELECT oid, size FROM lfs_objects WHERE repo_id = ? AND oid ${list.sql}`, [repoId, ...list.params]);
  return new Map(rows.map((row) => [row.oid, row.size]));
}

/** The bytes of LFS objects the repository holds. */
export async function lfsBytesOf(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number | null }>('SELECT SUM(size) AS n FROM lfs_objects WHERE repo_id = ?', [repoId]))?.n ?? 0;
}

export async function insertLfsObject(tx: WriteTx, repoId: number, oid: string, size: number, now: string): Promise<void> {
  await tx.run('INSERT INTO lfs_objects (repo_id, oid, size, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (repo_id, oid) DO NOTHING', [repoId, oid, size, now]);
}

export async function lfsLockByPath(db: ReadTx, repoId: number, path: string): Promise<LfsLockRow | undefined> {
  return await db.get<LfsLockRow>(`${LOCK} WHERE l.repo_id = ? AND l.path = ?`, [repoId, path]);
}

export async function lfsLockById(db: ReadTx, repoId: number, id: number): Promise<LfsLockRow | undefined> {
  return await db.get<LfsLockRow>(`${LOCK} WHERE l.repo_id = ? AND l.id = ?`, [repoId, id]);
}

/** Locks after `afterId` in id order, at most `limit`, of one path when given. */
export async function lfsLocks(db: ReadTx, repoId: number, filter: { path?: string; afterId: number; limit: number }): Promise<LfsLockRow[]> {
  if (filter.path !== undefined) return await db.all<LfsLockRow>(`${LOCK} WHERE l.repo_id = ? AND l.path = ? AND l.id > ? ORDER BY l.id LIMIT ?`, [repoId, filter.path, filter.afterId, filter.limit]);
  return await db.all<LfsLockRow>(`${LOCK} WHERE l.repo_id = ? AND l.id > ? ORDER BY l.id LIMIT ?`, [repoId, filter.afterId, filter.limit]);
}

/** Inserts the lock; undefined when the path is locked already. */
export async function insertLfsLock(tx: WriteTx, repoId: number, path: string, ownerId: number, now: string): Promise<number | undefined> {
  if (await lfsLockByPath(tx, repoId, path)) return undefined;
  return (await tx.run<{ id: number }>('INSERT INTO lfs_locks (repo_id, path, owner_id, created_at) VALUES (?, ?, ?, ?) RETURNING id', [repoId, path, ownerId, now])).rows[0]!.id;
}

export async function deleteLfsLock(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM lfs_locks WHERE id = ?', [id]);
}
