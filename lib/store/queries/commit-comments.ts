import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import { deleteReactionsTo } from './reactions.js';

export interface CommitCommentRow {
  id: number;
  commit_id: string;
  path: string | null;
  position: number | null;
  line: number | null;
  body: string;
  author_id: number;
  author: string;
  created_at: string;
  updated_at: string;
}

const SELECT = `SELECT c.id, c.commit_id, c.path, c.position, c.line, c.body, c.author_id, u.username AS author, c.created_at, c.updated_at
  FROM commit_comments c JOIN users u ON u.id = c.author_id`;

/** The comments of one commit, or (`commitId` undefined) of every commit of the repository, oldest first; with how many. */
export async function commitComments(db: ReadTx, repoId: number, commitId: string | undefined, page: PageWindow): Promise<{ rows: CommitCommentRow[]; total: number }> {
  const where = commitId === undefined ? 'c.repo_id = ?' : 'c.repo_id = ? AND c.commit_id = ?';
  const params = commitId === undefined ? [repoId] : [repoId, commitId];
  const rows = await db.all<CommitCommentRow>(`${SELECT} WHERE ${where} ORDER BY c.id LIMIT ? OFFSET ?`, [...params, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM commit_comments c WHERE ${where}`, params))!.n;
  return { rows, total };
}

export async function commitCommentById(db: ReadTx, repoId: number, id: number): Promise<CommitCommentRow | undefined> {
  return await db.get<CommitCommentRow>(`${SELECT} WHERE c.repo_id = ? AND c.id = ?`, [repoId, id]);
}

/** How many comments each of these commits has (commits without any left out): one query for a page of commits. */
export async function commitCommentCounts(db: ReadTx, repoId: number, commitIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (commitIds.length === 0) return counts;
  const list = inList(commitIds);
  const rows = await db.all<{ commit_id: string; n: number }>(`SELECT commit_id, COUNT(*) AS n FROM commit_comments WHERE repo_id = ? AND commit_id ${list.sql} GROUP BY commit_id`, [
    repoId,
    ...list.params,
  ]);
  for (const row of rows) counts.set(row.commit_id, row.n);
  return counts;
}

export async function insertCommitComment(
  tx: WriteTx,
  repoId: number,
  fields: Pick<CommitCommentRow, 'commit_id' | 'path' | 'position' | 'line' | 'body' | 'author_id'>,
  now: string,
): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO commit_comments (repo_id, commit_id, path, position, line, body, author_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [repoId, fields.commit_id, fields.path, fields.position, fields.line, fields.body, fields.author_id, now, now],
  );
  return rows[0]!.id;
}

export async function updateCommitComment(tx: WriteTx, repoId: number, id: number, body: string, now: string): Promise<void> {
  await tx.run('UPDATE commit_comments SET body = ?, updated_at = ? WHERE repo_id = ? AND id = ?', [body, now, repoId, id]);
}

/** Deletes a commit comment with its reactions (SQLite may give its id again). */
export async function deleteCommitComment(tx: WriteTx, repoId: number, id: number): Promise<void> {
  if ((await tx.run('DELETE FROM commit_comments WHERE repo_id = ? AND id = ?', [repoId, id])).changes > 0) await deleteReactionsTo(tx, repoId, 'commit_comment', id);
}
