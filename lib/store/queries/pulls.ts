import type { ReadTx, WriteTx } from '../database.js';
import { keptCount } from './list-counts.js';
import type { PageWindow } from './page-window.js';

export type PullStatus = 'open' | 'closed' | 'merged';

/** A pull request as stored, with its author's and merger's names. */
export interface PullRow {
  id: number;
  number: number;
  repo_id: number;
  title: string;
  description: string;
  status: PullStatus;
  head: string;
  base: string;
  head_sha: string;
  base_sha: string;
  author: string;
  author_id: number;
  merged_by: string | null;
  merged_at: string | null;
  merge_commit_sha: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
  comments: number;
}

export interface PullCommentRow {
  id: number;
  author: string;
  author_id: number;
  text: string;
  created_at: string;
  updated_at: string;
}

const SELECT = `SELECT p.id, p.number, p.repo_id, p.title, p.description, p.status, p.head_branch AS head, p.base_branch AS base,
  p.head_sha, p.base_sha, u.username AS author, p.author_id, m.username AS merged_by, p.merged_at, p.merge_commit_sha,
  p.closed_at, p.created_at, p.updated_at, p.comment_count AS comments
  FROM pull_requests p JOIN users u ON u.id = p.author_id LEFT JOIN users m ON m.id = p.merged_by`;

/** `closed` lists closed and merged pull requests, as on GitHub; undefined lists all. */
export type PullListStatus = 'open' | 'closed' | 'merged' | undefined;

function statusClause(status: PullListStatus): { where: string; params: string[] } {
  if (status === undefined) return { where: '', params: [] };
  if (status === 'closed') return { where: " AND p.status IN ('closed', 'merged')", params: [] };
  return { where: ' AND p.status = ?', params: [status] };
}

export function pullsOfRepository(db: ReadTx, repoId: number, status: PullListStatus, page: PageWindow): PullRow[] {
  const clause = statusClause(status);
  return db.all<PullRow>(`${SELECT} WHERE p.repo_id = ?${clause.where} ORDER BY p.number DESC LIMIT ? OFFSET ?`, [repoId, ...clause.params, page.limit, page.offset]);
}

export function countPulls(db: ReadTx, repoId: number, status: PullListStatus): number {
  return keptCount(db, repoId, 'pull', status === undefined ? undefined : status === 'closed' ? ['closed', 'merged'] : [status]);
}

export function pullInRepository(db: ReadTx, repoId: number, id: number): PullRow | undefined {
  return db.get<PullRow>(`${SELECT} WHERE p.repo_id = ? AND p.id = ?`, [repoId, id]);
}

/** The pull request with this per-repository number (issues and pull requests share the numbering). */
export function pullByNumber(db: ReadTx, repoId: number, number: number): PullRow | undefined {
  return db.get<PullRow>(`${SELECT} WHERE p.repo_id = ? AND p.number = ?`, [repoId, number]);
}

/** Open pull requests whose head or base is one of `branches`: the ones a push to those branches concerns. */
export function openPullsTouching(db: ReadTx, repoId: number, branches: readonly string[]): PullRow[] {
  return db.all<PullRow>(
    `${SELECT} WHERE p.repo_id = ? AND p.status = 'open'
     AND (p.head_branch IN (SELECT value FROM json_each(?)) OR p.base_branch IN (SELECT value FROM json_each(?)))`,
    [repoId, JSON.stringify(branches), JSON.stringify(branches)],
  );
}

export function openPullJoining(db: ReadTx, repoId: number, head: string, base: string): PullRow | undefined {
  return db.get<PullRow>(`${SELECT} WHERE p.repo_id = ? AND p.status = 'open' AND p.head_branch = ? AND p.base_branch = ?`, [repoId, head, base]);
}

