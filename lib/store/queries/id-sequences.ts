import type { WriteTx } from '../interface.js';

/*
 * Ids that are never given twice, on either engine. SQLite gives a rowid table's next row MAX(id) + 1, so deleting the
 * newest row frees its id for the next one; PostgreSQL's identities never go back. Where an id leaves the database
 * (in a signed token, a URL, a webhook consumer's records), a second thing under the same id would be taken for the
 * first: an LFS token for a deleted repository and deploy key opened the next ones (issue 38). Such tables take their
 * ids from one row each of `id_sequences`, with UPDATE … RETURNING, which both engines run: two PostgreSQL
 * transactions taking ids queue on that row (or one is retried) instead of both reading the same MAX(id) + 1.
 *
 * - `comment`: issue and pull request comments share one sequence (schema version 9), so a comment id names one
 *   comment of either kind (GitHub's `/issues/comments/:id` serves both).
 * - `repository`, `ssh_key`, `installation` (schema version 27): what LFS tokens name, and what apps know
 *   installations by (GitHub never gives an installation's id to another).
 */
export type IdSequence = 'comment' | 'repository' | 'ssh_key' | 'installation';

/** Takes the next id of a sequence. */
export async function takeId(tx: WriteTx, sequence: IdSequence): Promise<number> {
  return (await tx.run<{ id: number }>('UPDATE id_sequences SET next_id = next_id + 1 WHERE name = ? RETURNING next_id - 1 AS id', [sequence])).rows[0]!.id;
}
