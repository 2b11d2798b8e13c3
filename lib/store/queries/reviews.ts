import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import { deleteReactionsTo } from './reactions.js';
import type { PageWindow } from './page-window.js';
import type { CommentOrder } from './issues.js';
import type { SqlParam } from '../write-log.js';

export type ReviewState = 'PENDING' | 'COMMENTED' | 'APPROVED' | 'CHANGES_REQUESTED' | 'DISMISSED';

/** A review of a pull request, with its author's name. */
export interface ReviewRow {
  id: number;
  pull_id: number;
  user_id: number;
  author: string;
  state: ReviewState;
  body: string;
  commit_id: string;
  submitted_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Where a comment sits in a pull request's diff (GitHub's `line`/`side`, and `start_*` for a range), or on a whole file
 * (`subject_type` 'file': no line, no start).
 */
export interface DiffPosition {
  path: string;
  subject_type: 'line' | 'file';
  line: number | null;
  side: 'LEFT' | 'RIGHT';
  start_line: number | null;
  start_side: 'LEFT' | 'RIGHT' | null;
}

/** A comment on a line (or lines) of a pull request's diff. */
export interface ReviewCommentRow extends DiffPosition {
  id: number;
  pull_id: number;
  pull_number: number;
  review_id: number;
  user_id: number;
  author: string;
  commit_id: string;
  diff_hunk: string;
  /** GitHub's `position`: the line's index in the file's patch (none for a comment on the file). */
  position: number | null;
  body: string;
  in_reply_to_id: number | null;
  created_at: string;
  updated_at: string;
}

const REVIEW = `SELECT r.id, r.pull_id, r.user_id, u.username AS author, r.state, r.body, r.commit_id, r.submitted_at, r.created_at, r.updated_at
  FROM pull_reviews r JOIN users u ON u.id = r.user_id`;

// A comment on a whole file is kept with line and position 0 (see migration 20): null here.
const COMMENT_COLUMNS = `c.id, c.pull_id, p.number AS pull_number, c.review_id, c.user_id, u.username AS author, c.path, c.subject_type,
  CASE WHEN c.subject_type = 'file' THEN NULL ELSE c.line END AS line, c.side, c.start_line, c.start_side, c.commit_id, c.diff_hunk,
  CASE WHEN c.subject_type = 'file' THEN NULL ELSE c.position END AS position, c.body, c.in_reply_to_id, c.created_at, c.updated_at`;
const COMMENT_FROM = 'FROM pull_review_comments c JOIN users u ON u.id = c.user_id JOIN pull_requests p ON p.id = c.pull_id';
const COMMENT = `SELECT ${COMMENT_COLUMNS} ${COMMENT_FROM}`;

