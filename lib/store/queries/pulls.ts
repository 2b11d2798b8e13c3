import type { ReadTx, WriteTx } from '../interface.js';
import { takeId } from './id-sequences.js';
import { deleteReactionsTo } from './reactions.js';
import { inChunks, inList } from './in-list.js';
import { countAdded, countMoved, keptCount } from './list-counts.js';
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
  /** As an issue's (IssueRecord.locked). */
  locked: boolean;
  lock_reason: string | null;
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
  p.closed_at, p.created_at, p.updated_at, p.comment_count AS comments, p.locked, p.lock_reason
  FROM pull_requests p JOIN users u ON u.id = p.author_id LEFT JOIN users m ON m.id = p.merged_by`;

/** A pull request as SQL gives it: `locked` 0 or 1. */
type PullSqlRow = Omit<PullRow, 'locked'> & { locked: number };
const pullFrom = (row: PullSqlRow): PullRow => ({ ...row, locked: row.locked === 1 });

/** `closed` lists closed and merged pull requests, as on GitHub; undefined lists all. */
export type PullListStatus = 'open' | 'closed' | 'merged' | undefined;

/** GitHub's filters of the pull request list: from this head branch and/or into this base branch, and the order. */
export interface PullListFilter {
  head?: string;
  base?: string;
  /**
   * By creation (the number), by last update, by comments (GitHub's `popularity`), or GitHub's `long-running`: by
   * creation, only those opened before `activeSince` and updated since. @default created, newest first
   */
  sort?: 'created' | 'updated' | 'popularity' | 'long-running';
  direction?: 'asc' | 'desc';
  /** For `long-running`: a month before now, as stored. */
  activeSince?: string;
}

function listClause(status: PullListStatus, branches: PullListFilter): { where: string; params: string[] } {
  let where = status === undefined ? '' : status === 'closed' ? " AND p.status IN ('closed', 'merged')" : ' AND p.status = ?';
  const params: string[] = status === undefined || status === 'closed' ? [] : [status];
  for (const [column, value] of [['head_branch', branches.head], ['base_branch', branches.base]] as const) {
    if (value === undefined) continue;
    where += ` AND p.${column} = ?`;
    params.push(value);
  }
  if (branches.sort === 'long-running' && branches.activeSince !== undefined) {
    where += ' AND p.created_at < ? AND p.updated_at >= ?';
    params.push(branches.activeSince, branches.activeSince);
  }
  return { where, params };
}

export async function pullsOfRepository(db: ReadTx, repoId: number, status: PullListStatus, page: PageWindow, branches: PullListFilter = {}): Promise<PullRow[]> {
  const clause = listClause(status, branches);
  const direction = branches.direction === 'asc' ? 'ASC' : 'DESC';
  const order =
    branches.sort === 'updated' ? `p.updated_at ${direction}, p.id ${direction}` : branches.sort === 'popularity' ? `p.comment_count ${direction}, p.number ${direction}` : `p.number ${direction}`;
  return (await db.all<PullSqlRow>(`${SELECT} WHERE p.repo_id = ?${clause.where} ORDER BY ${order} LIMIT ? OFFSET ?`, [repoId, ...clause.params, page.limit, page.offset])).map(pullFrom);
}

export async function countPulls(db: ReadTx, repoId: number, status: PullListStatus, branches: PullListFilter = {}): Promise<number> {
  if (branches.head === undefined && branches.base === undefined && branches.sort !== 'long-running') {
    return await keptCount(db, repoId, 'pull', status === undefined ? undefined : status === 'closed' ? ['closed', 'merged'] : [status]);
  }
  const clause = listClause(status, branches);
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM pull_requests p WHERE p.repo_id = ?${clause.where}`, [repoId, ...clause.params]))!.n;
}

export async function pullInRepository(db: ReadTx, repoId: number, id: number): Promise<PullRow | undefined> {
  const row = await db.get<PullSqlRow>(`${SELECT} WHERE p.repo_id = ? AND p.id = ?`, [repoId, id]);
  return row && pullFrom(row);
}

/** The pull requests of the repository with these ids, in no particular order: a page of a list in one query. */
export async function pullsByIds(db: ReadTx, repoId: number, ids: readonly number[]): Promise<PullRow[]> {
  if (ids.length === 0) return [];
  // By primary key alone (a condition on repo_id would make SQLite walk the repository's index instead).
  const list = inList(ids);
  return (await db.all<PullSqlRow>(`${SELECT} WHERE p.id ${list.sql}`, list.params)).map(pullFrom).filter((pull) => pull.repo_id === repoId);
}

