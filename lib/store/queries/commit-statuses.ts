import type { ReadTx, WriteTx } from '../interface.js';
import type { PageWindow } from './page-window.js';
import { inList } from './in-list.js';

export type StatusState = 'pending' | 'success' | 'error' | 'failure';

export interface CommitStatusRow {
  id: number;
  sha: string;
  state: StatusState;
  context: string;
  description: string;
  target_url: string | null;
  creator: string | null;
  created_at: string;
  updated_at: string;
}

const SELECT = `SELECT s.id, s.sha, s.state, s.context, s.description, s.target_url, u.username AS creator, s.created_at, s.updated_at
  FROM commit_statuses s LEFT JOIN users u ON u.id = s.creator_id`;

export interface NewCommitStatus {
  repoId: number;
  sha: string;
  state: StatusState;
  context: string;
  description: string;
  targetUrl: string | null;
  creatorId: number | null;
  now: string;
}

export async function insertCommitStatus(tx: WriteTx, status: NewCommitStatus): Promise<CommitStatusRow> {
  const id = (await tx.run<{ id: number }>(
    `INSERT INTO commit_statuses (repo_id, sha, state, context, description, target_url, creator_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [status.repoId, status.sha, status.state, status.context, status.description, status.targetUrl, status.creatorId, status.now, status.now],
  )).rows[0]!.id;
  return (await tx.get<CommitStatusRow>(`${SELECT} WHERE s.id = ?`, [id]))!;
}

export async function countStatusesOfContext(db: ReadTx, repoId: number, sha: string, context: string): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM commit_statuses WHERE repo_id = ? AND sha = ? AND context = ?', [repoId, sha, context]))!.n;
}

/** Every status of a commit, newest first. */
export async function statusesOfCommit(db: ReadTx, repoId: number, sha: string, page: PageWindow): Promise<CommitStatusRow[]> {
  return await db.all<CommitStatusRow>(`${SELECT} WHERE s.repo_id = ? AND s.sha = ? ORDER BY s.id DESC LIMIT ? OFFSET ?`, [repoId, sha, page.limit, page.offset]);
}

export async function countStatusesOfCommit(db: ReadTx, repoId: number, sha: string): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM commit_statuses WHERE repo_id = ? AND sha = ?', [repoId, sha]))!.n;
}

/** `latestStatusPerContext` of each of several commits (a list's heads), in one statement: by commit id. */
export async function latestStatusesPerContextOf(db: ReadTx, repoId: number, shas: readonly string[]): Promise<Map<string, CommitStatusRow[]>> {
  const list = inList([...new Set(shas)]);
  const rows = await db.all<CommitStatusRow>(
    `${SELECT} WHERE s.id IN (SELECT MAX(id) FROM commit_statuses WHERE repo_id = ? AND sha ${list.sql} GROUP BY sha, context) ORDER BY s.context`,
    [repoId, ...list.params],
  );
  const bySha = new Map<string, CommitStatusRow[]>(shas.map((sha) => [sha, []]));
  for (const row of rows) bySha.get(row.sha)?.push(row);
  return bySha;
}

/** The newest status of each context of a commit, by context name. */
export async function latestStatusPerContext(db: ReadTx, repoId: number, sha: string): Promise<CommitStatusRow[]> {
  return await db.all<CommitStatusRow>(
    `${SELECT} WHERE s.id IN (SELECT MAX(id) FROM commit_statuses WHERE repo_id = ? AND sha = ? GROUP BY context) ORDER BY s.context`,
    [repoId, sha],
  );
}
