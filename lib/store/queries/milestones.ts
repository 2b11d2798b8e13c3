import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

/** A milestone, with its creator's name and how many open and closed issues and pull requests it holds. */
export interface MilestoneRow {
  id: number;
  number: number;
  title: string;
  description: string | null;
  state: 'open' | 'closed';
  due_on: string | null;
  creator: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  open_issues: number;
  closed_issues: number;
}

/** How many of a milestone's issues and pull requests are open or not (a merged one is closed), read per milestone row. */
const COUNT = (open: boolean) => `(SELECT COUNT(*) FROM conversation_milestones cm
    LEFT JOIN issues i ON i.repo_id = cm.repo_id AND i.number = cm.number
    LEFT JOIN pull_requests p ON p.repo_id = cm.repo_id AND p.number = cm.number
    WHERE cm.milestone_id = m.id AND COALESCE(i.status, p.status) ${open ? '=' : '<>'} 'open')`;

const MILESTONE_COLUMNS = `m.id, m.number, m.title, m.description, m.state, m.due_on, u.username AS creator, m.created_at, m.updated_at,
  m.closed_at, ${COUNT(true)} AS open_issues, ${COUNT(false)} AS closed_issues`;
const MILESTONE_FROM = 'FROM milestones m JOIN users u ON u.id = m.creator_id';
const MILESTONE = `SELECT ${MILESTONE_COLUMNS} ${MILESTONE_FROM}`;

export interface MilestoneListing {
  state?: 'open' | 'closed';
  sort: 'due_on' | 'completeness';
  direction: 'asc' | 'desc';
}

export async function milestonesOfRepository(db: ReadTx, repoId: number, listing: MilestoneListing, page: PageWindow): Promise<{ items: MilestoneRow[]; total: number }> {
  const state = listing.state ? ' AND m.state = ?' : '';
  const params: Array<string | number> = listing.state ? [repoId, listing.state] : [repoId];
  const direction = listing.direction === 'desc' ? 'DESC' : 'ASC';
  // Milestones without a due date come last, as on GitHub; completeness is the share of closed ones.
  const order =
    listing.sort === 'completeness'
      ? `(CASE WHEN open_issues + closed_issues = 0 THEN 0 ELSE 1.0 * closed_issues / (open_issues + closed_issues) END) ${direction}, number ${direction}`
      : `CASE WHEN due_on IS NULL THEN 1 ELSE 0 END, due_on ${direction}, number ${direction}`;
  // Ordered over the rows with their counts (an alias of a derived table, which both engines take in ORDER BY).
  const items = await db.all<MilestoneRow>(`SELECT * FROM (${MILESTONE} WHERE m.repo_id = ?${state}) AS listed ORDER BY ${order} LIMIT ? OFFSET ?`, [...params, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM milestones m WHERE m.repo_id = ?${state}`, params))!.n;
  return { items, total };
}

export async function milestoneByNumber(db: ReadTx, repoId: number, number: number): Promise<MilestoneRow | undefined> {
  return await db.get<MilestoneRow>(`${MILESTONE} WHERE m.repo_id = ? AND m.number = ?`, [repoId, number]);
}

export async function milestoneById(db: ReadTx, id: number): Promise<MilestoneRow | undefined> {
  return await db.get<MilestoneRow>(`${MILESTONE} WHERE m.id = ?`, [id]);
}

export async function milestoneByTitle(db: ReadTx, repoId: number, title: string): Promise<{ id: number; number: number } | undefined> {
  return await db.get('SELECT id, number FROM milestones WHERE repo_id = ? AND title_lower = ?', [repoId, title.toLowerCase()]);
}

export interface MilestoneFields {
  title: string;
  description: string | null;
  state: 'open' | 'closed';
  due_on: string | null;
}

/** Creates a milestone with the repository's next milestone number (taken with UPDATE … RETURNING on both engines). */
export async function insertMilestone(tx: WriteTx, repoId: number, creatorId: number, fields: MilestoneFields, now: string): Promise<number> {
  const number = (await tx.run<{ number: number }>('UPDATE repositories SET next_milestone = next_milestone + 1 WHERE id = ? RETURNING next_milestone - 1 AS number', [repoId])).rows[0]!.number;
  await tx.run(
    `INSERT INTO milestones (repo_id, number, title, title_lower, description, state, due_on, creator_id, created_at, updated_at, closed_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [repoId, number, fields.title, fields.title.toLowerCase(), fields.description, fields.state, fields.due_on, creatorId, now, now, fields.state === 'closed' ? now : null],
  );
  return number;
}

export async function updateMilestone(tx: WriteTx, id: number, fields: MilestoneFields, closedAt: string | null, now: string): Promise<void> {
  await tx.run('UPDATE milestones SET title = ?, title_lower = ?, description = ?, state = ?, due_on = ?, closed_at = ?, updated_at = ? WHERE id = ?', [
    fields.title,
    fields.title.toLowerCase(),
    fields.description,
    fields.state,
    fields.due_on,
    closedAt,
    now,
    id,
  ]);
}

export async function deleteMilestone(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM conversation_milestones WHERE milestone_id = ?', [id]);
  await tx.run('DELETE FROM milestones WHERE id = ?', [id]);
}

/** Sets (or with null clears) the milestone of an issue or pull request; returns the milestone it had. */
export async function setMilestone(tx: WriteTx, repoId: number, number: number, milestoneId: number | null): Promise<number | null> {
  const had = (await tx.get<{ milestone_id: number }>('SELECT milestone_id FROM conversation_milestones WHERE repo_id = ? AND number = ?', [repoId, number]))?.milestone_id ?? null;
  await tx.run('DELETE FROM conversation_milestones WHERE repo_id = ? AND number = ?', [repoId, number]);
  if (milestoneId !== null) await tx.run('INSERT INTO conversation_milestones (repo_id, number, milestone_id) VALUES (?, ?, ?)', [repoId, number, milestoneId]);
  return had;
}

/** The milestones of several numbers of a repository, in one query. */
export async function milestonesOfNumbers(db: ReadTx, repoId: number, numbers: readonly number[]): Promise<Map<number, MilestoneRow>> {
  const byNumber = new Map<number, MilestoneRow>();
  if (numbers.length === 0) return byNumber;
  // Which of them have a milestone first, from one table: most pages have none, and on sql.js that probe costs a
  // tenth of the milestones joined with their counts (~5 µs against ~55 µs for a page of 30).
  const list = inList([...new Set(numbers)]);
  const links = await db.all<{ number: number; milestone_id: number }>(`SELECT number, milestone_id FROM conversation_milestones WHERE repo_id = ? AND number ${list.sql}`, [
    repoId,
    ...list.params,
  ]);
  if (links.length === 0) return byNumber;
  const ids = inList([...new Set(links.map((link) => link.milestone_id))]);
  const milestones = new Map((await db.all<MilestoneRow>(`${MILESTONE} WHERE m.id ${ids.sql}`, ids.params)).map((row) => [row.id, row]));
  for (const link of links) {
    const milestone = milestones.get(link.milestone_id);
    if (milestone) byNumber.set(link.number, milestone);
  }
  return byNumber;
}
