import type { ReadTx, WriteTx } from '../interface.js';
import { filterClause, narrowsBeyondState, sharedConditions, type IssueFilter } from './issues.js';
import { keptCount } from './list-counts.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import type { SqlParam } from '../write-log.js';

/** An issue or a pull request: they share one numbering per repository, as on GitHub. */
export interface ConversationKey {
  kind: 'issue' | 'pull';
  id: number;
}

/** The pull requests an issue filter keeps: those in its state, with every label it names. */
function pullClause(repoId: number, filter: IssueFilter): { where: string; params: SqlParam[] } {
  const shared = sharedConditions('p', filter);
  const status = filter.status === 'open' ? " AND p.status = 'open'" : filter.status === 'closed' ? " AND p.status IN ('closed', 'merged')" : '';
  let labels = '';
  const labelParams: SqlParam[] = [];
  if (filter.labels.length > 0) {
    // Every named label must be on the pull request: count the matches among its labels (the names are distinct).
    const names = inList(filter.labels);
    labels = ` AND (SELECT COUNT(*) FROM pull_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.pull_id = p.id AND l.name_lower ${names.sql}) = ?`;
    labelParams.push(...names.params, filter.labels.length);
  }
  return { where: `p.repo_id = ?${status}${labels}${shared.where}`, params: [repoId, ...labelParams, ...shared.params] };
}

/** Issues and pull requests together in one list, by number or update time. */
export async function conversationsOfRepository(db: ReadTx, repoId: number, filter: IssueFilter, page: PageWindow): Promise<ConversationKey[]> {
  const issues = filterClause(repoId, filter);
  const pulls = pullClause(repoId, filter);
  const direction = filter.direction === 'asc' ? 'ASC' : 'DESC';
  const order =
    filter.sort === 'updated' ? `updated_at ${direction}, number ${direction}` : filter.sort === 'comments' ? `comments ${direction}, number ${direction}` : `number ${direction}`;
  // Each side walks its own index only as far as the page reaches (offset + limit), then the two are merged: the
  // cost follows the page, not the repository's size (by comments, each side is sorted whole: no index has them).
  const reach = page.offset + page.limit;
  return await db.all<ConversationKey>(
    `SELECT kind, id FROM (
       SELECT kind, id, number, updated_at, comments FROM (
         SELECT 'issue' AS kind, i.id AS id, i.number AS number, i.updated_at AS updated_at, i.comment_count AS comments FROM issues i WHERE ${issues.where}
         ORDER BY ${order} LIMIT ?) AS newest_issues
       UNION ALL
       SELECT kind, id, number, updated_at, comments FROM (
         SELECT 'pull' AS kind, p.id AS id, p.number AS number, p.updated_at AS updated_at, p.comment_count AS comments FROM pull_requests p WHERE ${pulls.where}
         ORDER BY ${order} LIMIT ?) AS newest_pulls
     ) AS conversations ORDER BY ${order} LIMIT ? OFFSET ?`,
    [...issues.params, reach, ...pulls.params, reach, page.limit, page.offset],
  );
}

/** How many the combined list holds (kept counts unless the filter narrows beyond state). */
export async function countConversations(db: ReadTx, repoId: number, filter: IssueFilter, countIssues: number): Promise<number> {
  if (narrowsBeyondState(filter)) {
    const pulls = pullClause(repoId, filter);
    return countIssues + (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM pull_requests p WHERE ${pulls.where}`, pulls.params))!.n;
  }
  const statuses = filter.status === undefined ? undefined : filter.status === 'open' ? ['open'] : ['closed', 'merged'];
  return countIssues + await keptCount(db, repoId, 'pull', statuses);
}

/** Which issue or pull request of the repository a comment id belongs to (one id sequence for both). */
export async function commentOwner(db: ReadTx, repoId: number, commentId: number): Promise<ConversationKey | undefined> {
  return await db.get<ConversationKey>(
    `SELECT 'issue' AS kind, i.id AS id FROM issue_comments c JOIN issues i ON i.id = c.issue_id WHERE c.id = ? AND i.repo_id = ?
     UNION ALL
     SELECT 'pull' AS kind, p.id AS id FROM pull_comments c JOIN pull_requests p ON p.id = c.pull_id WHERE c.id = ? AND p.repo_id = ?
     LIMIT 1`,
    [commentId, repoId, commentId, repoId],
  );
}

/** Whether the issue or pull request numbered `number` is locked; undefined when the repository has none so numbered. */
export async function lockOfNumber(db: ReadTx, repoId: number, number: number): Promise<boolean | undefined> {
  const row = await db.get<{ locked: number }>(
    'SELECT locked FROM issues WHERE repo_id = ? AND number = ? UNION ALL SELECT locked FROM pull_requests WHERE repo_id = ? AND number = ? LIMIT 1',
    [repoId, number, repoId, number],
  );
  return row === undefined ? undefined : row.locked === 1;
}

/** Whether the conversation a comment is on is locked; undefined when the repository has no such comment. */
export async function lockOfComment(db: ReadTx, repoId: number, commentId: number): Promise<boolean | undefined> {
  const row = await db.get<{ locked: number }>(
    `SELECT i.locked FROM issue_comments c JOIN issues i ON i.id = c.issue_id WHERE c.id = ? AND i.repo_id = ?
     UNION ALL
     SELECT p.locked FROM pull_comments c JOIN pull_requests p ON p.id = c.pull_id WHERE c.id = ? AND p.repo_id = ?
     LIMIT 1`,
    [commentId, repoId, commentId, repoId],
  );
  return row === undefined ? undefined : row.locked === 1;
}

/** Whether the repository has an issue or pull request numbered `number`. */
export async function conversationExists(db: ReadTx, repoId: number, number: number): Promise<boolean> {
  return (await db.get(
    'SELECT 1 AS found FROM issues WHERE repo_id = ? AND number = ? UNION ALL SELECT 1 AS found FROM pull_requests WHERE repo_id = ? AND number = ? LIMIT 1',
    [repoId, number, repoId, number],
  )) !== undefined;
}

/** The issues and pull requests of some numbers of a repository, by number, in one query. */
export async function conversationsByNumbers(db: ReadTx, repoId: number, numbers: readonly number[]): Promise<Map<number, ConversationKey & { title: string }>> {
  const found = new Map<number, ConversationKey & { title: string }>();
  if (numbers.length === 0) return found;
  const list = inList([...new Set(numbers)]);
  const rows = await db.all<ConversationKey & { number: number; title: string }>(
    `SELECT 'issue' AS kind, id, number, title FROM issues WHERE repo_id = ? AND number ${list.sql}
     UNION ALL SELECT 'pull' AS kind, id, number, title FROM pull_requests WHERE repo_id = ? AND number ${list.sql}`,
    [repoId, ...list.params, repoId, ...list.params],
  );
  for (const { number, ...row } of rows) found.set(number, row);
  return found;
}

/** Locks or unlocks an issue or a pull request (`reason`: GitHub's `active_lock_reason`, null for none or unlocked). */
export async function updateConversationLock(tx: WriteTx, kind: 'issue' | 'pull', id: number, locked: boolean, reason: string | null, now: string): Promise<void> {
  const table = kind === 'issue' ? 'issues' : 'pull_requests';
  await tx.run(`UPDATE ${table} SET locked = ?, lock_reason = ?, updated_at = ? WHERE id = ?`, [locked ? 1 : 0, reason, now, id]);
}
