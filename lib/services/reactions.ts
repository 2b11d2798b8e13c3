import { invalid, notFound } from '../errors.js';
import type { Db, ReadTx } from '../store/interface.js';
import { lockOfComment, lockOfNumber } from '../store/queries/conversations.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { pullInRepository } from '../store/queries/pulls.js';
import { deleteReaction, insertReaction, REACTION_CONTENTS, reactionById, reactionCounts, reactionOf, reactionsTo, type ReactionContent, type ReactionCounts, type ReactionRow, type ReactionSubject } from '../store/queries/reactions.js';
import { releaseById } from '../store/queries/releases.js';
import { commitCommentById } from '../store/queries/commit-comments.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { reviewCommentById } from '../store/queries/reviews.js';
import { requireUnlockedFor } from './conversation-locks.js';
import { atLeast, requireAccess, type AccessLevel, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';

/** GitHub's reactions, in the order its rollups list them. */
/** A release takes fewer (GitHub's: no -1 and no confused). */
const RELEASE_CONTENTS: readonly string[] = ['+1', 'laugh', 'heart', 'hooray', 'rocket', 'eyes'];

/** What a reaction is to: the kind, and the number (issues and pull requests) or id (comments, releases). */
export interface ReactionTarget {
  readonly subject: ReactionSubject;
  readonly id: number;
}

/** Whether `value` is a reaction the target's kind takes. */
export function isReactionContent(subject: ReactionSubject, value: unknown): value is ReactionContent {
  return typeof value === 'string' && (subject === 'release' ? RELEASE_CONTENTS : (REACTION_CONTENTS as readonly string[])).includes(value);
}

/**
 * Reactions to issues, pull requests, their comments, review comments and releases: anyone who can read the
 * repository reacts (once per content), and takes back their own. A locked conversation takes reactions from writers
 * only, as its comments; a draft release is seen, and so reacted to, by writers only; a review comment only once its
 * review is submitted. No webhook event: GitHub sends none for reactions.
 */
export class ReactionService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
  ) {}

  /** How many reactions of each content the objects of one kind have (the page already checked access): one query. */
  async countsOf(repo: RepositoryRow, subject: ReactionSubject, ids: readonly number[]): Promise<Map<number, ReactionCounts>> {
    return await reactionCounts(this.store, repo.id, subject, ids);
  }

  /** The reactions to the target, oldest first; of one content when `content` is given. */
  async list(repo: RepositoryRow, viewer: Viewer, target: ReactionTarget, content: string | undefined, page: PageWindow): Promise<{ items: ReactionRow[]; total: number }> {
    if (content !== undefined && !isReactionContent(target.subject, content)) throw invalid(`content must be one of ${this.contents(target.subject)}`);
    return await this.store.read(async (tx) => {
      await this.requireTarget(tx, repo, viewer, target);
      const { rows, total } = await reactionsTo(tx, repo.id, target.subject, target.id, content, page);
      return { items: rows, total };
    });
  }

  /** Adds the viewer's reaction; `created` false when they had given it already (that one is answered). */
  async add(repo: RepositoryRow, viewer: Viewer, target: ReactionTarget, content: unknown): Promise<{ reaction: ReactionRow; created: boolean }> {
    await requireAccess(this.store, viewer, repo, 'read');
    if (!isReactionContent(target.subject, content)) throw invalid(`content must be one of ${this.contents(target.subject)}`);
    return await writeToRepository(this.store, repo, async (tx) => {
      const { locked, level } = await this.requireTarget(tx, repo, viewer, target);
      if (locked) requireUnlockedFor(level, 'reaction');
      const given = await reactionOf(tx, repo.id, target.subject, target.id, viewer!.id, content);
      if (given) return { reaction: given, created: false };
      const id = await insertReaction(tx, repo.id, target.subject, target.id, viewer!.id, content, this.now());
      return { reaction: (await reactionById(tx, repo.id, target.subject, target.id, id))!, created: true };
    });
  }

  /** Takes back one of the viewer's reactions to the target (another's is not theirs to take: 404). */
  async remove(repo: RepositoryRow, viewer: Viewer, target: ReactionTarget, reactionId: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'read');
    await writeToRepository(this.store, repo, async (tx) => {
      await this.requireTarget(tx, repo, viewer, target);
      const reaction = Number.isSafeInteger(reactionId) ? await reactionById(tx, repo.id, target.subject, target.id, reactionId) : undefined;
      if (!reaction || reaction.user_id !== viewer!.id) throw notFound('Not Found');
      await deleteReaction(tx, repo.id, target.subject, target.id, reaction.id);
    });
  }

  /** The target as the viewer may see it (404 otherwise): whether its conversation is locked, and the viewer's level. */
  private async requireTarget(db: ReadTx, repo: RepositoryRow, viewer: Viewer, { subject, id }: ReactionTarget): Promise<{ locked: boolean; level: AccessLevel }> {
    const level = await requireAccess(db, viewer, repo, 'read');
    let locked: boolean | undefined;
    if (subject === 'issue') locked = await lockOfNumber(db, repo.id, id);
    else if (subject === 'comment') locked = await lockOfComment(db, repo.id, id);
    else if (subject === 'review_comment') {
      const comment = await reviewCommentById(db, repo.id, id);
      if (comment && comment.pending === 0) locked = (await pullInRepository(db, repo.id, comment.pull_id))?.locked;
    } else if (subject === 'commit_comment') {
      // A commit's conversation is never locked.
      if (await commitCommentById(db, repo.id, id)) locked = false;
    } else {
      const release = await releaseById(db, repo.id, id);
      if (release && (release.draft === 0 || atLeast(level, 'write'))) locked = false;
    }
    if (locked === undefined) throw notFound('Not Found');
    return { locked, level };
  }

  private contents(subject: ReactionSubject): string {
    return (subject === 'release' ? RELEASE_CONTENTS : REACTION_CONTENTS).map((content) => `'${content}'`).join(', ');
  }
}
