import type { ReadTx, WriteTx } from '../database.js';

export interface PullRow {
  id: number;
  number: number;
  repo_id: number;
  title: string;
  description: string;
  status: string;
  head: string;
  base: string;
  author: string;
  created_at: string;
}

export interface PullCommentRow {
  id: number;
  author: string;
  text: string;
  created_at: string;
}

const SELECT = `SELECT p.id, p.number, p.repo_id, p.title, p.description, p.status, p.head_branch AS head, p.base_branch AS base,
  u.username AS author, p.created_at FROM pull_requests p JOIN users u ON u.id = p.author_id`;

export function pullsOfRepository(db: ReadTx, repoId: number): PullRow[] {
  return db.all<PullRow>(`${SELECT} WHERE p.repo_id = ? ORDER BY p.number`, [repoId]);
}

export function pullInRepository(db: ReadTx, repoId: number, id: number): PullRow | undefined {
  return db.get<PullRow>(`${SELECT} WHERE p.repo_id = ? AND p.id = ?`, [repoId, id]);
}

export function insertPull(
  tx: WriteTx,
  pull: { repoId: number; number: number; authorId: number; title: string; description: string; head: string; base: string; now: string },
): number {
  return tx.run<{ id: number }>(
    `INSERT INTO pull_requests (repo_id, number, author_id, title, description, status, head_branch, base_branch, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?, ?) RETURNING id`,
    [pull.repoId, pull.number, pull.authorId, pull.title, pull.description, pull.head, pull.base, pull.now, pull.now],
  ).rows[0]!.id;
}

export function commentsOfPull(db: ReadTx, pullId: number): PullCommentRow[] {
  return db.all<PullCommentRow>(
    `SELECT c.id, u.username AS author, c.text, c.created_at FROM pull_comments c JOIN users u ON u.id = c.author_id
     WHERE c.pull_id = ? ORDER BY c.id`,
    [pullId],
  );
}

export function insertComment(tx: WriteTx, comment: { pullId: number; authorId: number; text: string; now: string }): PullCommentRow {
  const id = tx.run<{ id: number }>('INSERT INTO pull_comments (pull_id, author_id, text, created_at) VALUES (?, ?, ?, ?) RETURNING id', [
    comment.pullId,
    comment.authorId,
    comment.text,
    comment.now,
  ]).rows[0]!.id;
  return tx.get<PullCommentRow>(
    'SELECT c.id, u.username AS author, c.text, c.created_at FROM pull_comments c JOIN users u ON u.id = c.author_id WHERE c.id = ?',
    [id],
  )!;
}
