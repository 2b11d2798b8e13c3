import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import { readableBy } from './readable.js';

/** Why an account hears of a thread (GitHub's reasons). */
export type NotificationReason = 'assign' | 'author' | 'comment' | 'mention' | 'review_requested' | 'state_change' | 'subscribed';

/** A thread of an account's inbox, with what it is about (an issue's or a pull request's title). */
export interface NotificationRow {
  id: number;
  user_id: number;
  repo_id: number;
  number: number;
  reason: NotificationReason;
  unread: number;
  updated_at: string;
  last_read_at: string | null;
  title: string | null;
  /** 'pull' for a pull request, 'issue' otherwise. */
  kind: 'issue' | 'pull';
}

export interface NotificationFilter {
  /** Read threads too (GitHub's `all`). */
  all: boolean;
  /** Only threads the account takes part in: every reason but `subscribed` (GitHub's `participating`). */
  participating: boolean;
  repoId?: number;
  /** Updated at or after / before these times (ISO 8601). */
  since?: string;
  before?: string;
}

const THREAD = `SELECT n.id, n.user_id, n.repo_id, n.number, n.reason, n.unread, n.updated_at, n.last_read_at,
    COALESCE(i.title, p.title) AS title, CASE WHEN p.id IS NULL THEN 'issue' ELSE 'pull' END AS kind
  FROM notifications n
  LEFT JOIN issues i ON i.repo_id = n.repo_id AND i.number = n.number
  LEFT JOIN pull_requests p ON p.repo_id = n.repo_id AND p.number = n.number`;

/**
 * The account's threads it may still read (a repository made private since, or a collaboration that ended, hides
 * them; counts too), not marked done.
 */
const READABLE = `n.done = 0 AND EXISTS (SELECT 1 FROM repositories r WHERE r.id = n.repo_id AND ${readableBy('n.user_id')})`;

function where(userId: number, filter: NotificationFilter): { sql: string; params: Array<string | number> } {
  let sql = `n.user_id = ? AND ${READABLE}`;
  const params: Array<string | number> = [userId];
  if (!filter.all) sql += ' AND n.unread = 1';
  if (filter.participating) sql += " AND n.reason <> 'subscribed'";
  if (filter.repoId !== undefined) {
    sql += ' AND n.repo_id = ?';
    params.push(filter.repoId);
  }
  if (filter.since !== undefined) {
    sql += ' AND n.updated_at >= ?';
    params.push(filter.since);
  }
  if (filter.before !== undefined) {
    sql += ' AND n.updated_at < ?';
    params.push(filter.before);
  }
  return { sql, params };
}

/** An account's threads, the most recently updated first. */
export async function notificationsOf(db: ReadTx, userId: number, filter: NotificationFilter, page: PageWindow): Promise<NotificationRow[]> {
  const { sql, params } = where(userId, filter);
  return await db.all<NotificationRow>(`${THREAD} WHERE ${sql} ORDER BY n.updated_at DESC, n.id DESC LIMIT ? OFFSET ?`, [...params, page.limit, page.offset]);
}

