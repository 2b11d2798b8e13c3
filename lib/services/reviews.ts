import { createHash } from 'node:crypto';
import { insertIssueEvent } from '../store/queries/issue-events.js';
import { invalid, notFound, refusedByRule } from '../errors.js';
import { hunkUpTo, lineAtPosition } from '../git/diff-hunk.js';
import type { ChangedFile } from '../git/diff.js';
import type { EventRecorder, PullRequestReviewCommentEvent, PullRequestReviewEvent } from '../events/index.js';
import { simplePull, type ReviewShapes } from '../github/review-shapes.js';
import type { Db, WriteTx } from '../store/interface.js';
import { pullInRepository } from '../store/queries/pulls.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { CommentOrder } from '../store/queries/issues.js';
import type { PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import {
  addReviewRequest,
  deleteReview,
  deleteReviewComment,
  insertReview,
  insertReviewComment,
  markFileViewed,
  pendingReviewOf,
  removeReviewRequest,
  requestedReviewers,
  resolveThread,
  reviewById,
  reviewCommentById,
  reviewComments,
  reviewsOfPull,
  threadResolutions,
  unmarkFileViewed,
  unresolveThread,
  updateReview,
  updateReviewComment,
  viewedFiles,
  type DiffPosition,
  type ReviewCommentRow,
  type ReviewRow,
  type ReviewState,
  type ThreadResolution,
} from '../store/queries/reviews.js';
import { userByName, type UserRow } from '../store/queries/users.js';
import { accessLevel, atLeast, requireAccess, type Viewer } from './permissions.js';
import type { PullService } from './pulls.js';
import { requireCommentable } from './conversation-locks.js';
import { writeToRepository } from './repository-write.js';
import { notifyThread } from './notifications.js';
import { ownValue } from '../own-value.js';

const MAX_BODY = 65_536;
const MAX_COMMENTS = 100;
const EVENTS: Readonly<Record<string, ReviewState>> = { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED' };

export interface ReviewInput {
  body?: unknown;
  event?: unknown;
  commit_id?: unknown;
  comments?: unknown;
}

export interface CommentInput {
  body?: unknown;
  path?: unknown;
  line?: unknown;
  side?: unknown;
  start_line?: unknown;
  start_side?: unknown;
  position?: unknown;
  /** GitHub's `'line'` (the default) or `'file'`: a comment on the whole file, which takes no line. */
  subject_type?: unknown;
  in_reply_to?: unknown;
  commit_id?: unknown;
}

type Fields = Record<string, unknown>;
const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a file's changes are, in short: a file viewed at another hash has changed since. */
function patchHash(file: ChangedFile): string {
  return createHash('sha1').update(`${file.status}\0${file.previous_filename ?? ''}\0${file.patch ?? `${file.additions}/${file.deletions}`}`).digest('hex');
}

function body(value: unknown, required: string | undefined): string {
  if (value === undefined || value === null || value === '') {
    if (required) throw invalid(required);
    return '';
  }
  if (typeof value !== 'string') throw invalid('body must be a string');
  if (value.length > MAX_BODY) throw invalid(`body must be at most ${MAX_BODY} characters`);
  return value;
}

function side(field: string, value: unknown, fallback: 'LEFT' | 'RIGHT'): 'LEFT' | 'RIGHT' {
  if (value === undefined || value === null) return fallback;
  if (value !== 'LEFT' && value !== 'RIGHT') throw invalid(`${field} must be 'LEFT' or 'RIGHT'`);
  return value;
}

/** GitHub's `subject_type`: a comment on lines (the default) or on the whole file. */
function subjectType(field: string, value: unknown): 'line' | 'file' {
  if (value === undefined || value === null || value === 'line') return 'line';
  if (value !== 'file') throw invalid(`${field} must be 'line' or 'file'`);
  return value;
}

function lineNumber(field: string, value: unknown): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw invalid(`${field} must be a line number`);
  return value as number;
}

/**
 * Pull request reviews (GitHub's model): a review is pending (seen by its author only) until submitted as a comment,
 * an approval or a request for changes; comments sit on lines of the diff (`line`/`side`, ranges with `start_*`), with
 * GitHub's `diff_hunk`; reviewers may be requested. Reviewing needs read access; the author of a pull request cannot
 * approve it or ask for changes to it; dismissing needs write access.
 */
export class ReviewService {
  constructor(
    private readonly store: Db,
    private readonly pulls: Pick<PullService, 'files' | 'filesAt' | 'commits'>,
    private readonly now: () => string,
    private readonly events: EventRecorder,
    private readonly shapes: ReviewShapes,
  ) {}

  /** The pull request as its events carry it, read in the write. */
  private async pullShape(tx: WriteTx, repo: RepositoryRow, pullId: number) {
    return await this.events.github.pullForEvent(tx, repo, (await pullInRepository(tx, repo.id, pullId))!);
  }

  /** A `pull_request_review` event of a review as it stands in the write. */
  private async announceReview(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, pull: PullRow, reviewId: number, action: PullRequestReviewEvent['action'], changes?: { body: { from: string } }): Promise<void> {
    await this.events.record(tx, repo, viewer, 'pull_request_review', async (current) => {
      const [review] = await this.shapes.reviews(tx, current, pull.number, [(await reviewById(tx, pull.id, reviewId))!]);
      const pullRequest = simplePull(await this.pullShape(tx, current, pull.id), action === 'edited');
      return { action, review: { ...review!, state: review!.state.toLowerCase() }, pull_request: pullRequest, ...(changes ? { changes } : {}) };
    });
  }

  /** A `pull_request_review_comment` event of comments as they stand in the write (or as they were, when deleted). */
  private async announceComments(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, pull: Pick<PullRow, 'id' | 'number'>, comments: readonly ReviewCommentRow[], action: PullRequestReviewCommentEvent['action'], changes?: { body: { from: string } }): Promise<void> {
    for (const row of comments) {
      await this.events.record(tx, repo, viewer, 'pull_request_review_comment', async (current) => {
        const [comment] = await this.shapes.comments(tx, current, [row]);
        return { action, comment: comment!, pull_request: simplePull(await this.pullShape(tx, current, pull.id)), ...(changes ? { changes } : {}) };
      });
    }
  }

  /** What submitting a review tells: the review, then each of its comments. */
  private async announceSubmitted(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, pull: PullRow, reviewId: number): Promise<void> {
    await this.announceReview(tx, repo, viewer, pull, reviewId, 'submitted');
    const { items } = await reviewComments(tx, { reviewId }, viewer!.id, { limit: MAX_COMMENTS, offset: 0 });
    // Its summary and its comments may mention people.
    const text = [(await reviewById(tx, pull.id, reviewId))?.body ?? '', ...items.map((comment) => comment.body)].join('\n\n');
    await notifyThread(tx, repo, pull.number, viewer?.id, { text, everyone: true }, this.now());
    await this.announceComments(tx, repo, viewer, pull, items, 'created');
  }

  async list(pull: PullRow, viewer: Viewer, page: PageWindow): Promise<{ items: ReviewRow[]; total: number }> {
    return await this.store.read(async (tx) => await reviewsOfPull(tx, pull.id, viewer?.id ?? null, page));
  }

  /** A review; a pending one only for its author (404 for anyone else, as on GitHub). */
  async get(pull: PullRow, viewer: Viewer, id: number): Promise<ReviewRow> {
    const review = Number.isSafeInteger(id) ? await reviewById(this.store, pull.id, id) : undefined;
    if (!review || (review.state === 'PENDING' && review.user_id !== viewer?.id)) throw notFound('Not Found');
    return review;
  }

  async create(repo: RepositoryRow, viewer: Viewer, pull: PullRow, input: ReviewInput): Promise<ReviewRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    // A locked conversation takes reviews and their comments from writers only, as its comments.
    await requireCommentable(this.store, repo, viewer, pull.locked);
    const state = this.state(input.event, viewer!.id, pull);
    const comments = input.comments === undefined || input.comments === null ? [] : input.comments;
    if (!Array.isArray(comments) || comments.length > MAX_COMMENTS) throw invalid(`comments must be a list of at most ${MAX_COMMENTS} comments`);
    const text = body(input.body, state === 'CHANGES_REQUESTED' || (state === 'COMMENTED' && comments.length === 0) ? 'body is required to comment or request changes' : undefined);
    const commit = await this.commitFor(repo, pull, input.commit_id);
    const positioned = await this.positions(repo, pull, comments.map((comment, index) => (isObject(comment) ? comment : { bad: index })), commit);
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      if (state === 'PENDING' && (await pendingReviewOf(tx, pull.id, viewer!.id))) throw refusedByRule('User can only have one pending review per pull request');
      const id = await insertReview(tx, repo.id, pull.id, viewer!.id, { state, body: text, commit_id: commit, submitted_at: state === 'PENDING' ? null : now }, now);
      for (const comment of positioned) await insertReviewComment(tx, repo.id, pull.id, id, viewer!.id, { ...comment, commit_id: commit, in_reply_to_id: null }, now);
      if (state !== 'PENDING') {
        await removeReviewRequest(tx, pull.id, viewer!.id);
        await this.announceSubmitted(tx, repo, viewer, pull, id);
      }
      return id;
    });
    return (await reviewById(this.store, pull.id, id))!;
  }

  /** Submits a pending review as a comment, an approval or a request for changes. */
  async submit(repo: RepositoryRow, viewer: Viewer, pull: PullRow, id: number, input: ReviewInput): Promise<ReviewRow> {
    const review = await this.own(repo, viewer, pull, id);
    if (review.state !== 'PENDING') throw invalid('the review has already been submitted');
    const state = this.state(input.event ?? 'missing', viewer!.id, pull);
    const text = input.body === undefined ? review.body : body(input.body, undefined);
    if (state === 'CHANGES_REQUESTED' && !text) throw invalid('body is required to request changes');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await updateReview(tx, review.id, { state, body: text, submitted_at: now }, now);
      await removeReviewRequest(tx, pull.id, viewer!.id);
      await this.announceSubmitted(tx, repo, viewer, pull, review.id);
    });
    return (await reviewById(this.store, pull.id, review.id))!;
  }

  async edit(repo: RepositoryRow, viewer: Viewer, pull: PullRow, id: number, input: { body?: unknown }): Promise<ReviewRow> {
    const review = await this.own(repo, viewer, pull, id);
    const text = body(input.body, 'body is required');
    await writeToRepository(this.store, repo, async (tx) => {
      await updateReview(tx, review.id, { state: review.state, body: text, submitted_at: review.submitted_at }, this.now());
      if (review.state !== 'PENDING' && text !== review.body) await this.announceReview(tx, repo, viewer, pull, review.id, 'edited', { body: { from: review.body } });
    });
    return (await reviewById(this.store, pull.id, review.id))!;
  }

  /** Deletes a review not submitted yet (a submitted one stays, as on GitHub). */
  async deletePending(repo: RepositoryRow, viewer: Viewer, pull: PullRow, id: number): Promise<ReviewRow> {
    const review = await this.own(repo, viewer, pull, id);
    if (review.state !== 'PENDING') throw invalid('only a pending review can be deleted');
    await writeToRepository(this.store, repo, async (tx) => await deleteReview(tx, review.id));
    return review;
  }

  /**
   * Dismisses an approval or a request for changes (write access), as GitHub does: the review keeps its body, and the
   * message goes to a `review_dismissed` event of the pull request (with the state it had, and the head then).
   */
  async dismiss(repo: RepositoryRow, viewer: Viewer, pull: PullRow, id: number, message: unknown): Promise<ReviewRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Dismissing reviews needs write access');
    const review = await this.get(pull, viewer, id);
    if (review.state !== 'APPROVED' && review.state !== 'CHANGES_REQUESTED') throw invalid('only an approval or a request for changes can be dismissed');
    const text = body(message, 'message is required');
    await writeToRepository(this.store, repo, async (tx) => {
      const now = this.now();
      await updateReview(tx, review.id, { state: 'DISMISSED', body: review.body, submitted_at: review.submitted_at }, now);
      const dismissal = { reviewId: review.id, state: review.state, message: text, commitId: pull.head_sha };
      await insertIssueEvent(tx, repo.id, pull.number, 'review_dismissed', { actorId: viewer?.id, subjectId: review.user_id, dismissal }, now);
      await this.announceReview(tx, repo, viewer, pull, review.id, 'dismissed');
    });
    return (await reviewById(this.store, pull.id, review.id))!;
  }

  /** The resolved threads of the pull request, by their first comment. */
  async resolutions(pull: PullRow): Promise<Map<number, ThreadResolution>> {
    return await threadResolutions(this.store, pull.id);
  }

  /**
   * Marks a review thread (named by its first comment) resolved or not: the pull request's author or a writer, as on
   * GitHub. A pending comment's thread is not one yet.
   */
  async setResolved(repo: RepositoryRow, viewer: Viewer, pull: PullRow, commentId: number, resolved: boolean): Promise<void> {
    if (viewer?.id !== pull.author_id) await requireAccess(this.store, viewer, repo, 'write', 'Resolving conversations needs write access');
    const first = await this.comment(repo, viewer, commentId);
    if (first.pull_id !== pull.id || first.pending === 1) throw notFound('Not Found');
    if (first.in_reply_to_id !== null) throw invalid('a conversation is resolved by its first comment');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await (resolved ? resolveThread(tx, first.id, viewer!.id, now) : unresolveThread(tx, first.id));
    });
  }

  /**
   * The files of the pull request the viewer has viewed as they are now (paths): a file marked viewed whose changes
   * differ since counts as not viewed again, as on GitHub.
   */
  async viewedFiles(repo: RepositoryRow, viewer: Viewer, pull: PullRow): Promise<Set<string>> {
    if (!viewer) return new Set();
    const marked = await viewedFiles(this.store, pull.id, viewer.id);
    if (marked.size === 0) return new Set();
    const files = await this.pulls.files(repo, pull.id);
    return new Set(files.filter((file) => marked.get(file.filename) === patchHash(file)).map((file) => file.filename));
  }

  /** Marks a file of the pull request viewed (as its changes are now) or not, for the signed-in viewer. */
  async setViewed(repo: RepositoryRow, viewer: Viewer, pull: PullRow, path: unknown, viewed: boolean): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'read');
    const file = (await this.pulls.files(repo, pull.id)).find((changed) => changed.filename === path);
    if (!file) throw invalid('path must be a file the pull request changes');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await (viewed ? markFileViewed(tx, pull.id, viewer!.id, file.filename, patchHash(file), now) : unmarkFileViewed(tx, pull.id, viewer!.id, file.filename));
    });
  }

  async comments(repo: RepositoryRow, viewer: Viewer, of: { pull: PullRow } | { review: ReviewRow } | 'all', page: PageWindow, order?: CommentOrder): Promise<{ items: ReviewCommentRow[]; total: number }> {
    const scope = of === 'all' ? { repoId: repo.id } : 'pull' in of ? { pullId: of.pull.id } : { reviewId: of.review.id };
    return await this.store.read(async (tx) => await reviewComments(tx, scope, viewer?.id ?? null, page, order));
  }

  async comment(repo: RepositoryRow, viewer: Viewer, id: number): Promise<ReviewCommentRow & { pending: number }> {
    const comment = Number.isSafeInteger(id) ? await reviewCommentById(this.store, repo.id, id) : undefined;
    if (!comment || (comment.pending === 1 && comment.user_id !== viewer?.id)) throw notFound('Not Found');
    return comment;
  }

  /**
   * A single comment on the diff (GitHub makes it a submitted review of its own), or a reply (`in_reply_to`: the
   * comment it answers, whose place it takes).
   */
  async addComment(repo: RepositoryRow, viewer: Viewer, pull: PullRow, input: CommentInput): Promise<ReviewCommentRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    await requireCommentable(this.store, repo, viewer, pull.locked);
    const text = body(input.body, 'body is required');
    let position: DiffPosition & { diff_hunk: string; position: number | null };
    let replyTo: number | null = null;
    let commit = pull.head_sha;
    if (input.in_reply_to !== undefined && input.in_reply_to !== null) {
      const target = await this.comment(repo, viewer, Number(input.in_reply_to));
      if (target.pull_id !== pull.id) throw notFound('Not Found');
      replyTo = target.in_reply_to_id ?? target.id;
      position = { path: target.path, subject_type: target.subject_type, line: target.line, side: target.side, start_line: target.start_line, start_side: target.start_side, diff_hunk: target.diff_hunk, position: target.position };
    } else {
      commit = await this.commitFor(repo, pull, input.commit_id);
      position = (await this.positions(repo, pull, [input as Fields], commit))[0]!;
    }
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      const reviewId = await insertReview(tx, repo.id, pull.id, viewer!.id, { state: 'COMMENTED', body: '', commit_id: commit, submitted_at: now }, now);
      const id = await insertReviewComment(tx, repo.id, pull.id, reviewId, viewer!.id, { ...position, body: text, commit_id: commit, in_reply_to_id: replyTo }, now);
      await this.announceSubmitted(tx, repo, viewer, pull, reviewId);
      return id;
    });
    return await this.comment(repo, viewer, id);
  }

  /**
   * A comment on the diff kept in the viewer's pending review (started when there is none): seen by its author alone
   * until the review is submitted, as on GitHub's "Start a review".
   */
  async addPendingComment(repo: RepositoryRow, viewer: Viewer, pull: PullRow, input: CommentInput): Promise<ReviewCommentRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    await requireCommentable(this.store, repo, viewer, pull.locked);
    const position = (await this.positions(repo, pull, [input as Fields], pull.head_sha))[0]!;
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      const reviewId = (await pendingReviewOf(tx, pull.id, viewer!.id))?.id ?? (await insertReview(tx, repo.id, pull.id, viewer!.id, { state: 'PENDING', body: '', commit_id: pull.head_sha, submitted_at: null }, now));
      return await insertReviewComment(tx, repo.id, pull.id, reviewId, viewer!.id, { ...position, commit_id: pull.head_sha, in_reply_to_id: null }, now);
    });
    return await this.comment(repo, viewer, id);
  }

  /** The viewer's review not submitted yet, if any. */
  async pendingOf(pull: PullRow, viewer: Viewer): Promise<ReviewRow | undefined> {
    return viewer ? await pendingReviewOf(this.store, pull.id, viewer.id) : undefined;
  }

  /** Finishes the viewer's review: their pending one submitted with `input`, or a new review without line comments. */
  async finish(repo: RepositoryRow, viewer: Viewer, pull: PullRow, input: ReviewInput): Promise<ReviewRow> {
    const pending = await this.pendingOf(pull, viewer);
    if (pending) return await this.submit(repo, viewer, pull, pending.id, input);
    return await this.create(repo, viewer, pull, { ...input, event: input.event ?? 'missing' });
  }

  async editComment(repo: RepositoryRow, viewer: Viewer, id: number, input: { body?: unknown }): Promise<ReviewCommentRow> {
    const comment = await this.comment(repo, viewer, id);
    if (comment.user_id !== viewer?.id) throw invalid('only its author can edit a comment');
    const text = body(input.body, 'body is required');
    await writeToRepository(this.store, repo, async (tx) => {
      await updateReviewComment(tx, comment.id, text, this.now());
      if (comment.pending === 0 && text !== comment.body) {
        await this.announceComments(tx, repo, viewer, { id: comment.pull_id, number: comment.pull_number }, [(await reviewCommentById(tx, repo.id, comment.id))!], 'edited', { body: { from: comment.body } });
      }
    });
    return await this.comment(repo, viewer, id);
  }

  /** Deletes a comment: its author, or anyone with write access. */
  async deleteComment(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    const comment = await this.comment(repo, viewer, id);
    if (comment.user_id !== viewer?.id) await requireAccess(this.store, viewer, repo, 'write', 'Only its author or a collaborator with write access may delete this comment');
    await writeToRepository(this.store, repo, async (tx) => {
      if (comment.pending === 0) await this.announceComments(tx, repo, viewer, { id: comment.pull_id, number: comment.pull_number }, [comment], 'deleted');
      await deleteReviewComment(tx, repo.id, comment.id);
    });
  }

  async requested(pull: PullRow): Promise<string[]> {
    return await requestedReviewers(this.store, pull.id);
  }

  /** Requests reviews (the author or a writer may): from accounts that can read the repository, not its author. */
  async request(repo: RepositoryRow, viewer: Viewer, pull: PullRow, logins: unknown, add: boolean): Promise<string[]> {
    await requireAccess(this.store, viewer, repo, 'read');
    if (viewer!.id !== pull.author_id) await requireAccess(this.store, viewer, repo, 'write', 'Requesting reviews needs write access');
    if (!Array.isArray(logins) || !logins.every((login) => typeof login === 'string') || logins.length > 15) throw invalid('reviewers must be a list of at most 15 logins');
    const users: UserRow[] = [];
    for (const login of logins as string[]) {
      const user = await userByName(this.store, login);
      if (!user || (add && !atLeast(await accessLevel(this.store, user, repo), 'read'))) throw invalid(`reviewers must be accounts that can read the repository: ${login}`);
      if (add && user.id === pull.author_id) throw invalid('reviews cannot be requested from the author of the pull request');
      users.push(user);
    }
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const before = new Set(await requestedReviewers(tx, pull.id));
      for (const user of users) {
        // Only a change is announced: requesting a review twice, or removing one never requested, says nothing.
        if (add === before.has(user.username)) continue;
        await (add ? addReviewRequest(tx, pull.id, user.id, now) : removeReviewRequest(tx, pull.id, user.id));
        await insertIssueEvent(tx, repo.id, pull.number, add ? 'review_requested' : 'review_request_removed', { actorId: viewer?.id, subjectId: user.id }, now);
        if (add) await notifyThread(tx, repo, pull.number, viewer?.id, { direct: [{ userId: user.id, reason: 'review_requested' }] }, now);
        await this.events.record(tx, repo, viewer, 'pull_request', async (current) => ({
          action: add ? ('review_requested' as const) : ('review_request_removed' as const),
          number: pull.number,
          pull_request: await this.pullShape(tx, current, pull.id),
          requested_reviewer: this.events.github.user(user),
        }));
      }
    });
    return await this.requested(pull);
  }

  private async own(repo: RepositoryRow, viewer: Viewer, pull: PullRow, id: number): Promise<ReviewRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    const review = await this.get(pull, viewer, id);
    if (review.user_id !== viewer!.id) throw invalid('only its author can change a review');
    return review;
  }

  private state(event: unknown, viewerId: number, pull: PullRow): ReviewState {
    if (event === undefined || event === null || event === '') return 'PENDING';
    const state = typeof event === 'string' ? ownValue(EVENTS, event) : undefined;
    if (!state) throw invalid("event must be 'APPROVE', 'REQUEST_CHANGES' or 'COMMENT'");
    if (viewerId === pull.author_id && state !== 'COMMENTED') throw refusedByRule(state === 'APPROVED' ? 'Can not approve your own pull request' : 'Can not request changes on your own pull request');
    return state;
  }

  /**
   * The line and side a comment's `position` names (GitHub's deprecated placement, which bots still send: then line,
   * side and the start of a range are not asked for), or undefined when it gives none.
   */
  private placeOf(field: string, comment: Fields, patch: string | undefined): { line: number; side: 'LEFT' | 'RIGHT' } | undefined {
    if (comment.position === undefined || comment.position === null) return undefined;
    if (comment.line !== undefined && comment.line !== null) throw invalid(`${field}.position must not be given with line: give one of them`);
    if (!Number.isSafeInteger(comment.position) || (comment.position as number) < 1) throw invalid(`${field}.position must be a line of the diff`);
    const placed = patch === undefined ? undefined : lineAtPosition(patch, comment.position as number);
    if (!placed) throw invalid(`${field}.position must be a line of the diff`);
    return placed;
  }

  /**
   * The commit comments are placed on: the head when none is named, or, as GitHub takes it, any commit of the pull
   * request (a bot's comment on the head it was told of, which a push has moved on since).
   */
  private async commitFor(repo: RepositoryRow, pull: PullRow, commitId: unknown): Promise<string> {
    if (commitId === undefined || commitId === null || commitId === pull.head_sha) return pull.head_sha;
    if (typeof commitId === 'string' && /^[0-9a-f]{40}$/.test(commitId) && (await this.pulls.commits(repo, pull.id)).some((commit) => commit.sha === commitId)) return commitId;
    throw invalid('commit_id must be a commit of the pull request');
  }

  /**
   * Checks each comment's place against the diff of the pull request up to `commit` (see commitFor) and gives it its
   * diff hunk.
   */
  private async positions(repo: RepositoryRow, pull: PullRow, comments: readonly Fields[], commit: string): Promise<Array<DiffPosition & { diff_hunk: string; position: number | null; body: string }>> {
    if (comments.length === 0) return [];
    const files = new Map((await this.pulls.filesAt(repo, pull, commit)).map((file) => [file.filename, file]));
    return comments.map((comment, index) => {
      const field = comments.length > 1 || 'bad' in comment ? `comments[${index}]` : 'comment';
      if ('bad' in comment) throw invalid(`${field} must be an object`);
      if (typeof comment.path !== 'string' || !comment.path) throw invalid(`${field}.path is required`);
      if (subjectType(`${field}.subject_type`, comment.subject_type) === 'file') {
        // On the whole file: its place is the file alone (line, side and a range are not asked for, as on GitHub).
        if (!files.has(comment.path)) throw invalid(`${field}.path must be a file of the diff`);
        const text = body(comment.body, `${field}.body is required`);
        return { path: comment.path, subject_type: 'file' as const, line: null, side: 'RIGHT' as const, start_line: null, start_side: null, diff_hunk: '', position: null, body: text };
      }
      const patch = files.get(comment.path)?.patch;
      const placed = this.placeOf(field, comment, patch);
      const line = placed?.line ?? lineNumber(`${field}.line`, comment.line);
      const where = placed?.side ?? side(`${field}.side`, comment.side, 'RIGHT');
      const startLine = comment.start_line === undefined || comment.start_line === null ? null : lineNumber(`${field}.start_line`, comment.start_line);
      const startSide = startLine === null ? null : side(`${field}.start_side`, comment.start_side, where);
      if (startLine !== null && startSide === where && startLine >= line) throw invalid(`${field}.start_line must be before line`);
      const hunk = patch === undefined ? undefined : hunkUpTo(patch, line, where);
      if (hunk === undefined || (startLine !== null && hunkUpTo(patch!, startLine, startSide!) === undefined)) throw invalid(`${field}.line must be part of the diff`);
      return { path: comment.path, subject_type: 'line' as const, line, side: where, start_line: startLine, start_side: startSide, ...hunk, body: body(comment.body, `${field}.body is required`) };
    });
  }
}
