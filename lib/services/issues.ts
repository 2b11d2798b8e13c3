import { requireCommentable, setConversationLock, type LockChange } from './conversation-locks.js';
import { conversationsByNumbers } from '../store/queries/conversations.js';
import { noteCrossReferences } from './references.js';
import { countIssueEventsOf, countIssueEventsOfRepository, insertIssueEvent, issueEventById, crossReferenceSources, issueEventsBetween, issueEventsOf, issueEventsOfRepository, lastCloser, type EventsLeftOut, type IssueEventRow } from '../store/queries/issue-events.js';
import { invalid, notFound } from '../errors.js';
import { writeToRepository } from './repository-write.js';
import type { Db, WriteTx } from '../store/interface.js';
import {
  commentsOfIssue,
  commentsOfRepository,
  type CommentOrder,
  countFilteredIssues,
  countIssues,
  deleteIssueComment,
  insertIssue,
  insertIssueComment,
  issueByNumber,
  issueComment,
  issueInRepository,
  issuesByIds,
  issueRecord,
  issuesOfRepository,
  setIssueStatus,
  setIssueStateReason,
  updateIssueComment,
  updateIssueText,
  type IssueCommentRow,
  type IssueFilter,
  type IssueRecord,
  type IssueRow,
} from '../store/queries/issues.js';
import { commentOwner, conversationsOfRepository, countConversations, type ConversationKey } from '../store/queries/conversations.js';
import { pullsByIds, type PullRow } from '../store/queries/pulls.js';
import { repositoryById, takeNextNumber, type RepositoryRow } from '../store/queries/repositories.js';
import type { EditChanges, EventRecorder, IssueCommentEvent, IssuesEvent } from '../events/index.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { UserRow } from '../store/queries/users.js';
import { accessLevel, atLeast, requireAccess, type Viewer } from './permissions.js';
import { optionalText, requiredText } from './text-fields.js';
import { notifyThread } from './notifications.js';

/** Events one page of a conversation shows at most (the API pages through all of them). */
const MAX_PAGE_EVENTS = 500;

/** The issue summary of the API (spec §2): the stored row with its labels and a few extras. */
export type IssueSummary = IssueRow;

/** An issue comment of the API: `{ id, author, body, created_at, updated_at }`. */
export type IssueComment = Omit<IssueCommentRow, 'author_id'>;

/** An issue or a pull request of one numbering (GitHub's issue list holds both). */
export type Conversation = { kind: 'issue'; issue: IssueRow } | { kind: 'pull'; pull: PullRow };

/** The issue or pull request a cross-reference came from, as those who may read it see it. */
export interface ReferenceSource {
  repo: RepositoryRow;
  kind: 'issue' | 'pull';
  id: number;
  number: number;
  title: string;
}

/** How `visibleTimeline` keys its sources. */
export const referenceKey = (repoId: number, number: number): string => `${repoId}:${number}`;

export const MAX_TITLE = 255;
/** The longest body of an issue, pull request or comment: GitHub's ("maximum is 65536 characters"). */
export const MAX_BODY = 65_536;

export interface IssueChanges {
  title?: unknown;
  body?: unknown;
  status?: unknown;
  /** Why it is closed or reopened: completed, not_planned or reopened (GitHub's state_reason). */
  stateReason?: unknown;
}

const CLOSE_REASONS = ['completed', 'not_planned'];

/** The state_reason a change leaves: closing defaults to completed, reopening is reopened. */
function parseStateReason(value: unknown, status: 'open' | 'closed'): string | null {
  if (value === undefined || value === null) return status === 'closed' ? 'completed' : 'reopened';
  if (status === 'closed' ? !CLOSE_REASONS.includes(value as string) : value !== 'reopened') {
    throw invalid(status === 'closed' ? "state_reason must be 'completed' or 'not_planned' for a closed issue" : "state_reason must be 'reopened' for an open issue");
  }
  return value as string;
}

