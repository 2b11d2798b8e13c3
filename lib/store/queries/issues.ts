import type { ReadTx, WriteTx } from '../database.js';

export interface IssueRow {
  id: number;
  number: number;
  repo_id: number;
  title: string;
  body: string;
  author: string;
  status: string;
  created_at: string;
}

const SELECT = `SELECT i.id, i.number, i.repo_id, i.title, i.body, u.username AS author, i.status, i.created_at
  FROM issues i JOIN users u ON u.id = i.author_id`;

export function issuesOfRepository(db: ReadTx, repoId: number): IssueRow[] {
  return db.all<IssueRow>(`${SELECT} WHERE i.repo_id = ? ORDER BY i.number`, [repoId]);
}

export function issueInRepository(db: ReadTx, repoId: number, id: number): IssueRow | undefined {
  return db.get<IssueRow>(`${SELECT} WHERE i.repo_id = ? AND i.id = ?`, [repoId, id]);
}

export function countIssues(db: ReadTx, repoId: number): number {
  return db.get<{ n: number }>('SELECT COUNT(*) AS n FROM issues WHERE repo_id = ?', [repoId])!.n;
}

export function insertIssue(tx: WriteTx, issue: { repoId: number; number: number; authorId: number; title: string; body: string; now: string }): number {
  return tx.run<{ id: number }>(
    `INSERT INTO issues (repo_id, number, author_id, title, body, status, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?) RETURNING id`,
    [issue.repoId, issue.number, issue.authorId, issue.title, issue.body, issue.now, issue.now],
  ).rows[0]!.id;
}
