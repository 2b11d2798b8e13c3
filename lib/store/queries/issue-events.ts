import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

// What happened to an issue or pull request besides its comments: GitHub's issue events, one numbering for both.

export type IssueEventName =
  | 'closed'
  | 'reopened'
  | 'merged'
  | 'renamed'
  | 'labeled'
  | 'unlabeled'
  | 'assigned'
  | 'unassigned'
  | 'milestoned'
  | 'demilestoned'
  | 'review_requested'
  | 'review_request_removed'
  | 'review_dismissed'
  | 'head_ref_force_pushed'
  | 'head_ref_deleted'
  | 'cross-referenced'
  | 'locked'
  | 'unlocked'
  /** Commits pushed to a pull request's head (pages only: GitHub's events lists have no such event). */
  | 'pushed';

/** What one event says besides its name: who did it, and what it was about. */
export interface IssueEventDetails {
  actorId: number | undefined;
  /** The assignee, or the requested reviewer. */
  subjectId?: number;
  label?: { name: string; color: string };
  milestoneTitle?: string;
  rename?: { from: string; to: string };
  commitId?: string | null;
  stateReason?: string | null;
  /** The issue or pull request whose text mentioned this one (a cross-reference). */
  source?: { repoId: number; number: number };
  /** Of `pushed`: where the head was, and how many commits it gained. */
  push?: { before: string; count: number };
  /** Of `review_dismissed`: the review, its state before, the message, and the pull request's head then. */
  dismissal?: { reviewId: number; state: string; message: string; commitId: string };
  /** Of `locked`: GitHub's `lock_reason`, if one was given. */
  lockReason?: string | null;
}

export interface IssueEventRow {
  id: number;
  number: number;
  event: IssueEventName;
  /** Usernames; null when the account is gone. */
  actor: string | null;
  subject: string | null;
  label_name: string | null;
  label_color: string | null;
  milestone_title: string | null;
  rename_from: string | null;
  rename_to: string | null;
  commit_id: string | null;
  state_reason: string | null;
  source_repo_id: number | null;
  source_number: number | null;
  before_commit: string | null;
  commit_count: number | null;
  review_id: number | null;
  review_state: string | null;
  dismissal_message: string | null;
  dismissal_commit: string | null;
  lock_reason: string | null;
  created_at: string;
}

export async function insertIssueEvent(tx: WriteTx, repoId: number, number: number, event: IssueEventName, details: IssueEventDetails, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO issue_events (repo_id, number, event, actor_id, subject_id, label_name, label_color, milestone_title, rename_from, rename_to, commit_id, state_reason,
      source_repo_id, source_number, before_commit, commit_count, review_id, review_state, dismissal_message, dismissal_commit, lock_reason, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      repoId,
      number,
      event,
      details.actorId ?? null,
      details.subjectId ?? null,
      details.label?.name ?? null,
      details.label?.color ?? null,
      details.milestoneTitle ?? null,
      details.rename?.from ?? null,
      details.rename?.to ?? null,
      details.commitId ?? null,
      details.stateReason ?? null,
      details.source?.repoId ?? null,
      details.source?.number ?? null,
      details.push?.before ?? null,
      details.push?.count ?? null,
      details.dismissal?.reviewId ?? null,
      details.dismissal?.state ?? null,
      details.dismissal?.message ?? null,
      details.dismissal?.commitId ?? null,
      details.lockReason ?? null,
      now,
    ],
  );
}

const NOT_CROSS = " AND e.event <> 'cross-referenced'";
/** What GitHub's issue events API has no event for (pushes to a pull request's head are only on the pages). */
const GITHUB_EVENTS = " AND e.event <> 'pushed'";

const SELECT = `SELECT e.id, e.number, e.event, a.username AS actor, s.username AS subject, e.label_name, e.label_color, e.milestone_title,
  e.rename_from, e.rename_to, e.commit_id, e.state_reason, e.source_repo_id, e.source_number, e.before_commit, e.commit_count,
  e.review_id, e.review_state, e.dismissal_message, e.dismissal_commit, e.lock_reason, e.created_at
  FROM issue_events e LEFT JOIN users a ON a.id = e.actor_id LEFT JOIN users s ON s.id = e.subject_id`;

/** Which events a list leaves out: cross-references altogether (GitHub's events list), or those from some repositories. */
export type EventsLeftOut = 'cross-references' | { sources: readonly number[] };