export async function countNotifications(db: ReadTx, userId: number, filter: NotificationFilter): Promise<number> {
  const { sql, params } = where(userId, filter);
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM notifications n WHERE ${sql}`, params))!.n;
}

export async function notificationOf(db: ReadTx, userId: number, id: number): Promise<NotificationRow | undefined> {
  return await db.get<NotificationRow>(`${THREAD} WHERE n.user_id = ? AND n.id = ? AND ${READABLE}`, [userId, id]);
}

/** Tells each account of the thread: unread again, updated now, with this reason. */
export async function notifyAccounts(tx: WriteTx, recipients: ReadonlyMap<number, NotificationReason>, repoId: number, number: number, now: string): Promise<void> {
  for (const [userId, reason] of recipients) {
    await tx.run(
      `INSERT INTO notifications (user_id, repo_id, number, reason, unread, updated_at) VALUES (?, ?, ?, ?, 1, ?)
       ON CONFLICT (user_id, repo_id, number) DO UPDATE SET reason = excluded.reason, unread = 1, done = 0, updated_at = excluded.updated_at`,
      [userId, repoId, number, reason, now],
    );
  }
}

/**
 * Marks threads read at `readAt`: one (`id`), one conversation's, or all of an account's (in a repository) updated up
 * to then.
 */
export async function markNotificationsRead(tx: WriteTx, userId: number, which: { id: number } | { repoId: number; number: number } | { repoId?: number }, readAt: string): Promise<number> {
  if ('id' in which) return (await tx.run('UPDATE notifications SET unread = 0, last_read_at = ? WHERE user_id = ? AND id = ? AND unread = 1', [readAt, userId, which.id])).changes;
  if ('number' in which) {
    return (await tx.run('UPDATE notifications SET unread = 0, last_read_at = ? WHERE user_id = ? AND repo_id = ? AND number = ? AND unread = 1', [readAt, userId, which.repoId, which.number])).changes;
  }
  const repo = which.repoId === undefined ? '' : ' AND repo_id = ?';
  const params = which.repoId === undefined ? [readAt, userId, readAt] : [readAt, userId, readAt, which.repoId];
  return (await tx.run(`UPDATE notifications SET unread = 0, last_read_at = ? WHERE user_id = ? AND unread = 1 AND updated_at <= ?${repo}`, params)).changes;
}

/** GitHub's "done": the thread leaves the inbox until news brings it back (the account still hears of it). */
export async function markNotificationDone(tx: WriteTx, userId: number, id: number): Promise<boolean> {
  return (await tx.run('UPDATE notifications SET done = 1, unread = 0 WHERE user_id = ? AND id = ?', [userId, id])).changes > 0;
}

/** Whether the account has an unread thread about this conversation (a page view marks it read only then). */
export async function hasUnreadThread(db: ReadTx, userId: number, repoId: number, number: number): Promise<boolean> {
  return (await db.get('SELECT 1 AS found FROM notifications WHERE user_id = ? AND repo_id = ? AND number = ? AND unread = 1', [userId, repoId, number])) !== undefined;
}

/** Who takes part in a conversation: its author, then those who commented or reviewed (ids, each once). */
export async function participantsOf(db: ReadTx, repoId: number, number: number): Promise<{ authorId: number | undefined; commenters: number[] }> {
  const issue = await db.get<{ id: number; author_id: number }>('SELECT id, author_id FROM issues WHERE repo_id = ? AND number = ?', [repoId, number]);
  if (issue) {
    const rows = await db.all<{ author_id: number }>('SELECT DISTINCT author_id FROM issue_comments WHERE issue_id = ?', [issue.id]);
    return { authorId: issue.author_id, commenters: rows.map((row) => row.author_id) };
  }
  const pull = await db.get<{ id: number; author_id: number }>('SELECT id, author_id FROM pull_requests WHERE repo_id = ? AND number = ?', [repoId, number]);
  if (!pull) return { authorId: undefined, commenters: [] };
  const rows = await db.all<{ author_id: number }>(
    `SELECT author_id FROM pull_comments WHERE pull_id = ?
     UNION SELECT user_id AS author_id FROM pull_reviews WHERE pull_id = ?
     UNION SELECT user_id AS author_id FROM pull_review_comments WHERE pull_id = ?`,
    [pull.id, pull.id, pull.id],
  );
  return { authorId: pull.author_id, commenters: rows.map((row) => row.author_id) };
}

/** Which of these accounts may read the private repository: its owner and its collaborators (one query). */
export async function readersAmong(db: ReadTx, repo: { id: number; owner_id: number }, userIds: readonly number[]): Promise<Set<number>> {
  const readers = new Set(userIds.filter((id) => id === repo.owner_id));
  if (userIds.length === 0) return readers;
  const list = inList([...new Set(userIds)]);
  for (const row of await db.all<{ user_id: number }>(`SELECT user_id FROM collaborators WHERE repo_id = ? AND user_id ${list.sql}`, [repo.id, ...list.params])) readers.add(row.user_id);
  return readers;
}

/** Who already has the thread (told of it before: subscribed to it from then on, as on GitHub), with their reason. */
export async function threadHolders(db: ReadTx, repoId: number, number: number): Promise<Array<{ user_id: number; reason: NotificationReason }>> {
  return await db.all('SELECT user_id, reason FROM notifications WHERE repo_id = ? AND number = ? ORDER BY user_id', [repoId, number]);
}

/** The accounts watching a repository. */
export async function watchersOf(db: ReadTx, repoId: number): Promise<number[]> {
  return (await db.all<{ user_id: number }>('SELECT user_id FROM watches WHERE repo_id = ? ORDER BY user_id', [repoId])).map((row) => row.user_id);
}
