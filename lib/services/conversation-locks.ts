import { forbidden, invalid } from '../errors.js';
import type { ReadTx, WriteTx } from '../store/interface.js';
import { updateConversationLock } from '../store/queries/conversations.js';
import { insertIssueEvent } from '../store/queries/issue-events.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { accessLevel, atLeast, type AccessLevel, type Viewer } from './permissions.js';

/** GitHub's reasons for locking a conversation. */
const LOCK_REASONS: readonly string[] = ['off-topic', 'too heated', 'resolved', 'spam'];

/** What a lock request asks: locked with a reason or none, or unlocked. */
export type LockChange = { locked: true; reason: string | null } | { locked: false };

/** GitHub's `lock_reason`: one of its four, or none. */
export function lockReasonOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !LOCK_REASONS.includes(value)) throw invalid(`lock_reason must be one of ${LOCK_REASONS.map((reason) => `'${reason}'`).join(', ')}`);
  return value;
}

/**
 * Sets a conversation's lock (issues and pull requests keep it alike) and records GitHub's `locked`/`unlocked` issue
 * event; false when it already was as asked, which changes nothing (no event). Only writers lock (checked by callers).
 */
export async function setConversationLock(tx: WriteTx, kind: 'issue' | 'pull', repo: RepositoryRow, row: { id: number; number: number; locked: boolean; lock_reason: string | null }, actorId: number, change: LockChange, now: string): Promise<boolean> {
  const reason = change.locked ? change.reason : null;
  if (row.locked === change.locked && (!change.locked || row.lock_reason === reason)) return false;
  await updateConversationLock(tx, kind, row.id, change.locked, reason, now);
  await insertIssueEvent(tx, repo.id, row.number, change.locked ? 'locked' : 'unlocked', { actorId, lockReason: reason }, now);
  return true;
}

/** A locked conversation takes comments from writers only, as on GitHub (403 in its words for anyone else). */
export async function requireCommentable(db: ReadTx, repo: RepositoryRow, viewer: Viewer, locked: boolean): Promise<void> {
  if (locked) requireUnlockedFor(await accessLevel(db, viewer, repo), 'comment');
}

/** The same rule for a caller who knows the viewer's level: what a non-writer may not add to a locked conversation. */
export function requireUnlockedFor(level: AccessLevel, what: 'comment' | 'reaction'): void {
  if (!atLeast(level, 'write')) throw forbidden(`Unable to create ${what} because issue is locked.`);
}
