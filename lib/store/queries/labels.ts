import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

export interface LabelRow {
  id: number;
  name: string;
  color: string;
  description: string;
}

const COLUMNS = 'id, name, color, description';

export async function labelsOfRepository(db: ReadTx, repoId: number, page: PageWindow): Promise<LabelRow[]> {
  return await db.all<LabelRow>(`SELECT ${COLUMNS} FROM labels WHERE repo_id = ? ORDER BY name_lower LIMIT ? OFFSET ?`, [repoId, page.limit, page.offset]);
}

export async function countLabels(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM labels WHERE repo_id = ?', [repoId]))!.n;
}

export async function labelById(db: ReadTx, repoId: number, id: number): Promise<LabelRow | undefined> {
  return await db.get<LabelRow>(`SELECT ${COLUMNS} FROM labels WHERE repo_id = ? AND id = ?`, [repoId, id]);
}

/** Labels are unique per repository regardless of case. */
export async function labelByName(db: ReadTx, repoId: number, name: string): Promise<LabelRow | undefined> {
  return await db.get<LabelRow>(`SELECT ${COLUMNS} FROM labels WHERE repo_id = ? AND name_lower = ?`, [repoId, name.toLowerCase()]);
}

export async function insertLabel(tx: WriteTx, repoId: number, label: Omit<LabelRow, 'id'>): Promise<LabelRow> {
  return (await tx.run<LabelRow>(`INSERT INTO labels (repo_id, name, name_lower, color, description) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`, [
    repoId,
    label.name,
    label.name.toLowerCase(),
    label.color,
    label.description,
  ])).rows[0]!;
}

export async function updateLabel(tx: WriteTx, id: number, label: Omit<LabelRow, 'id'>): Promise<void> {
  await tx.run('UPDATE labels SET name = ?, name_lower = ?, color = ?, description = ? WHERE id = ?', [
    label.name,
    label.name.toLowerCase(),
    label.color,
    label.description,
    id,
  ]);
}

export async function deleteLabel(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM labels WHERE id = ?', [id]);
}

/** The labels of each issue, ordered by name, in one query for a whole page of issues (at most a page's length). */
export async function labelsOfIssues(db: ReadTx, issueIds: readonly number[]): Promise<Map<number, LabelRow[]>> {
  const byIssue = new Map<number, LabelRow[]>();
  if (issueIds.length === 0) return byIssue;
  const ids = inList(issueIds);
  const rows = await db.all<LabelRow & { issue_id: number }>(
    `SELECT il.issue_id, l.id, l.name, l.color, l.description FROM issue_labels il JOIN labels l ON l.id = il.label_id
     WHERE il.issue_id ${ids.sql} ORDER BY l.name_lower`,
    ids.params,
  );
  for (const { issue_id: issueId, ...label } of rows) {
    const list = byIssue.get(issueId) ?? [];
    list.push(label);
    byIssue.set(issueId, list);
  }
  return byIssue;
}

export async function addIssueLabel(tx: WriteTx, issueId: number, labelId: number): Promise<void> {
  await tx.run('INSERT INTO issue_labels (issue_id, label_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [issueId, labelId]);
}

export async function removeIssueLabel(tx: WriteTx, issueId: number, labelId: number): Promise<boolean> {
  return (await tx.run('DELETE FROM issue_labels WHERE issue_id = ? AND label_id = ?', [issueId, labelId])).changes > 0;
}

export async function touchIssueForLabels(tx: WriteTx, issueId: number, now: string): Promise<void> {
  await tx.run('UPDATE issues SET updated_at = ? WHERE id = ?', [now, issueId]);
}

export async function clearIssueLabels(tx: WriteTx, issueId: number): Promise<void> {
  await tx.run('DELETE FROM issue_labels WHERE issue_id = ?', [issueId]);
}

/** The labels of several pull requests, by pull request id, in one query. */
export async function labelsOfPulls(db: ReadTx, pullIds: readonly number[]): Promise<Map<number, LabelRow[]>> {
  const byPull = new Map<number, LabelRow[]>();
  if (pullIds.length === 0) return byPull;
  const ids = inList(pullIds);
  const rows = await db.all<LabelRow & { pull_id: number }>(
    `SELECT pl.pull_id, l.id, l.name, l.color, l.description FROM pull_labels pl JOIN labels l ON l.id = pl.label_id
     WHERE pl.pull_id ${ids.sql} ORDER BY l.name_lower`,
    ids.params,
  );
  for (const { pull_id: pullId, ...label } of rows) byPull.set(pullId, [...(byPull.get(pullId) ?? []), label]);
  return byPull;
}

export async function addPullLabel(tx: WriteTx, pullId: number, labelId: number): Promise<void> {
  await tx.run('INSERT INTO pull_labels (pull_id, label_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [pullId, labelId]);
}

export async function removePullLabel(tx: WriteTx, pullId: number, labelId: number): Promise<boolean> {
  return (await tx.run('DELETE FROM pull_labels WHERE pull_id = ? AND label_id = ?', [pullId, labelId])).changes > 0;
}

export async function touchPullForLabels(tx: WriteTx, pullId: number, now: string): Promise<void> {
  await tx.run('UPDATE pull_requests SET updated_at = ? WHERE id = ?', [now, pullId]);
}

export async function clearPullLabels(tx: WriteTx, pullId: number): Promise<void> {
  await tx.run('DELETE FROM pull_labels WHERE pull_id = ?', [pullId]);
}
