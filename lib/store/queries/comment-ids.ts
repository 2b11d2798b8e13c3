import type { WriteTx } from '../interface.js';

/*
 * Issue and pull request comments take their ids from one sequence, so a comment id names one comment of either kind
 * (GitHub's `/issues/comments/:id` serves both). The next id is kept in one row of `id_sequences` (schema version 9)
 * and taken with UPDATE … RETURNING, which both engines run: two PostgreSQL transactions taking ids queue on that row
 * (or one is retried) instead of both reading the same MAX(id) + 1. The row always holds the newest comment id + 1,
 * the id the first releases computed from the rows, so ids stay exactly as they were: deleting the newest comment
 * gives its id to the next one, as MAX(id) + 1 did.
 */

/** The newest comment id of either kind + 1 (1 without comments). */
const AFTER_NEWEST = `(SELECT COALESCE(MAX(id), 0) + 1 FROM (
  SELECT MAX(id) AS id FROM issue_comments UNION ALL SELECT MAX(id) AS id FROM pull_comments) AS newest)`;

/** Takes the id of a new issue or pull request comment. */
export async function takeCommentId(tx: WriteTx): Promise<number> {
  return (await tx.run<{ id: number }>("UPDATE id_sequences SET next_id = next_id + 1 WHERE name = 'comment' RETURNING next_id - 1 AS id")).rows[0]!.id;
}

/** After comment `id` was deleted: when it was the newest, the sequence steps back to the newest left + 1. */
export async function commentIdReleased(tx: WriteTx, id: number): Promise<void> {
  await tx.run(`UPDATE id_sequences SET next_id = ${AFTER_NEWEST} WHERE name = 'comment' AND next_id = ?`, [id + 1]);
}

/** After comments were deleted in bulk (a repository's, by cascade): the sequence follows the newest left. */
export async function commentIdsReleased(tx: WriteTx): Promise<void> {
  await tx.run(`UPDATE id_sequences SET next_id = ${AFTER_NEWEST} WHERE name = 'comment'`);
}
