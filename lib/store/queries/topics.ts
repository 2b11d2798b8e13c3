import type { ReadTx, WriteTx } from '../interface.js';

/** A repository's topics, in the order they were given. */
export async function topicsOf(db: ReadTx, repoId: number): Promise<string[]> {
  return (await db.all<{ name: string }>('SELECT name FROM repository_topics WHERE repo_id = ? ORDER BY position', [repoId])).map((row) => row.name);
}

/** Replaces every topic of the repository with these. */
export async function replaceTopics(tx: WriteTx, repoId: number, names: readonly string[]): Promise<void> {
  await tx.run('DELETE FROM repository_topics WHERE repo_id = ?', [repoId]);
  for (const [position, name] of names.entries()) await tx.run('INSERT INTO repository_topics (repo_id, position, name) VALUES (?, ?, ?)', [repoId, position, name]);
}
