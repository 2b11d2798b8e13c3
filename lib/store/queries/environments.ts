import type { ReadTx, WriteTx } from '../interface.js';
import type { PageWindow } from './page-window.js';

export interface EnvironmentRow {
  id: number;
  name: string;
  created_at: string;
  updated_at: string;
}

const SELECT = 'SELECT id, name, created_at, updated_at FROM environments';

/** The repository's environments by name (regardless of case), with how many there are. */
export async function environmentsOf(db: ReadTx, repoId: number, page: PageWindow): Promise<{ rows: EnvironmentRow[]; total: number }> {
  const rows = await db.all<EnvironmentRow>(`${SELECT} WHERE repo_id = ? ORDER BY name_lower LIMIT ? OFFSET ?`, [repoId, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM environments WHERE repo_id = ?', [repoId]))!.n;
  return { rows, total };
}

/** Names are unique per repository regardless of case. */
export async function environmentNamed(db: ReadTx, repoId: number, name: string): Promise<EnvironmentRow | undefined> {
  return await db.get<EnvironmentRow>(`${SELECT} WHERE repo_id = ? AND name_lower = ?`, [repoId, name.toLowerCase()]);
}

/** The environment of that name, made when the repository has none (a deployment to it makes one, as on GitHub). */
export async function ensureEnvironment(tx: WriteTx, repoId: number, name: string, now: string): Promise<EnvironmentRow> {
  const existing = await environmentNamed(tx, repoId, name);
  if (existing) return existing;
  await tx.run('INSERT INTO environments (repo_id, name, name_lower, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [repoId, name, name.toLowerCase(), now, now]);
  return (await environmentNamed(tx, repoId, name))!;
}

export async function touchEnvironment(tx: WriteTx, id: number, now: string): Promise<void> {
  await tx.run('UPDATE environments SET updated_at = ? WHERE id = ?', [now, id]);
}

export async function deleteEnvironment(tx: WriteTx, repoId: number, id: number): Promise<void> {
  await tx.run('DELETE FROM environments WHERE repo_id = ? AND id = ?', [repoId, id]);
}