function leftOut(out: EventsLeftOut): { sql: string; params: number[] } {
  if (out === 'cross-references') return { sql: " AND e.event <> 'cross-referenced'", params: [] };
  if (out.sources.length === 0) return { sql: '', params: [] };
  const list = inList(out.sources);
  return { sql: ` AND NOT (e.event = 'cross-referenced' AND e.source_repo_id ${list.sql})`, params: list.params as number[] };
}

/**
 * The events of one issue or pull request, oldest first: GitHub's issue events list leaves cross-references out (only
 * its timeline has them); a timeline leaves out those from repositories its reader may not see.
 */
export async function issueEventsOf(db: ReadTx, repoId: number, number: number, page: PageWindow, out: EventsLeftOut): Promise<IssueEventRow[]> {
  const left = leftOut(out);
  return await db.all<IssueEventRow>(`${SELECT} WHERE e.repo_id = ? AND e.number = ?${GITHUB_EVENTS}${left.sql} ORDER BY e.id LIMIT ? OFFSET ?`, [repoId, number, ...left.params, page.limit, page.offset]);
}

export async function countIssueEventsOf(db: ReadTx, repoId: number, number: number, out: EventsLeftOut): Promise<number> {
  const left = leftOut(out);
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM issue_events e WHERE e.repo_id = ? AND e.number = ?${GITHUB_EVENTS}${left.sql}`, [repoId, number, ...left.params]))!.n;
}

/** The events of every issue and pull request of a repository, newest first (GitHub's repository-wide list; no cross-references). */
export async function issueEventsOfRepository(db: ReadTx, repoId: number, page: PageWindow): Promise<IssueEventRow[]> {
  return await db.all<IssueEventRow>(`${SELECT} WHERE e.repo_id = ?${NOT_CROSS}${GITHUB_EVENTS} ORDER BY e.id DESC LIMIT ? OFFSET ?`, [repoId, page.limit, page.offset]);
}

export async function countIssueEventsOfRepository(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM issue_events e WHERE e.repo_id = ?${NOT_CROSS}${GITHUB_EVENTS}`, [repoId]))!.n;
}

/** The repositories cross-references on an issue or pull request came from. */
export async function crossReferenceSources(db: ReadTx, repoId: number, number: number): Promise<number[]> {
  const rows = await db.all<{ source_repo_id: number }>(
    "SELECT DISTINCT source_repo_id FROM issue_events WHERE repo_id = ? AND number = ? AND event = 'cross-referenced' AND source_repo_id IS NOT NULL",
    [repoId, number],
  );
  return rows.map((row) => row.source_repo_id);
}

/** Whether `source` already mentioned the issue or pull request (each mentions another once on its timeline). */
export async function hasCrossReference(db: ReadTx, repoId: number, number: number, source: { repoId: number; number: number }): Promise<boolean> {
  return (await db.get(
    "SELECT 1 AS found FROM issue_events WHERE repo_id = ? AND number = ? AND event = 'cross-referenced' AND source_repo_id = ? AND source_number = ?",
    [repoId, number, source.repoId, source.number],
  )) !== undefined;
}

export async function issueEventById(db: ReadTx, repoId: number, id: number): Promise<IssueEventRow | undefined> {
  return await db.get<IssueEventRow>(`${SELECT} WHERE e.repo_id = ? AND e.id = ?${NOT_CROSS}${GITHUB_EVENTS}`, [repoId, id]);
}

/**
 * The events of one issue or pull request from after `after` up to `until` (stored times; either may be left open),
 * oldest first, at most `limit`, those `out` leaves out excepted: what one page of its conversation shows between its
 * comments.
 */
export async function issueEventsBetween(db: ReadTx, repoId: number, number: number, after: string | undefined, until: string | undefined, limit: number, out: EventsLeftOut): Promise<IssueEventRow[]> {
  const left = leftOut(out);
  return await db.all<IssueEventRow>(`${SELECT} WHERE e.repo_id = ? AND e.number = ? AND e.created_at > ? AND e.created_at <= ?${left.sql} ORDER BY e.id LIMIT ?`, [
    repoId,
    number,
    after ?? '',
    until ?? '9999-12-31T23:59:59.999Z',
    ...left.params,
    limit,
  ]);
}

/** Who closed the issue or pull request last (the account of its newest `closed` event; null when gone or never). */
export async function lastCloser(db: ReadTx, repoId: number, number: number): Promise<string | null | undefined> {
  const row = await db.get<{ actor: string | null }>(
    `SELECT a.username AS actor FROM issue_events e LEFT JOIN users a ON a.id = e.actor_id WHERE e.repo_id = ? AND e.number = ? AND e.event = 'closed' ORDER BY e.id DESC LIMIT 1`,
    [repoId, number],
  );
  return row ? row.actor : undefined;
}
