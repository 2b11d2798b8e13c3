import { inList } from './in-list.js';
import type { ReadTx, WriteTx } from '../interface.js';

/**
 * The refs of a repository as the database knows them: branches (table `branches`, which the pages and pull requests
 * read) and every other ref (tags and the rest, `other_refs`), by full name.
 */
export async function recordedRefs(db: ReadTx, repoId: number): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  for (const row of await db.all<{ name: string; commit_sha: string }>('SELECT name, commit_sha FROM branches WHERE repo_id = ?', [repoId])) {
    refs.set(`refs/heads/${row.name}`, row.commit_sha);
  }
  for (const row of await db.all<{ ref: string; sha: string }>('SELECT ref, sha FROM other_refs WHERE repo_id = ?', [repoId])) refs.set(row.ref, row.sha);
  return refs;
}

/** One ref as the database knows it (see recordedRefs), or undefined. */
export async function recordedRef(db: ReadTx, repoId: number, ref: string): Promise<string | undefined> {
  if (ref.startsWith('refs/heads/')) {
    return (await db.get<{ sha: string }>('SELECT commit_sha AS sha FROM branches WHERE repo_id = ? AND name = ?', [repoId, ref.slice('refs/heads/'.length)]))?.sha;
  }
  return (await db.get<{ sha: string }>('SELECT sha FROM other_refs WHERE repo_id = ? AND ref = ?', [repoId, ref]))?.sha;
}

/** Records a ref other than a branch at `sha`, or forgets it (`sha` null). */
export async function setOtherRef(tx: WriteTx, repoId: number, ref: string, sha: string | null): Promise<void> {
  if (sha === null) await tx.run('DELETE FROM other_refs WHERE repo_id = ? AND ref = ?', [repoId, ref]);
  else await tx.run('INSERT INTO other_refs (repo_id, ref, sha) VALUES (?, ?, ?) ON CONFLICT (repo_id, ref) DO UPDATE SET sha = excluded.sha', [repoId, ref, sha]);
}

/** Notes, durably and before git moves any ref of the repository, that its refs may change; returns the intent's id. */
/** `holder`: the instance that opens it ('' when this process is the database's only one). */
export async function insertRefIntent(tx: WriteTx, repoId: number, now: string, holder: string): Promise<number> {
  return (await tx.run<{ id: number }>('INSERT INTO ref_intents (repo_id, created_at, holder) VALUES (?, ?, ?) RETURNING id', [repoId, now, holder])).rows[0]!.id;
}

/** Clears an intent once what it covered is recorded (or known not to have happened). */
export async function deleteRefIntent(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM ref_intents WHERE id = ?', [id]);
}

/** Clears every intent of a repository (its refs were just compared with git's). */
/** Clears a repository's intents: all of them, or only those of the instances named (`holders`). */
export async function deleteRefIntentsOf(tx: WriteTx, repoId: number, holders?: readonly string[]): Promise<void> {
  if (holders === undefined) {
    await tx.run('DELETE FROM ref_intents WHERE repo_id = ?', [repoId]);
    return;
  }
  if (holders.length === 0) return;
  const list = inList(holders);
  await tx.run(`DELETE FROM ref_intents WHERE repo_id = ? AND holder ${list.sql}`, [repoId, ...list.params]);
}

/** Repositories whose refs may have moved without being recorded (an intent left by a crash), or whose other refs were never read. */
export async function repositoriesToReconcile(db: ReadTx): Promise<Array<{ repo_id: number; backfill: number }>> {
  return await db.all<{ repo_id: number; backfill: number }>(
    `SELECT repo_id, MAX(backfill) AS backfill FROM (
       SELECT repo_id, 0 AS backfill FROM ref_intents
       UNION ALL SELECT repo_id, 1 AS backfill FROM ref_backfills
     ) AS pending GROUP BY repo_id ORDER BY repo_id`,
  );
}

/** The instances that left intents for the repository. */
export async function refIntentHolders(db: ReadTx, repoId: number): Promise<string[]> {
  return (await db.all<{ holder: string }>('SELECT DISTINCT holder FROM ref_intents WHERE repo_id = ? ORDER BY holder', [repoId])).map((row) => row.holder);
}

export async function deleteRefBackfill(tx: WriteTx, repoId: number): Promise<void> {
  await tx.run('DELETE FROM ref_backfills WHERE repo_id = ?', [repoId]);
}
