import { notFound } from '../errors.js';
import type { EventRecorder, IssueCommentEvent } from '../events/index.js';
import type { Db, WriteTx } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { commentsOfPull, deleteComment, insertComment, pullComment, pullInRepository, updateComment, type PullCommentRow, type PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { requireCommentable } from './conversation-locks.js';
import { MAX_BODY, mayChange } from './issues.js';
import { notifyThread } from './notifications.js';
import { requireAccess, type Viewer } from './permissions.js';
import type { PullService } from './pulls.js';
import { noteCrossReferences } from './references.js';
import { writeToRepository } from './repository-write.js';
import { requiredText } from './text-fields.js';

/** A conversation comment: the spec's `{ id, author, text }` plus times. */
export type PullComment = Omit<PullCommentRow, 'author_id'>;

/**
 * The conversation comments of pull requests (GitHub shows them as the comments of the pull request's issue, and
 * sends `issue_comment` events for them). Review comments on lines are reviews.ts's.
 */
export class PullCommentService {
  constructor(
    private readonly store: Db,
    private readonly pulls: Pick<PullService, 'get'>,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  /** A page of a pull request's comments; with `since` (ISO 8601 as stored), only those updated at or after it. */
  async comments(repo: RepositoryRow, pullId: number, page: PageWindow, since?: string): Promise<{ items: PullComment[]; total: number }> {
    const pull = await this.pulls.get(repo, pullId);
    const found = await this.store.read(async (tx) => await commentsOfPull(tx, pull.id, page, since));
    return { items: found.rows.map(publicComment), total: found.matching ?? pull.comments };
  }

  async getComment(repo: RepositoryRow, pullId: number, commentId: number): Promise<PullComment> {
    const comment = Number.isSafeInteger(commentId) ? await pullComment(this.store, (await this.pulls.get(repo, pullId)).id, commentId) : undefined;
    if (!comment) throw notFound('Comment not found');
    return publicComment(comment);
  }

  async comment(repo: RepositoryRow, pullId: number, author: UserRow, text: unknown): Promise<PullComment> {
    await requireAccess(this.store, author, repo, 'read');
    const pull = await this.pulls.get(repo, pullId);
    const body = requiredText('text', text, MAX_BODY);
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      await requireCommentable(tx, repo, author, (await recordIn(tx, repo, pull.id)).locked);
      const commentId = await insertComment(tx, { pullId: pull.id, authorId: author.id, text: body, now });
      await noteCrossReferences(tx, repo, pull.number, author, body, now);
      await notifyThread(tx, repo, pull.number, author.id, { text: body, everyone: true }, now);
      await this.recordCommentEvent(tx, repo, author, pull.id, (await pullComment(tx, pull.id, commentId))!, 'created');
      return commentId;
    });
    return publicComment((await pullComment(this.store, pull.id, id))!);
  }

  async editComment(repo: RepositoryRow, pullId: number, commentId: number, viewer: Viewer, text: unknown): Promise<PullComment> {
    const { pull, comment } = await this.editableComment(repo, pullId, commentId, viewer);
    const body = requiredText('text', text, MAX_BODY);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const current = await pullComment(tx, pull.id, comment.id);
      if (!current) throw notFound('Comment not found');
      await updateComment(tx, comment.id, body, now);
      await noteCrossReferences(tx, repo, pull.number, viewer!, body, now);
      await this.recordCommentEvent(tx, repo, viewer!, pull.id, (await pullComment(tx, pull.id, comment.id))!, 'edited', { body: { from: current.text } });
    });
    return publicComment((await pullComment(this.store, pull.id, comment.id))!);
  }

  async deleteComment(repo: RepositoryRow, pullId: number, commentId: number, viewer: Viewer): Promise<void> {
    const { pull, comment } = await this.editableComment(repo, pullId, commentId, viewer);
    await writeToRepository(this.store, repo, async (tx) => {
      const current = await pullComment(tx, pull.id, comment.id);
      if (!current) return;
      await deleteComment(tx, repo.id, pull.id, comment.id);
      await this.recordCommentEvent(tx, repo, viewer!, pull.id, current, 'deleted');
    });
  }

  /** GitHub reports conversation comments of a pull request as `issue_comment` on its issue. */
  private async recordCommentEvent(
    tx: WriteTx,
    repo: RepositoryRow,
    sender: UserRow,
    pullId: number,
    comment: PullCommentRow,
    action: IssueCommentEvent['action'],
    changes?: IssueCommentEvent['changes'],
  ): Promise<void> {
    await this.events.record(tx, repo, sender, 'issue_comment', async (current) => {
      const pull = (await pullInRepository(tx, repo.id, pullId))!;
      return {
        action,
        issue: await this.events.github.pullAsIssue(tx, current, pull),
        comment: await this.events.github.comment(tx, current, pull.number, comment),
        ...(changes ? { changes } : {}),
      };
    });
  }

  private async editableComment(repo: RepositoryRow, pullId: number, commentId: number, viewer: Viewer): Promise<{ pull: PullRow; comment: PullCommentRow }> {
    await requireAccess(this.store, viewer, repo, 'read');
    const pull = await this.pulls.get(repo, pullId);
    const comment = Number.isSafeInteger(commentId) ? await pullComment(this.store, pull.id, commentId) : undefined;
    if (!comment) throw notFound('Comment not found');
    await mayChange(this.store, repo, viewer, comment.author_id, 'Only the author or a collaborator with write access may change this comment');
    return { pull, comment };
  }
}

async function recordIn(tx: WriteTx, repo: RepositoryRow, id: number): Promise<PullRow> {
  const pull = await pullInRepository(tx, repo.id, id);
  if (!pull) throw notFound('Pull request not found');
  return pull;
}

function publicComment({ author_id: _authorId, ...comment }: PullCommentRow): PullComment {
  return comment;
}
