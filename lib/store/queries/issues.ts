import type { ReadTx, WriteTx } from '../interface.js';
import type { PageWindow } from './page-window.js';
import { countAdded, countMoved, keptCount } from './list-counts.js';
import { labelsOfIssues, type LabelRow } from './labels.js';
import { inList } from './in-list.js';
import { takeId } from './id-sequences.js';
import { deleteReactionsTo } from './reactions.js';
import type { SqlParam } from '../write-log.js';

/** An issue as stored, with its author's and closer's names. */
export interface IssueRecord {
  id: number;
  number: number;
  repo_id: number;
  title: string;
  body: string;
  author: string;
  author_id: number;
  status: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  closed_by: string | null;
  /** GitHub's state_reason: completed or not_planned once closed, reopened once reopened, else null. */
  state_reason: string | null;
  comments: number;
  /** Whether the conversation is locked (only writers comment), with GitHub's `active_lock_reason` if one was given. */
  locked: boolean;
  lock_reason: string | null;
}

/** An issue with its labels: the issue summary of the API. */
export interface IssueRow extends Omit<IssueRecord, 'author_id'> {
  labels: LabelRow[];
}

const SELECT = `SELECT i.id, i.number, i.repo_id, i.title, i.body, u.username AS author, i.author_id, i.status, i.created_at,
  i.updated_at, i.closed_at, c.username AS closed_by, i.state_reason, i.comment_count AS comments, i.locked, i.lock_reason
  FROM issues i JOIN users u ON u.id = i.author_id LEFT JOIN users c ON c.id = i.closed_by`;

/** An issue as SQL gives it: `locked` 0 or 1. */
type IssueSqlRow = Omit<IssueRecord, 'locked'> & { locked: number };
const recordFrom = (row: IssueSqlRow): IssueRecord => ({ ...row, locked: row.locked === 1 });

export interface IssueFilter {
  /** `open`, `closed`, or undefined for all. */
  status?: 'open' | 'closed';
  /** Lower-cased label names that must all be on the issue. */
  labels: readonly string[];
  /** By creation (the number), last update, or comments (`/api/v3`'s alone: the spec's list takes the first two). */
  sort: 'created' | 'updated' | 'comments';
  direction: 'asc' | 'desc';
  /** Only those opened by this account (GitHub's `creator`). */
  creatorId?: number;
  /** Only those updated at or after this time (GitHub's `since`; ISO 8601 as stored). */
  since?: string;
  /** Only those assigned to this account (GitHub's `assignee=<login>`). */
  assigneeId?: number;
  /** Only those with no assignee (`assignee=none`) or with any (`assignee=*`). */
  assigned?: 'none' | 'any';
  /** Only those of the milestone with this number (GitHub's `milestone=<number>`). */
  milestoneNumber?: number;
  /** Only those without a milestone (`milestone=none`) or with any (`milestone=*`). */
  milestoned?: 'none' | 'any';
  /** Matches nothing: a filter no issue can meet (an unknown account). */
  nothing?: boolean;
}

/** True when the filter narrows beyond state: the kept counts no longer give its total. */
export function narrowsBeyondState(filter: IssueFilter): boolean {
  return filter.labels.length > 0 || filter.creatorId !== undefined || filter.since !== undefined || filter.assigneeId !== undefined || filter.assigned !== undefined || filter.milestoneNumber !== undefined || filter.milestoned !== undefined || filter.nothing === true;
}