/** Reviews of a pull request, oldest first; pending ones only their author sees (`viewerId`). */
export async function reviewsOfPull(db: ReadTx, pullId: number, viewerId: number | null, page: PageWindow): Promise<{ items: ReviewRow[]; total: number }> {
  const where = "r.pull_id = ? AND (r.state <> 'PENDING' OR r.user_id = ?)";
  const items = await db.all<ReviewRow>(`${REVIEW} WHERE ${where} ORDER BY r.id LIMIT ? OFFSET ?`, [pullId, viewerId ?? 0, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM pull_reviews r WHERE ${where}`, [pullId, viewerId ?? 0]))!.n;
  return { items, total };
}

export async function reviewById(db: ReadTx, pullId: number, id: number): Promise<ReviewRow | undefined> {
  return await db.get<ReviewRow>(`${REVIEW} WHERE r.pull_id = ? AND r.id = ?`, [pullId, id]);
}

/** The newest submitted review of each reviewer that approves or asks for changes (what protection counts). */
export async function standingReviews(db: ReadTx, pullId: number): Promise<Array<{ user_id: number; state: ReviewState }>> {
  return await db.all(
    `SELECT r.user_id, r.state FROM pull_reviews r WHERE r.pull_id = ? AND r.id IN (
      SELECT MAX(n.id) FROM pull_reviews n WHERE n.pull_id = ? AND n.state IN ('APPROVED', 'CHANGES_REQUESTED', 'DISMISSED') GROUP BY n.user_id)`,
    [pullId, pullId],
  );
}

export async function pendingReviewOf(db: ReadTx, pullId: number, userId: number): Promise<ReviewRow | undefined> {
  return await db.get<ReviewRow>(`${REVIEW} WHERE r.pull_id = ? AND r.user_id = ? AND r.state = 'PENDING'`, [pullId, userId]);
}

export async function insertReview(tx: WriteTx, repoId: number, pullId: number, userId: number, review: { state: ReviewState; body: string; commit_id: string; submitted_at: string | null }, now: string): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    'INSERT INTO pull_reviews (repo_id, pull_id, user_id, state, body, commit_id, submitted_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id',
    [repoId, pullId, userId, review.state, review.body, review.commit_id, review.submitted_at, now, now],
  );
  return rows[0]!.id;
}

export async function updateReview(tx: WriteTx, id: number, fields: { state: ReviewState; body: string; submitted_at: string | null }, now: string): Promise<void> {
  await tx.run('UPDATE pull_reviews SET state = ?, body = ?, submitted_at = ?, updated_at = ? WHERE id = ?', [fields.state, fields.body, fields.submitted_at, now, id]);
}

export async function deleteReview(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM pull_review_comments WHERE review_id = ?', [id]);
  await tx.run('DELETE FROM pull_reviews WHERE id = ?', [id]);
}

/**
 * Review comments of a pull request (or of one review, or of the repository), oldest first unless `order` says
 * otherwise; those of pending reviews only their author sees.
 */
export async function reviewComments(
  db: ReadTx,
  of: { pullId: number } | { reviewId: number } | { repoId: number },
  viewerId: number | null,
  page: PageWindow,
  order: CommentOrder = { sort: 'created', direction: 'asc' },
): Promise<{ items: ReviewCommentRow[]; total: number }> {
  const [column, value] = 'pullId' in of ? ['c.pull_id', of.pullId] : 'reviewId' in of ? ['c.review_id', of.reviewId] : ['c.repo_id', of.repoId];
  const since = order.since === undefined ? '' : ' AND c.updated_at >= ?';
  const where = `${column} = ? AND (c.user_id = ? OR EXISTS (SELECT 1 FROM pull_reviews r WHERE r.id = c.review_id AND r.state <> 'PENDING'))${since}`;
  const params: SqlParam[] = order.since === undefined ? [value, viewerId ?? 0] : [value, viewerId ?? 0, order.since];
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  // Ids grow with creation, so `created` orders by id alone; `updated` breaks ties by id.
  const by = order.sort === 'updated' ? `c.updated_at ${direction}, c.id ${direction}` : `c.id ${direction}`;
  const items = await db.all<ReviewCommentRow>(`${COMMENT} WHERE ${where} ORDER BY ${by} LIMIT ? OFFSET ?`, [...params, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM pull_review_comments c WHERE ${where}`, params))!.n;
  return { items, total };
}

/** A review comment of the repository, with whether its review is still pending. */
export async function reviewCommentById(db: ReadTx, repoId: number, id: number): Promise<(ReviewCommentRow & { pending: number }) | undefined> {
  return await db.get(
    `SELECT ${COMMENT_COLUMNS}, CASE WHEN r.state = 'PENDING' THEN 1 ELSE 0 END AS pending ${COMMENT_FROM}
      JOIN pull_reviews r ON r.id = c.review_id WHERE c.repo_id = ? AND c.id = ?`,
    [repoId, id],
  );
}

export async function insertReviewComment(
  tx: WriteTx,
  repoId: number,
  pullId: number,
  reviewId: number,
  userId: number,
  comment: DiffPosition & { commit_id: string; diff_hunk: string; position: number | null; body: string; in_reply_to_id: number | null },
  now: string,
): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO pull_review_comments (repo_id, pull_id, review_id, user_id, path, subject_type, line, side, start_line, start_side, commit_id, diff_hunk,
      position, body, in_reply_to_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [repoId, pullId, reviewId, userId, comment.path, comment.subject_type, comment.line ?? 0, comment.side, comment.start_line, comment.start_side, comment.commit_id, comment.diff_hunk, comment.position ?? 0, comment.body, comment.in_reply_to_id, now, now],
  );
  return rows[0]!.id;
}

export async function updateReviewComment(tx: WriteTx, id: number, body: string, now: string): Promise<void> {
  await tx.run('UPDATE pull_review_comments SET body = ?, updated_at = ? WHERE id = ?', [body, now, id]);
}

/** Deletes a review comment of the repository, with its reactions (its replies stay, as replies to nothing). */
export async function deleteReviewComment(tx: WriteTx, repoId: number, id: number): Promise<void> {
  await tx.run('UPDATE pull_review_comments SET in_reply_to_id = NULL WHERE in_reply_to_id = ?', [id]);
  await tx.run('DELETE FROM pull_review_comments WHERE id = ?', [id]);
  await deleteReactionsTo(tx, repoId, 'review_comment', id);
}

export async function requestedReviewers(db: ReadTx, pullId: number): Promise<string[]> {
  return (await db.all<{ username: string }>('SELECT u.username FROM pull_review_requests q JOIN users u ON u.id = q.user_id WHERE q.pull_id = ? ORDER BY q.created_at, u.username', [pullId])).map(
    (row) => row.username,
  );
}

