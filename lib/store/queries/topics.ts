import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';

/** A repository's topics, in the order they were given. */
export async function topicsOf(db: ReadTx, repoId: number): Promise<string[]> {
  return (await db.all<{ name: string }>('SELECT name FROM repository_topics WHERE repo_id = ? ORDER BY position', [repoId])).map((row) => row.name);
}

/** The topics of several repositories in one query, by repository (those with none left out). */
export async function topicsOfRepositories(db: ReadTx, repoIds: readonly number[]): Promise<Map<number, string[]>> {
  const ids = inList(repoIds);
  const topics = new Map<number, string[]>();
  for (const row of await db.all<{ repo_id: number; name: string }>(`SELECT repo_id, name FROM repository_topics WHERE repo_id ${ids.sql} ORDER BY repo_id, position`, ids.params)) {
    const list = topics.get(row.repo_id);
    if (list) list.push(row.name);
    else topics.set(row.repo_id, [row.name]);
  }
  return topics;
}

/** Replaces every topic of the repository with these. */
export async function replaceTopics(tx: WriteTx, repoId: number, names: readonly string[]): Promise<void> {
  await tx.run('DELETE FROM repository_topics WHERE repo_id = ?', [repoId]);
  for (const [position, name] of names.entries()) await tx.run('INSERT INTO repository_topics (repo_id, position, name) VALUES (?, ?, ?)', [repoId, position, name]);
}