/** The pull request with this per-repository number (issues and pull requests share the numbering). */
export async function pullByNumber(db: ReadTx, repoId: number, number: number): Promise<PullRow | undefined> {
  const row = await db.get<PullSqlRow>(`${SELECT} WHERE p.repo_id = ? AND p.number = ?`, [repoId, number]);
  return row && pullFrom(row);
}

/**
 * Open pull requests whose head or base is one of `branches`: the ones a push to those branches concerns, by number
 * (the order SQLite gave them in, walking the (repo_id, status, number) index, now said so every engine agrees). A
 * push may move thousands of branches: they are asked about a chunk at a time.
 */
export async function openPullsTouching(db: ReadTx, repoId: number, branches: readonly string[]): Promise<PullRow[]> {
  const pulls = new Map<number, PullRow>();
  for (const chunk of inChunks(branches)) {
    const list = inList(chunk);
    const rows = await db.all<PullSqlRow>(
      `${SELECT} WHERE p.repo_id = ? AND p.status = 'open' AND (p.head_branch ${list.sql} OR p.base_branch ${list.sql}) ORDER BY p.number`,
      [repoId, ...list.params, ...list.params],
    );
    for (const row of rows) pulls.set(row.id, pullFrom(row));
  }
  // A pull request may be met in two chunks (head in one, base in another), and each chunk has its own order.
  return [...pulls.values()].sort((a, b) => a.number - b.number);
}

export async function openPullJoining(db: ReadTx, repoId: number, head: string, base: string): Promise<PullRow | undefined> {
  const row = await db.get<PullSqlRow>(`${SELECT} WHERE p.repo_id = ? AND p.status = 'open' AND p.head_branch = ? AND p.base_branch = ?`, [repoId, head, base]);
  return row && pullFrom(row);
}

/** Inserts an open pull request and counts it (see `countAdded`). */
export async function insertPull(
  tx: WriteTx,
  pull: { repoId: number; number: number; authorId: number; title: string; description: string; head: string; base: string; headSha: string; baseSha: string; now: string },
): Promise<number> {
  const id = (await tx.run<{ id: number }>(
    `INSERT INTO pull_requests (repo_id, number, author_id, title, description, status, head_branch, base_branch, head_sha, base_sha, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?) RETURNING id`,
    [pull.repoId, pull.number, pull.authorId, pull.title, pull.description, pull.head, pull.base, pull.headSha, pull.baseSha, pull.now, pull.now],
  )).rows[0]!.id;
  await countAdded(tx, pull.repoId, 'pull', 'open');
  return id;
}

export async function updatePull(tx: WriteTx, id: number, fields: { title: string; description: string; base: string; baseSha: string }, now: string): Promise<void> {
  await tx.run('UPDATE pull_requests SET title = ?, description = ?, base_branch = ?, base_sha = ?, updated_at = ? WHERE id = ?', [
    fields.title,
    fields.description,
    fields.base,
    fields.baseSha,
    now,
    id,
  ]);
}

/** Closing records when; reopening clears it. Merged pull requests never change status again. The kept counts follow. */
export async function setPullOpen(tx: WriteTx, id: number, open: boolean, now: string): Promise<void> {
  const status = open ? 'open' : 'closed';
  const before = await tx.get<{ repo_id: number; status: PullStatus }>('SELECT repo_id, status FROM pull_requests WHERE id = ?', [id]);
  if (!before || before.status === 'merged') return;
  await countMoved(tx, before.repo_id, 'pull', before.status, status);
  await tx.run(`UPDATE pull_requests SET status = ?, closed_at = ?, updated_at = ? WHERE id = ? AND status != 'merged'`, [status, open ? null : now, now, id]);
}

/** Follows the branches of an open pull request after a push. */
export async function setPullShas(tx: WriteTx, id: number, headSha: string, baseSha: string, now: string): Promise<void> {
  await tx.run(`UPDATE pull_requests SET head_sha = ?, base_sha = ?, updated_at = ? WHERE id = ? AND status = 'open'`, [headSha, baseSha, now, id]);
}

/**
 * A pull request in state `from` (open, unless a merge made in git must be recorded over a close that raced it)
 * becomes merged, into `base` when given; the kept counts follow.
 */