/** The conditions every kind of conversation shares (author, update time, assignees, milestone, nothing), over the alias given. */
export function sharedConditions(alias: 'i' | 'p', filter: IssueFilter): { where: string; params: Array<string | number> } {
  let where = '';
  const params: Array<string | number> = [];
  if (filter.creatorId !== undefined) {
    where += ` AND ${alias}.author_id = ?`;
    params.push(filter.creatorId);
  }
  if (filter.since !== undefined) {
    where += ` AND ${alias}.updated_at >= ?`;
    params.push(filter.since);
  }
  const assignees = `SELECT 1 FROM assignees a WHERE a.repo_id = ${alias}.repo_id AND a.number = ${alias}.number`;
  if (filter.assigneeId !== undefined) {
    where += ` AND EXISTS (${assignees} AND a.user_id = ?)`;
    params.push(filter.assigneeId);
  }
  if (filter.assigned === 'any') where += ` AND EXISTS (${assignees})`;
  if (filter.assigned === 'none') where += ` AND NOT EXISTS (${assignees})`;
  const milestoned = `SELECT 1 FROM conversation_milestones cm WHERE cm.repo_id = ${alias}.repo_id AND cm.number = ${alias}.number`;
  if (filter.milestoneNumber !== undefined) {
    where += ` AND EXISTS (${milestoned} AND cm.milestone_id = (SELECT m.id FROM milestones m WHERE m.repo_id = ${alias}.repo_id AND m.number = ?))`;
    params.push(filter.milestoneNumber);
  }
  if (filter.milestoned === 'any') where += ` AND EXISTS (${milestoned})`;
  if (filter.milestoned === 'none') where += ` AND NOT EXISTS (${milestoned})`;
  if (filter.nothing) where += ' AND 0 = 1';
  return { where, params };
}

/** The WHERE clause (over `issues i`) of an issue filter. */
export function filterClause(repoId: number, filter: IssueFilter): { where: string; params: SqlParam[] } {
  let where = 'i.repo_id = ?';
  const params: SqlParam[] = [repoId];
  if (filter.status) {
    where += ' AND i.status = ?';
    params.push(filter.status);
  }
  if (filter.labels.length > 0) {
    // Every named label must be on the issue: count the matches among the issue's labels (the names are distinct).
    const names = inList(filter.labels);
    where += ` AND (SELECT COUNT(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id
      WHERE il.issue_id = i.id AND l.name_lower ${names.sql}) = ?`;
    params.push(...names.params, filter.labels.length);
  }
  const shared = sharedConditions('i', filter);
  return { where: where + shared.where, params: [...params, ...shared.params] };
}

/** Attaches labels to issues with one query for the whole page. */
async function withLabels(db: ReadTx, records: IssueRecord[]): Promise<IssueRow[]> {
  const labels = await labelsOfIssues(db, records.map((record) => record.id));
  // Built field by field: copying with a rest pattern was a measurable share of a list's cost.
  return records.map((record) => ({
    id: record.id,
    number: record.number,
    repo_id: record.repo_id,
    title: record.title,
    body: record.body,
    author: record.author,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
    closed_at: record.closed_at,
    closed_by: record.closed_by,
    state_reason: record.state_reason,
    comments: record.comments,
    locked: record.locked,
    lock_reason: record.lock_reason,
    labels: labels.get(record.id) ?? [],
  }));
}

export async function issuesOfRepository(db: ReadTx, repoId: number, filter: IssueFilter, page: PageWindow): Promise<IssueRow[]> {
  const { where, params } = filterClause(repoId, filter);
  const direction = filter.direction === 'asc' ? 'ASC' : 'DESC';
  // Numbers grow with creation time: ordering by them walks the (repo_id[, status], number) indexes.
  const order =
    filter.sort === 'updated' ? `i.updated_at ${direction}, i.id ${direction}` : filter.sort === 'comments' ? `i.comment_count ${direction}, i.number ${direction}` : `i.number ${direction}`;
  const records = (await db.all<IssueSqlRow>(`${SELECT} WHERE ${where} ORDER BY ${order} LIMIT ? OFFSET ?`, [...params, page.limit, page.offset])).map(recordFrom);
  return await withLabels(db, records);
}