export function insertPull(
  tx: WriteTx,
  pull: { repoId: number; number: number; authorId: number; title: string; description: string; head: string; base: string; headSha: string; baseSha: string; now: string },
): number {
  return tx.run<{ id: number }>(
    `INSERT INTO pull_requests (repo_id, number, author_id, title, description, status, head_branch, base_branch, head_sha, base_sha, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?) RETURNING id`,
    [pull.repoId, pull.number, pull.authorId, pull.title, pull.description, pull.head, pull.base, pull.headSha, pull.baseSha, pull.now, pull.now],
  ).rows[0]!.id;
}

export function updatePull(tx: WriteTx, id: number, fields: { title: string; description: string; base: string; baseSha: string }, now: string): void {
  tx.run('UPDATE pull_requests SET title = ?, description = ?, base_branch = ?, base_sha = ?, updated_at = ? WHERE id = ?', [
    fields.title,
    fields.description,
    fields.base,
    fields.baseSha,
    now,
    id,
  ]);
}

/** Closing records when; reopening clears it. Merged pull requests never change status again. */
export function setPullOpen(tx: WriteTx, id: number, open: boolean, now: string): void {
  tx.run(`UPDATE pull_requests SET status = ?, closed_at = ?, updated_at = ? WHERE id = ? AND status != 'merged'`, [open ? 'open' : 'closed', open ? null : now, now, id]);
}

/** Follows the branches of an open pull request after a push. */
export function setPullShas(tx: WriteTx, id: number, headSha: string, baseSha: string, now: string): void {
  tx.run(`UPDATE pull_requests SET head_sha = ?, base_sha = ?, updated_at = ? WHERE id = ? AND status = 'open'`, [headSha, baseSha, now, id]);
}

export function markPullMerged(tx: WriteTx, id: number, merge: { byUserId: number | null; sha: string; headSha: string; baseSha: string; now: string }): void {
  tx.run(
    `UPDATE pull_requests SET status = 'merged', merged_by = ?, merged_at = ?, merge_commit_sha = ?, head_sha = ?, base_sha = ?, closed_at = ?, updated_at = ?
     WHERE id = ? AND status = 'open'`,
    [merge.byUserId, merge.now, merge.sha, merge.headSha, merge.baseSha, merge.now, merge.now, id],
  );
}

const COMMENT_SELECT = 'SELECT c.id, u.username AS author, c.author_id, c.text, c.created_at, c.updated_at FROM pull_comments c JOIN users u ON u.id = c.author_id';

export function commentsOfPull(db: ReadTx, pullId: number, page: PageWindow): PullCommentRow[] {
  return db.all<PullCommentRow>(`${COMMENT_SELECT} WHERE c.pull_id = ? ORDER BY c.id LIMIT ? OFFSET ?`, [pullId, page.limit, page.offset]);
}

export function pullComment(db: ReadTx, pullId: number, commentId: number): PullCommentRow | undefined {
  return db.get<PullCommentRow>(`${COMMENT_SELECT} WHERE c.pull_id = ? AND c.id = ?`, [pullId, commentId]);
}

export function insertComment(tx: WriteTx, comment: { pullId: number; authorId: number; text: string; now: string }): number {
  const id = tx.run<{ id: number }>('INSERT INTO pull_comments (pull_id, author_id, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING id', [
    comment.pullId,
    comment.authorId,
    comment.text,
    comment.now,
    comment.now,
  ]).rows[0]!.id;
  tx.run('UPDATE pull_requests SET comment_count = comment_count + 1, updated_at = ? WHERE id = ?', [comment.now, comment.pullId]);
  return id;
}

export function updateComment(tx: WriteTx, commentId: number, text: string, now: string): void {
  tx.run('UPDATE pull_comments SET text = ?, updated_at = ? WHERE id = ?', [text, now, commentId]);
}

export function deleteComment(tx: WriteTx, pullId: number, commentId: number): void {
  if (tx.run('DELETE FROM pull_comments WHERE id = ? AND pull_id = ?', [commentId, pullId]).changes > 0) {
    tx.run('UPDATE pull_requests SET comment_count = comment_count - 1 WHERE id = ?', [pullId]);
  }
}