export async function markPullMerged(
  tx: WriteTx,
  id: number,
  merge: { byUserId: number | null; sha: string; headSha: string; baseSha: string; base?: string; now: string },
  from: 'open' | 'closed' = 'open',
): Promise<void> {
  const merged = (await tx.run<{ repo_id: number }>(
    `UPDATE pull_requests SET status = 'merged', merged_by = ?, merged_at = ?, merge_commit_sha = ?, head_sha = ?, base_sha = ?, base_branch = COALESCE(?, base_branch),
     closed_at = ?, updated_at = ? WHERE id = ? AND status = ? RETURNING repo_id`,
    [merge.byUserId, merge.now, merge.sha, merge.headSha, merge.baseSha, merge.base ?? null, merge.now, merge.now, id, from],
  )).rows[0];
  if (merged) await countMoved(tx, merged.repo_id, 'pull', from, 'merged');
}

const COMMENT_SELECT = 'SELECT c.id, u.username AS author, c.author_id, c.text, c.created_at, c.updated_at FROM pull_comments c JOIN users u ON u.id = c.author_id';

/** A pull request's comments in order, a page of them; with `since`, only those updated at or after it (and how many). */
export async function commentsOfPull(db: ReadTx, pullId: number, page: PageWindow, since?: string): Promise<{ rows: PullCommentRow[]; matching?: number }> {
  if (since === undefined) return { rows: await db.all<PullCommentRow>(`${COMMENT_SELECT} WHERE c.pull_id = ? ORDER BY c.id LIMIT ? OFFSET ?`, [pullId, page.limit, page.offset]) };
  const rows = await db.all<PullCommentRow>(`${COMMENT_SELECT} WHERE c.pull_id = ? AND c.updated_at >= ? ORDER BY c.id LIMIT ? OFFSET ?`, [pullId, since, page.limit, page.offset]);
  const counted = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM pull_comments WHERE pull_id = ? AND updated_at >= ?', [pullId, since]);
  return { rows, matching: Number(counted?.n ?? 0) };
}

export async function pullComment(db: ReadTx, pullId: number, commentId: number): Promise<PullCommentRow | undefined> {
  return await db.get<PullCommentRow>(`${COMMENT_SELECT} WHERE c.pull_id = ? AND c.id = ?`, [pullId, commentId]);
}

/** Adds a comment (its id shared with issue comments) and keeps the pull request's comment count and updated time in step. */
export async function insertComment(tx: WriteTx, comment: { pullId: number; authorId: number; text: string; now: string }): Promise<number> {
  const id = await takeId(tx, 'comment');
  await tx.run('INSERT INTO pull_comments (id, pull_id, author_id, text, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
    id,
    comment.pullId,
    comment.authorId,
    comment.text,
    comment.now,
    comment.now,
  ]);
  await tx.run('UPDATE pull_requests SET comment_count = comment_count + 1, updated_at = ? WHERE id = ?', [comment.now, comment.pullId]);
  return id;
}

export async function updateComment(tx: WriteTx, commentId: number, text: string, now: string): Promise<void> {
  await tx.run('UPDATE pull_comments SET text = ?, updated_at = ? WHERE id = ?', [text, now, commentId]);
}

/** Deletes a comment of the repository's pull request, with its reactions. */
export async function deleteComment(tx: WriteTx, repoId: number, pullId: number, commentId: number): Promise<void> {
  if ((await tx.run('DELETE FROM pull_comments WHERE id = ? AND pull_id = ?', [commentId, pullId])).changes > 0) {
    await tx.run('UPDATE pull_requests SET comment_count = comment_count - 1 WHERE id = ?', [pullId]);
    await deleteReactionsTo(tx, repoId, 'comment', commentId);
  }
}

/** The commits of a pull request that tell which commits it brings: its head, its base, and what merging it made. */
export interface PullTips {
  id: number;
  number: number;
  status: PullStatus;
  base: string;
  head_sha: string;
  base_sha: string;
  merge_commit_sha: string | null;
}

/** The open and merged pull requests of a repository with their tips (closed ones bring nothing). */
export async function openAndMergedPullTips(db: ReadTx, repoId: number): Promise<PullTips[]> {
  return await db.all<PullTips>(
    `SELECT id, number, status, base_branch AS base, head_sha, base_sha, merge_commit_sha FROM pull_requests WHERE repo_id = ? AND status IN ('open', 'merged')`,
    [repoId],
  );
}

/** The merged pull requests of a repository, first merged first, with what release notes name of them (at most `limit`). */
export async function mergedPulls(db: ReadTx, repoId: number, limit: number): Promise<Array<{ number: number; title: string; author: string | null; merge_commit_sha: string | null }>> {
  return await db.all(
    `SELECT p.number, p.title, u.username AS author, p.merge_commit_sha FROM pull_requests p LEFT JOIN users u ON u.id = p.author_id
     WHERE p.repo_id = ? AND p.status = 'merged' ORDER BY p.merged_at, p.id LIMIT ?`,
    [repoId, limit],
  );
}