/** Parses the list filters of the issues endpoint; bad values are 400s. */
export function parseIssueFilter(query: { status?: string; labels?: string; sort?: string; direction?: string }): IssueFilter {
  const status = query.status ?? 'open';
  if (status !== 'open' && status !== 'closed' && status !== 'all') throw invalid("status must be 'open', 'closed' or 'all'");
  const sort = query.sort ?? 'created';
  if (sort !== 'created' && sort !== 'updated') throw invalid("sort must be 'created' or 'updated'");
  const direction = query.direction ?? 'desc';
  if (direction !== 'asc' && direction !== 'desc') throw invalid("direction must be 'asc' or 'desc'");
  const labels = [...new Set((query.labels ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean))];
  return { status: status === 'all' ? undefined : status, labels, sort, direction };
}

function parseStatus(value: unknown): 'open' | 'closed' {
  if (value !== 'open' && value !== 'closed') throw invalid("status must be 'open' or 'closed'");
  return value;
}

/** Issues and their conversation. Permissions: read to see, signed in to open and comment, author or write to edit. */
export class IssueService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  async list(repo: RepositoryRow, filter: IssueFilter, page: PageWindow): Promise<{ items: IssueRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await issuesOfRepository(tx, repo.id, filter, page), total: await countFilteredIssues(tx, repo.id, filter) }));
  }

  /** Issues of the repository by id, in the order given (a search's page). */
  async byIds(repo: RepositoryRow, ids: readonly number[]): Promise<IssueRow[]> {
    const rows = new Map((await issuesByIds(this.store, repo.id, ids)).map((issue) => [issue.id, issue]));
    return ids.flatMap((id) => rows.get(id) ?? []);
  }

  /** Issues and pull requests in one list, as GitHub's issue list shows them (pull requests carry no labels here). */
  async listWithPulls(repo: RepositoryRow, filter: IssueFilter, page: PageWindow): Promise<{ items: Conversation[]; total: number }> {
    // The page's keys, then its issues and its pull requests each in one query, whatever the page's length.
    return await this.store.read(async (tx) => {
      const keys = await conversationsOfRepository(tx, repo.id, filter, page);
      const idsOf = (kind: ConversationKey['kind']) => keys.filter((key) => key.kind === kind).map((key) => key.id);
      const issues = new Map((await issuesByIds(tx, repo.id, idsOf('issue'))).map((issue) => [issue.id, issue]));
      const pulls = new Map((await pullsByIds(tx, repo.id, idsOf('pull'))).map((pull) => [pull.id, pull]));
      const items = keys.map((key): Conversation => (key.kind === 'issue' ? { kind: 'issue', issue: issues.get(key.id)! } : { kind: 'pull', pull: pulls.get(key.id)! }));
      return { items, total: await countConversations(tx, repo.id, filter, await countFilteredIssues(tx, repo.id, filter)) };
    });
  }

  /**
   * The events of the issue or pull request `number` (labels, assignees, closing, ...), oldest first, and how many it
   * has: GitHub's issue events (no cross-references), or for a timeline (`timelineOf`: its reader) with the
   * cross-references from repositories that reader may see.
   */
  async eventsOf(repo: RepositoryRow, number: number, page: PageWindow, timelineOf?: { viewer: Viewer }): Promise<{ items: IssueEventRow[]; total: number }> {
    const out: EventsLeftOut = timelineOf ? { sources: await this.hiddenSources(timelineOf.viewer, repo, number) } : 'cross-references';
    return await this.store.read(async (tx) => ({ items: await issueEventsOf(tx, repo.id, number, page, out), total: await countIssueEventsOf(tx, repo.id, number, out) }));
  }

  /**
   * The events of every issue and pull request of the repository, newest first, with how many there are, and the
   * issues and pull requests they belong to (by number).
   */
  async repositoryEvents(repo: RepositoryRow, page: PageWindow): Promise<{ items: IssueEventRow[]; total: number; conversations: Map<number, Conversation> }> {
    const { items, total } = await this.store.read(async (tx) => ({ items: await issueEventsOfRepository(tx, repo.id, page), total: await countIssueEventsOfRepository(tx, repo.id) }));
    const keys = await conversationsByNumbers(this.store, repo.id, items.map((event) => event.number));
    const found = await this.byKeys(repo, [...keys.values()]);
    return { items, total, conversations: new Map(found.map((conversation) => [conversation.kind === 'issue' ? conversation.issue.number : conversation.pull.number, conversation])) };
  }

  /** The repositories cross-references on the issue or pull request came from that `viewer` may not read. */
  private async hiddenSources(viewer: Viewer, repo: RepositoryRow, number: number): Promise<number[]> {
    const hidden: number[] = [];
    for (const sourceId of await crossReferenceSources(this.store, repo.id, number)) {
      if (sourceId === repo.id) continue;
      const source = await repositoryById(this.store, sourceId);
      if (!source || !atLeast(await accessLevel(this.store, viewer, source), 'read')) hidden.push(sourceId);
    }
    return hidden;
  }

  /** Issues and pull requests of the repository by their keys, in that order (those gone left out), in two queries. */
  async byKeys(repo: RepositoryRow, keys: readonly ConversationKey[]): Promise<Conversation[]> {
    const idsOf = (kind: ConversationKey['kind']) => keys.filter((key) => key.kind === kind).map((key) => key.id);
    const issues = new Map((await issuesByIds(this.store, repo.id, idsOf('issue'))).map((issue) => [issue.id, issue]));
    const pulls = new Map((await pullsByIds(this.store, repo.id, idsOf('pull'))).map((pull) => [pull.id, pull]));
    return keys.flatMap((key): Conversation[] => {
      const issue = key.kind === 'issue' ? issues.get(key.id) : undefined;
      const pull = key.kind === 'pull' ? pulls.get(key.id) : undefined;
      return issue ? [{ kind: 'issue', issue }] : pull ? [{ kind: 'pull', pull }] : [];
    });
  }

  /**
   * What a page of the conversation shows `viewer` between its comments (see `issueEventsBetween`), at most
   * MAX_PAGE_EVENTS, cross-references from repositories the viewer may not read left out.
   */
  async eventsBetween(viewer: Viewer, repo: RepositoryRow, number: number, after: string | undefined, until: string | undefined): Promise<IssueEventRow[]> {
    return await issueEventsBetween(this.store, repo.id, number, after, until, MAX_PAGE_EVENTS, { sources: await this.hiddenSources(viewer, repo, number) });
  }

  /**
   * Who closed the conversation (a closed issue or pull request): the actor of its newest `closed` event, else (closed
   * before events were recorded) the issue's recorded closer or the pull request's merger; undefined when open.
   */
  async closedBy(repo: RepositoryRow, conversation: Conversation): Promise<string | null | undefined> {
    const row = conversation.kind === 'issue' ? conversation.issue : conversation.pull;
    if (row.status === 'open') return undefined;
    const closer = await lastCloser(this.store, repo.id, row.number);
    if (closer !== undefined) return closer;
    return conversation.kind === 'issue' ? conversation.issue.closed_by : conversation.pull.merged_by;
  }

  /**
   * The events `viewer` may see, and the issues and pull requests their cross-references came from: a cross-reference
   * is shown only to those who may read its source (which may be private), like GitHub's. Reads per source repository.
   */
  async visibleTimeline(viewer: Viewer, events: readonly IssueEventRow[]): Promise<{ events: IssueEventRow[]; sources: Map<string, ReferenceSource> }> {
    const sources = new Map<string, ReferenceSource>();
    const numbersOf = new Map<number, number[]>();
    for (const event of events) {
      if (event.event === 'cross-referenced' && event.source_repo_id !== null) numbersOf.set(event.source_repo_id, [...(numbersOf.get(event.source_repo_id) ?? []), event.source_number!]);
    }
    for (const [repoId, numbers] of numbersOf) {
      const repo = await repositoryById(this.store, repoId);
      if (!repo || !atLeast(await accessLevel(this.store, viewer, repo), 'read')) continue;
      for (const [number, conversation] of await conversationsByNumbers(this.store, repo.id, numbers)) sources.set(referenceKey(repo.id, number), { repo, number, ...conversation });
    }
    const visible = events.filter((event) => event.event !== 'cross-referenced' || sources.has(referenceKey(event.source_repo_id!, event.source_number!)));
    return { events: visible, sources };
  }

  async event(repo: RepositoryRow, id: number): Promise<IssueEventRow> {
    const event = Number.isSafeInteger(id) ? await issueEventById(this.store, repo.id, id) : undefined;
    if (!event) throw notFound('Not Found');
    return event;
  }

  /** The issue or pull request of the repository a comment belongs to (comment ids are shared by both). */
  async commentOwner(repo: RepositoryRow, commentId: number): Promise<ConversationKey | undefined> {
    return Number.isSafeInteger(commentId) ? await commentOwner(this.store, repo.id, commentId) : undefined;
  }

  async get(repo: RepositoryRow, id: number): Promise<IssueRow> {
    const issue = Number.isSafeInteger(id) ? await issueInRepository(this.store, repo.id, id) : undefined;
    if (!issue) throw notFound('Issue not found');
    return issue;
  }

  /** The issue numbered `number` in the repository (a number may instead name a pull request: undefined then). */
  async byNumber(repo: RepositoryRow, number: number): Promise<IssueRow | undefined> {
    return Number.isSafeInteger(number) ? await issueByNumber(this.store, repo.id, number) : undefined;
  }

  async count(repo: RepositoryRow): Promise<number> {
    return await countIssues(this.store, repo.id);
  }

  async create(repo: RepositoryRow, author: UserRow, input: { title: unknown; body?: unknown }): Promise<IssueRow> {
    await requireAccess(this.store, author, repo, 'read');
    const title = requiredText('title', input.title, MAX_TITLE);
    const body = optionalText('body', input.body, MAX_BODY);
    const now = this.now();
    const id = await this.store.write(async (tx) => {
      // No number means no repository (deleted since it was looked up): the check `writeToRepository` makes, in the
      // same round trip.
      const number = await takeNextNumber(tx, repo.id);
      if (number === undefined) throw notFound('Not found');
      const issueId = await insertIssue(tx, { repoId: repo.id, number, authorId: author.id, title, body, now });
      await this.recordIssueEvent(tx, repo, author, issueId, 'opened');
      await noteCrossReferences(tx, repo, number, author, body, now);
      await notifyThread(tx, repo, number, author.id, { text: body, everyone: true, opened: true }, now);
      return issueId;
    });
    return await this.get(repo, id);
  }

  /** Edits title, body and status: the author may change their own issue, others need write. */
  async update(repo: RepositoryRow, viewer: Viewer, id: number, changes: IssueChanges): Promise<IssueRow> {
    const issue = await this.editable(repo, viewer, id, 'Only the author or a collaborator with write access may change this issue');
    const title = changes.title === undefined ? issue.title : requiredText('title', changes.title, MAX_TITLE);
    const body = changes.body === undefined ? issue.body : optionalText('body', changes.body, MAX_BODY);
    const status = changes.status === undefined ? undefined : parseStatus(changes.status);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const current = await this.recordIn(tx, repo, issue.id);
      if (title !== current.title || body !== current.body) {
        await updateIssueText(tx, issue.id, { title, body }, now);
        const changes: EditChanges = {};
        if (title !== current.title) changes.title = { from: current.title };
        if (body !== current.body) changes.body = { from: current.body };
        await this.recordIssueEvent(tx, repo, viewer!, issue.id, 'edited', changes);
        if (title !== current.title) await insertIssueEvent(tx, repo.id, current.number, 'renamed', { actorId: viewer?.id, rename: { from: current.title, to: title } }, now);
        if (body !== current.body) await noteCrossReferences(tx, repo, current.number, viewer!, body, now);
      }
      if (status && status !== current.status) {
        const stateReason = parseStateReason(changes.stateReason, status);
        await setIssueStatus(tx, issue.id, status, viewer!.id, now, stateReason);
        await this.recordIssueEvent(tx, repo, viewer!, issue.id, status === 'closed' ? 'closed' : 'reopened');
        await insertIssueEvent(tx, repo.id, current.number, status === 'closed' ? 'closed' : 'reopened', { actorId: viewer?.id, stateReason }, now);
        await notifyThread(tx, repo, current.number, viewer?.id, { everyone: true }, now);
      } else if (changes.stateReason !== undefined && changes.stateReason !== null && (status ?? current.status) === 'closed') {
        const reason = parseStateReason(changes.stateReason, 'closed');
        if (reason !== current.state_reason) await setIssueStateReason(tx, issue.id, reason, now);
      }
    });
    return await this.get(repo, issue.id);
  }

  /** A page of an issue's comments; with `since` (ISO 8601 as stored), only those updated at or after it. */
  async comments(repo: RepositoryRow, issueId: number, page: PageWindow, since?: string): Promise<{ items: IssueComment[]; total: number }> {
    const issue = await this.get(repo, issueId);
    const found = await this.store.read(async (tx) => await commentsOfIssue(tx, issue.id, page, since));
    return { items: found.rows.map(publicComment), total: found.matching ?? issue.comments };
  }

  /** A page of the comments of every issue and pull request of the repository, each with its number. */
  async commentsOfRepository(repo: RepositoryRow, order: CommentOrder, page: PageWindow): Promise<{ items: Array<IssueComment & { number: number }>; total: number }> {
    const found = await this.store.read(async (tx) => await commentsOfRepository(tx, repo.id, order, page));
    return { items: found.rows.map(({ author_id: _authorId, ...comment }) => comment), total: found.total };
  }

  async getComment(repo: RepositoryRow, issueId: number, commentId: number): Promise<IssueComment> {
    const comment = Number.isSafeInteger(commentId) ? await issueComment(this.store, (await this.get(repo, issueId)).id, commentId) : undefined;
    if (!comment) throw notFound('Comment not found');
    return publicComment(comment);
  }

  async comment(repo: RepositoryRow, issueId: number, author: UserRow, body: unknown): Promise<IssueComment> {
    await requireAccess(this.store, author, repo, 'read');
    const issue = await this.get(repo, issueId);
    const text = requiredText('body', body, MAX_BODY);
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      await requireCommentable(tx, repo, author, (await this.recordIn(tx, repo, issue.id)).locked);
      const commentId = await insertIssueComment(tx, { issueId: issue.id, authorId: author.id, body: text, now });
      await noteCrossReferences(tx, repo, issue.number, author, text, now);
      await notifyThread(tx, repo, issue.number, author.id, { text, everyone: true }, now);
      await this.recordCommentEvent(tx, repo, author, issue.id, (await issueComment(tx, issue.id, commentId))!, 'created');
      return commentId;
    });
    return publicComment((await issueComment(this.store, issue.id, id))!);
  }

  async editComment(repo: RepositoryRow, issueId: number, commentId: number, viewer: Viewer, body: unknown): Promise<IssueComment> {
    const { issue, comment } = await this.editableComment(repo, issueId, commentId, viewer);
    const text = requiredText('body', body, MAX_BODY);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const current = await issueComment(tx, issue.id, comment.id);
      if (!current) throw notFound('Comment not found');
      await updateIssueComment(tx, comment.id, text, now);
      await noteCrossReferences(tx, repo, issue.number, viewer!, text, now);
      await this.recordCommentEvent(tx, repo, viewer!, issue.id, (await issueComment(tx, issue.id, comment.id))!, 'edited', { body: { from: current.body } });
    });
    return publicComment((await issueComment(this.store, issue.id, comment.id))!);
  }

  async deleteComment(repo: RepositoryRow, issueId: number, commentId: number, viewer: Viewer): Promise<void> {
    const { issue, comment } = await this.editableComment(repo, issueId, commentId, viewer);
    await writeToRepository(this.store, repo, async (tx) => {
      const current = await issueComment(tx, issue.id, comment.id);
      if (!current) return;
      await deleteIssueComment(tx, repo.id, issue.id, comment.id);
      await this.recordCommentEvent(tx, repo, viewer!, issue.id, current, 'deleted');
    });
  }

  /** Locks or unlocks the issue (writers only), with its issue event and an `issues` `locked`/`unlocked` event. */
  async setLock(repo: RepositoryRow, viewer: Viewer, issueId: number, change: LockChange): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Locking needs write access');
    await writeToRepository(this.store, repo, async (tx) => {
      const issue = await this.recordIn(tx, repo, issueId);
      if (await setConversationLock(tx, 'issue', repo, issue, viewer!.id, change, this.now())) await this.recordIssueEvent(tx, repo, viewer!, issue.id, change.locked ? 'locked' : 'unlocked');
    });
  }

  private async recordIssueEvent(tx: WriteTx, repo: RepositoryRow, sender: UserRow, issueId: number, action: IssuesEvent['action'], changes?: EditChanges): Promise<void> {
    await this.events.record(tx, repo, sender, 'issues', async (current) => {
      const issue = await this.events.github.issue(tx, current, (await issueInRepository(tx, repo.id, issueId))!);
      return { action, issue, ...(changes ? { changes } : {}) };
    });
  }

  private async recordCommentEvent(
    tx: WriteTx,
    repo: RepositoryRow,
    sender: UserRow,
    issueId: number,
    comment: IssueCommentRow,
    action: IssueCommentEvent['action'],
    changes?: IssueCommentEvent['changes'],
  ): Promise<void> {
    await this.events.record(tx, repo, sender, 'issue_comment', async (current) => {
      const issue = (await issueInRepository(tx, repo.id, issueId))!;
      return {
        action,
        issue: await this.events.github.issue(tx, current, issue),
        comment: await this.events.github.comment(tx, current, issue.number, comment),
        ...(changes ? { changes } : {}),
      };
    });
  }

  summary(issue: IssueRow): IssueSummary {
    return { ...issue };
  }

  /** The issue if the viewer is its author (and may still see the repository) or has write access. */
  private async editable(repo: RepositoryRow, viewer: Viewer, id: number, message: string): Promise<IssueRecord> {
    await requireAccess(this.store, viewer, repo, 'read');
    const issue = Number.isSafeInteger(id) ? await issueRecord(this.store, repo.id, id) : undefined;
    if (!issue) throw notFound('Issue not found');
    await mayChange(this.store, repo, viewer, issue.author_id, message);
    return issue;
  }

  private async editableComment(repo: RepositoryRow, issueId: number, commentId: number, viewer: Viewer): Promise<{ issue: IssueRow; comment: IssueCommentRow }> {
    await requireAccess(this.store, viewer, repo, 'read');
    const issue = await this.get(repo, issueId);
    const comment = Number.isSafeInteger(commentId) ? await issueComment(this.store, issue.id, commentId) : undefined;
    if (!comment) throw notFound('Comment not found');
    await mayChange(this.store, repo, viewer, comment.author_id, 'Only the author or a collaborator with write access may change this comment');
    return { issue, comment };
  }

  /** Re-reads the issue inside a write: it may have been deleted (with its repository) meanwhile. */
  private async recordIn(tx: WriteTx, repo: RepositoryRow, id: number): Promise<IssueRecord> {
    const issue = await issueRecord(tx, repo.id, id);
    if (!issue) throw notFound('Issue not found');
    return issue;
  }
}

/** Authors may change what they wrote; anyone else needs write access. 401 for anonymous callers. */
export async function mayChange(store: Db, repo: RepositoryRow, viewer: Viewer, authorId: number, message: string): Promise<void> {
  if (viewer && viewer.id === authorId) return;
  await requireAccess(store, viewer, repo, 'write', message);
}

function publicComment({ author_id: _authorId, ...comment }: IssueCommentRow): IssueComment {
  return comment;
}