/** How many issues the filter matches: from the kept counts unless labels are involved (then counted). */
export async function countFilteredIssues(db: ReadTx, repoId: number, filter: IssueFilter): Promise<number> {
  if (!narrowsBeyondState(filter)) return await keptCount(db, repoId, 'issue', filter.status ? [filter.status] : undefined);
  const { where, params } = filterClause(repoId, filter);
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM issues i WHERE ${where}`, params))!.n;
}

/** The stored issue (with its author id, for permission checks). */
export async function issueRecord(db: ReadTx, repoId: number, id: number): Promise<IssueRecord | undefined> {
  const row = await db.get<IssueSqlRow>(`${SELECT} WHERE i.repo_id = ? AND i.id = ?`, [repoId, id]);
  return row && recordFrom(row);
}

export async function issueInRepository(db: ReadTx, repoId: number, id: number): Promise<IssueRow | undefined> {
  const record = await issueRecord(db, repoId, id);
  return record ? (await withLabels(db, [record]))[0] : undefined;
}

/** The issues of the repository with these ids, in no particular order, with their labels: a page in two queries. */
export async function issuesByIds(db: ReadTx, repoId: number, ids: readonly number[]): Promise<IssueRow[]> {
  if (ids.length === 0) return [];
  // By primary key alone (a condition on repo_id would make SQLite walk the repository's index instead).
  const list = inList(ids);
  return await withLabels(db, (await db.all<IssueSqlRow>(`${SELECT} WHERE i.id ${list.sql}`, list.params)).map(recordFrom).filter((record) => record.repo_id === repoId));
}

/** The issue with this per-repository number (issues and pull requests share the numbering). */
export async function issueByNumber(db: ReadTx, repoId: number, number: number): Promise<IssueRow | undefined> {
  const row = await db.get<IssueSqlRow>(`${SELECT} WHERE i.repo_id = ? AND i.number = ?`, [repoId, number]);
  return row ? (await withLabels(db, [recordFrom(row)]))[0] : undefined;
}

export async function countIssues(db: ReadTx, repoId: number): Promise<number> {
  return await keptCount(db, repoId, 'issue');
}

/** Inserts an open issue and counts it (see `countAdded`). */
export async function insertIssue(tx: WriteTx, issue: { repoId: number; number: number; authorId: number; title: string; body: string; now: string }): Promise<number> {
  const id = (await tx.run<{ id: number }>(
    `INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?) RETURNING id`,
    [issue.repoId, issue.number, issue.authorId, issue.title, issue.body, issue.now, issue.now],
  )).rows[0]!.id;
  await countAdded(tx, issue.repoId, 'issue', 'open');
  return id;
}

export async function updateIssueText(tx: WriteTx, id: number, fields: { title: string; body: string }, now: string): Promise<void> {
  await tx.run('UPDATE issues SET title = ?, body = ?, updated_at = ? WHERE id = ?', [fields.title, fields.body, now, id]);
}

/** Closing records when, by whom and why; reopening clears when and by whom. The kept counts follow. */
export async function setIssueStatus(tx: WriteTx, id: number, status: 'open' | 'closed', byUserId: number, now: string, reason: string | null = null): Promise<void> {
  const before = await tx.get<{ repo_id: number; status: string }>('SELECT repo_id, status FROM issues WHERE id = ?', [id]);
  if (!before) return;
  await countMoved(tx, before.repo_id, 'issue', before.status, status);
  if (status === 'closed') {
    await tx.run(`UPDATE issues SET status = 'closed', closed_at = ?, closed_by = ?, state_reason = ?, updated_at = ? WHERE id = ?`, [now, byUserId, reason, now, id]);
  } else {
    await tx.run(`UPDATE issues SET status = 'open', closed_at = NULL, closed_by = NULL, state_reason = ?, updated_at = ? WHERE id = ?`, [reason, now, id]);
  }
}

/** Changes only why an issue is closed (a closed issue marked not planned after all, ...). */
export async function setIssueStateReason(tx: WriteTx, id: number, reason: string | null, now: string): Promise<void> {
  await tx.run('UPDATE issues SET state_reason = ?, updated_at = ? WHERE id = ?', [reason, now, id]);
}

export interface IssueCommentRow {
  id: number;
  author: string;
  author_id: number;
  body: string;
  created_at: string;
  updated_at: string;
}

const COMMENT_SELECT = `SELECT c.id, u.username AS author, c.author_id, c.body, c.created_at, c.updated_at
  FROM issue_comments c JOIN users u ON u.id = c.author_id`;

/** An issue's comments in order, a page of them; with `since`, only those updated at or after it (and how many). */
export async function commentsOfIssue(db: ReadTx, issueId: number, page: PageWindow, since?: string): Promise<{ rows: IssueCommentRow[]; matching?: number }> {
  if (since === undefined) return { rows: await db.all<IssueCommentRow>(`${COMMENT_SELECT} WHERE c.issue_id = ? ORDER BY c.id LIMIT ? OFFSET ?`, [issueId, page.limit, page.offset]) };
  const rows = await db.all<IssueCommentRow>(`${COMMENT_SELECT} WHERE c.issue_id = ? AND c.updated_at >= ? ORDER BY c.id LIMIT ? OFFSET ?`, [issueId, since, page.limit, page.offset]);
  const counted = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM issue_comments WHERE issue_id = ? AND updated_at >= ?', [issueId, since]);
  return { rows, matching: Number(counted?.n ?? 0) };
}

/** A comment of an issue or pull request of a repository, with the number of the one it is on. */
export interface RepositoryCommentRow extends IssueCommentRow {
  number: number;
}

/** The order of a list of comments, and from when (GitHub's `sort`, `direction` and `since`). */
export interface CommentOrder {
  sort: 'created' | 'updated';
  direction: 'asc' | 'desc';
  /** Only those updated at or after this time (ISO 8601 as stored). */
  since?: string;
}

/**
 * The comments of every issue and pull request of a repository (one sequence of ids), a page of them in the order
 * asked, and how many there are: two statements whatever the page.
 */
export async function commentsOfRepository(db: ReadTx, repoId: number, order: CommentOrder, page: PageWindow): Promise<{ rows: RepositoryCommentRow[]; total: number }> {
  const after = order.since === undefined ? '' : ' AND c.updated_at >= ?';
  const params: SqlParam[] = order.since === undefined ? [repoId] : [repoId, order.since];
  const both = `SELECT c.id, u.username AS author, c.author_id, c.body, c.created_at, c.updated_at, i.number
      FROM issue_comments c JOIN issues i ON i.id = c.issue_id JOIN users u ON u.id = c.author_id WHERE i.repo_id = ?${after}
    UNION ALL
    SELECT c.id, u.username AS author, c.author_id, c.text AS body, c.created_at, c.updated_at, p.number
      FROM pull_comments c JOIN pull_requests p ON p.id = c.pull_id JOIN users u ON u.id = c.author_id WHERE p.repo_id = ?${after}`;
  const column = order.sort === 'updated' ? 'updated_at' : 'created_at';
  const direction = order.direction === 'desc' ? 'DESC' : 'ASC';
  const rows = await db.all<RepositoryCommentRow>(`SELECT * FROM (${both}) AS comments ORDER BY ${column} ${direction}, id ${direction} LIMIT ? OFFSET ?`, [...params, ...params, page.limit, page.offset]);
  const counted = await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM (${both}) AS comments`, [...params, ...params]);
  return { rows, total: Number(counted?.n ?? 0) };
}