export async function addReviewRequest(tx: WriteTx, pullId: number, userId: number, now: string): Promise<void> {
  await tx.run('INSERT INTO pull_review_requests (pull_id, user_id, created_at) VALUES (?, ?, ?) ON CONFLICT (pull_id, user_id) DO NOTHING', [pullId, userId, now]);
}

export async function removeReviewRequest(tx: WriteTx, pullId: number, userId: number): Promise<void> {
  await tx.run('DELETE FROM pull_review_requests WHERE pull_id = ? AND user_id = ?', [pullId, userId]);
}

/** Who is asked to review each of several pull requests, and how many review comments each has: two queries. */
export async function reviewFactsOfPulls(db: ReadTx, pullIds: readonly number[]): Promise<{ reviewers: Map<number, string[]>; comments: Map<number, number> }> {
  const reviewers = new Map<number, string[]>();
  const comments = new Map<number, number>();
  if (pullIds.length === 0) return { reviewers, comments };
  const ids = inList(pullIds);
  for (const row of await db.all<{ pull_id: number; username: string }>(
    `SELECT q.pull_id, u.username FROM pull_review_requests q JOIN users u ON u.id = q.user_id WHERE q.pull_id ${ids.sql} ORDER BY q.created_at, u.username`,
    ids.params,
  )) {
    reviewers.set(row.pull_id, [...(reviewers.get(row.pull_id) ?? []), row.username]);
  }
  // Only comments of submitted reviews count (a pending one is its author's alone).
  for (const row of await db.all<{ pull_id: number; n: number }>(
    `SELECT c.pull_id, COUNT(*) AS n FROM pull_review_comments c JOIN pull_reviews r ON r.id = c.review_id
      WHERE c.pull_id ${ids.sql} AND r.state <> 'PENDING' GROUP BY c.pull_id`,
    ids.params,
  )) {
    comments.set(row.pull_id, row.n);
  }
  return { reviewers, comments };
}

/** A review thread marked resolved: who did, and when (null when the account is gone). */
export interface ThreadResolution {
  resolved_by: string | null;
  resolved_at: string;
}

/** The resolved threads of a pull request, by their first comment, in one query. */
export async function threadResolutions(db: ReadTx, pullId: number): Promise<Map<number, ThreadResolution>> {
  const rows = await db.all<ThreadResolution & { comment_id: number }>(
    `SELECT t.comment_id, u.username AS resolved_by, t.resolved_at FROM review_thread_resolutions t
      JOIN pull_review_comments c ON c.id = t.comment_id LEFT JOIN users u ON u.id = t.resolved_by WHERE c.pull_id = ?`,
    [pullId],
  );
  return new Map(rows.map(({ comment_id: id, ...resolution }) => [id, resolution]));
}

/** Marks the thread of first comment `commentId` resolved (true when it was not). */
export async function resolveThread(tx: WriteTx, commentId: number, userId: number, now: string): Promise<boolean> {
  return (await tx.run('INSERT INTO review_thread_resolutions (comment_id, resolved_by, resolved_at) VALUES (?, ?, ?) ON CONFLICT (comment_id) DO NOTHING', [commentId, userId, now])).changes > 0;
}

/** Marks the thread unresolved again (true when it was resolved). */
export async function unresolveThread(tx: WriteTx, commentId: number): Promise<boolean> {
  return (await tx.run('DELETE FROM review_thread_resolutions WHERE comment_id = ?', [commentId])).changes > 0;
}

/** The files of a pull request the account marked viewed, with the hash of the patch each was viewed at. */
export async function viewedFiles(db: ReadTx, pullId: number, userId: number): Promise<Map<string, string>> {
  const rows = await db.all<{ path: string; patch_hash: string }>('SELECT path, patch_hash FROM pull_file_views WHERE pull_id = ? AND user_id = ?', [pullId, userId]);
  return new Map(rows.map((row) => [row.path, row.patch_hash]));
}

export async function markFileViewed(tx: WriteTx, pullId: number, userId: number, path: string, patchHash: string, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO pull_file_views (pull_id, user_id, path, patch_hash, viewed_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (pull_id, user_id, path) DO UPDATE SET patch_hash = excluded.patch_hash, viewed_at = excluded.viewed_at`,
    [pullId, userId, path, patchHash, now],
  );
}

export async function unmarkFileViewed(tx: WriteTx, pullId: number, userId: number, path: string): Promise<void> {
  await tx.run('DELETE FROM pull_file_views WHERE pull_id = ? AND user_id = ? AND path = ?', [pullId, userId, path]);
}
