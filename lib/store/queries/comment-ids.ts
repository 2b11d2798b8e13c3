import type { WriteTx } from '../interface.js';

/*
 * Issue and pull request comments take their ids from one sequence, so a comment id names one comment of either kind
 * (GitHub's `/issues/comments/:id` serves both). The next id is kept in one row of `id_sequences` (schema version 9)
 * and taken with UPDATE … RETURNING, which both engines run: two PostgreSQL transactions taking ids queue on that row
 * (or one is retried) instead of both reading the same MAX(id) + 1. An id is never given again, a deleted comment's
 * included, as GitHub's are not: a webhook consumer that knows a comment by its id must not meet another under it.
 */

/** Takes the id of a new issue or pull request comment. */
export async function takeCommentId(tx: WriteTx): Promise<number> {
  return (await tx.run<{ id: number }>("UPDATE id_sequences SET next_id = next_id + 1 WHERE name = 'comment' RETURNING next_id - 1 AS id")).rows[0]!.id;
}
