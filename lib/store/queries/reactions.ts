import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

/**
 * What a reaction is to (GitHub's five kinds): an issue or a pull request by its number (they share one numbering), a
 * conversation comment of either by its id (one sequence), a review comment, a commit comment or a release by its id.
 */
/** GitHub's reaction contents, in the order its rollups list them. */
export const REACTION_CONTENTS = ['+1', '-1', 'laugh', 'hooray', 'confused', 'heart', 'rocket', 'eyes'] as const;
export type ReactionContent = (typeof REACTION_CONTENTS)[number];

export type ReactionSubject = 'issue' | 'comment' | 'review_comment' | 'commit_comment' | 'release';

export interface ReactionRow {
  id: number;
  user_id: number;
  username: string;
  content: string;
  created_at: string;
}

/** How many reactions of each content an object has (contents nobody chose left out). */
export type ReactionCounts = ReadonlyMap<string, number>;

const SELECT = 'SELECT r.id, r.user_id, u.username, r.content, r.created_at FROM reactions r JOIN users u ON u.id = r.user_id';

/** The reactions to one object, oldest first, of one content when `content` is given; with how many there are. */
export async function reactionsTo(db: ReadTx, repoId: number, subject: ReactionSubject, subjectId: number, content: string | undefined, page: PageWindow): Promise<{ rows: ReactionRow[]; total: number }> {
  const where = `r.repo_id = ? AND r.subject = ? AND r.subject_id = ?${content === undefined ? '' : ' AND r.content = ?'}`;
  const params = content === undefined ? [repoId, subject, subjectId] : [repoId, subject, subjectId, content];
  const rows = await db.all<ReactionRow>(`${SELECT} WHERE ${where} ORDER BY r.id LIMIT ? OFFSET ?`, [...params, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM reactions r WHERE ${where}`, params))!.n;
  return { rows, total };
}

/** One reaction to the object, by its id. */
export async function reactionById(db: ReadTx, repoId: number, subject: ReactionSubject, subjectId: number, id: number): Promise<ReactionRow | undefined> {
  return await db.get<ReactionRow>(`${SELECT} WHERE r.repo_id = ? AND r.subject = ? AND r.subject_id = ? AND r.id = ?`, [repoId, subject, subjectId, id]);
}

/** The account's reaction of this content to the object, if it gave one. */
export async function reactionOf(db: ReadTx, repoId: number, subject: ReactionSubject, subjectId: number, userId: number, content: string): Promise<ReactionRow | undefined> {
  return await db.get<ReactionRow>(`${SELECT} WHERE r.repo_id = ? AND r.subject = ? AND r.subject_id = ? AND r.user_id = ? AND r.content = ?`, [repoId, subject, subjectId, userId, content]);
}

export async function insertReaction(tx: WriteTx, repoId: number, subject: ReactionSubject, subjectId: number, userId: number, content: string, now: string): Promise<number> {
  const { rows } = await tx.run<{ id: number }>('INSERT INTO reactions (repo_id, subject, subject_id, user_id, content, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id', [
    repoId,
    subject,
    subjectId,
    userId,
    content,
    now,
  ]);
  return rows[0]!.id;
}

/** Deletes one reaction; false when there was none with that id on the object. */
export async function deleteReaction(tx: WriteTx, repoId: number, subject: ReactionSubject, subjectId: number, id: number): Promise<boolean> {
  return (await tx.run('DELETE FROM reactions WHERE repo_id = ? AND subject = ? AND subject_id = ? AND id = ?', [repoId, subject, subjectId, id])).changes > 0;
}

/** Deletes every reaction to the object (it is being deleted: ids of some kinds may be given again). */
export async function deleteReactionsTo(tx: WriteTx, repoId: number, subject: ReactionSubject, subjectId: number): Promise<void> {
  await tx.run('DELETE FROM reactions WHERE repo_id = ? AND subject = ? AND subject_id = ?', [repoId, subject, subjectId]);
}

/** The reaction counts of several objects of one kind, in one query, by object (those nobody reacted to left out). */
export async function reactionCounts(db: ReadTx, repoId: number, subject: ReactionSubject, subjectIds: readonly number[]): Promise<Map<number, ReactionCounts>> {
  const counts = new Map<number, Map<string, number>>();
  if (subjectIds.length === 0) return counts;
  const list = inList([...new Set(subjectIds)]);
  const rows = await db.all<{ subject_id: number; content: string; n: number }>(
    `SELECT subject_id, content, COUNT(*) AS n FROM reactions WHERE repo_id = ? AND subject = ? AND subject_id ${list.sql} GROUP BY subject_id, content`,
    [repoId, subject, ...list.params],
  );
  for (const row of rows) {
    let of = counts.get(row.subject_id);
    if (!of) counts.set(row.subject_id, (of = new Map()));
    of.set(row.content, row.n);
  }
  return counts;
}