export async function issueComment(db: ReadTx, issueId: number, commentId: number): Promise<IssueCommentRow | undefined> {
  return await db.get<IssueCommentRow>(`${COMMENT_SELECT} WHERE c.issue_id = ? AND c.id = ?`, [issueId, commentId]);
}

/** Adds a comment (its id shared with pull request comments) and keeps the issue's comment count and updated time in step. */
export async function insertIssueComment(tx: WriteTx, comment: { issueId: number; authorId: number; body: string; now: string }): Promise<number> {
  const id = await takeId(tx, 'comment');
  await tx.run('INSERT INTO issue_comments (id, issue_id, author_id, body, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [
    id,
    comment.issueId,
    comment.authorId,
    comment.body,
    comment.now,
    comment.now,
  ]);
  await tx.run('UPDATE issues SET comment_count = comment_count + 1, updated_at = ? WHERE id = ?', [comment.now, comment.issueId]);
  return id;
}

export async function updateIssueComment(tx: WriteTx, commentId: number, body: string, now: string): Promise<void> {
  await tx.run('UPDATE issue_comments SET body = ?, updated_at = ? WHERE id = ?', [body, now, commentId]);
}

/** Deletes a comment of the repository's issue, with its reactions. */
export async function deleteIssueComment(tx: WriteTx, repoId: number, issueId: number, commentId: number): Promise<void> {
  if ((await tx.run('DELETE FROM issue_comments WHERE id = ? AND issue_id = ?', [commentId, issueId])).changes > 0) {
    await tx.run('UPDATE issues SET comment_count = comment_count - 1 WHERE id = ?', [issueId]);
    await deleteReactionsTo(tx, repoId, 'comment', commentId);
  }
}
