import type { ReadTx } from '../store/interface.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { ReviewCommentRow, ReviewRow } from '../store/queries/reviews.js';
import { usersByNames } from '../store/queries/users.js';
import { collaboratorsAmong } from '../store/queries/collaborators.js';
import { reactionCounts } from '../store/queries/reactions.js';
import { reactionRollup, type GitHubShapes } from './shapes.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubAuthorAssociation, GitHubPullRequest, GitHubUser } from './types.js';

export type GitHubReview = Awaited<ReturnType<ReviewShapes['reviews']>>[number];
export type GitHubReviewComment = Awaited<ReturnType<ReviewShapes['comments']>>[number];

/** The fields of GitHub's "simple pull request", which review events carry instead of the whole one. */
const SIMPLE_PULL_FIELDS = [
  '_links', 'active_lock_reason', 'assignee', 'assignees', 'author_association', 'auto_merge', 'base', 'body', 'closed_at', 'comments_url',
  'commits_url', 'created_at', 'diff_url', 'draft', 'head', 'html_url', 'id', 'issue_url', 'labels', 'locked', 'merge_commit_sha', 'merged_at',
  'milestone', 'node_id', 'number', 'patch_url', 'requested_reviewers', 'requested_teams', 'review_comment_url', 'review_comments_url', 'state',
  'statuses_url', 'title', 'updated_at', 'url', 'user',
] as const satisfies ReadonlyArray<keyof GitHubPullRequest>;

/**
 * A pull request as review events carry it: the simple shape. GitHub's description of `pull_request_review.edited`
 * alone leaves `has_discussions` out of its branches' repositories: `withoutDiscussions` follows it there.
 */
export function simplePull(pull: GitHubPullRequest, withoutDiscussions = false) {
  const branch = (ref: GitHubPullRequest['head']) => {
    if (!withoutDiscussions) return ref;
    const { has_discussions: _, ...repo } = ref.repo;
    return { ...ref, repo };
  };
  const picked = Object.fromEntries(SIMPLE_PULL_FIELDS.map((field) => [field, pull[field]])) as Pick<GitHubPullRequest, (typeof SIMPLE_PULL_FIELDS)[number]>;
  return { ...picked, head: branch(pull.head), base: branch(pull.base) };
}

/** Builds GitHub's pull request review and review comment objects, every account of a page read in one query. */
export class ReviewShapes {
  constructor(
    private readonly baseUrl: () => string,
    private readonly shapes: GitHubShapes,
  ) {}

  private api(repo: RepositoryRow, path: string): string {
    return `${this.baseUrl()}${GITHUB_API_PREFIX}/repos/${repo.owner_name}/${repo.name}${path}`;
  }

  private html(repo: RepositoryRow, path: string): string {
    return `${this.baseUrl()}/${repo.owner_name}/${repo.name}${path}`;
  }

  /** Accounts by lower-cased name, with how each relates to the repository. */
  private async people(db: ReadTx, repo: RepositoryRow, names: readonly string[]): Promise<(name: string) => { user: GitHubUser | null; association: GitHubAuthorAssociation }> {
    const lower = [...new Set(names.map((name) => name.toLowerCase()))];
    const users = await usersByNames(db, lower);
    const collaborators = await collaboratorsAmong(db, repo.id, lower);
    return (name) => {
      const row = users.get(name.toLowerCase());
      const association = name.toLowerCase() === repo.owner_name.toLowerCase() ? 'OWNER' : collaborators.has(name.toLowerCase()) ? 'COLLABORATOR' : 'NONE';
      return { user: row ? this.shapes.user(row) : null, association };
    };
  }

  async reviews(db: ReadTx, repo: RepositoryRow, pullNumber: number, reviews: readonly ReviewRow[]) {
    const person = await this.people(db, repo, reviews.map((review) => review.author));
    return reviews.map((review) => {
      const { user, association } = person(review.author);
      const html = this.html(repo, `/pull/${pullNumber}#pullrequestreview-${review.id}`);
      const pull = this.api(repo, `/pulls/${pullNumber}`);
      return {
        id: review.id,
        node_id: nodeId('PullRequestReview', review.id),
        user,
        body: review.body,
        state: review.state,
        html_url: html,
        pull_request_url: pull,
        author_association: association,
        _links: { html: { href: html }, pull_request: { href: pull } },
        ...(review.submitted_at ? { submitted_at: githubTime(review.submitted_at) } : {}),
        commit_id: review.commit_id,
      };
    });
  }

  async comments(db: ReadTx, repo: RepositoryRow, comments: readonly ReviewCommentRow[]) {
    const person = await this.people(db, repo, comments.map((comment) => comment.author));
    const reactions = await reactionCounts(db, repo.id, 'review_comment', comments.map((comment) => comment.id));
    return comments.map((comment) => {
      const { user, association } = person(comment.author);
      const url = this.api(repo, `/pulls/comments/${comment.id}`);
      const html = this.html(repo, `/pull/${comment.pull_number}#discussion_r${comment.id}`);
      const pull = this.api(repo, `/pulls/${comment.pull_number}`);
      return {
        url,
        pull_request_review_id: comment.review_id,
        id: comment.id,
        node_id: nodeId('PullRequestReviewComment', comment.id),
        diff_hunk: comment.diff_hunk,
        path: comment.path,
        position: comment.position,
        original_position: comment.position,
        commit_id: comment.commit_id,
        original_commit_id: comment.commit_id,
        ...(comment.in_reply_to_id === null ? {} : { in_reply_to_id: comment.in_reply_to_id }),
        user,
        body: comment.body,
        created_at: githubTime(comment.created_at),
        updated_at: githubTime(comment.updated_at),
        html_url: html,
        pull_request_url: pull,
        author_association: association,
        _links: { self: { href: url }, html: { href: html }, pull_request: { href: pull } },
        reactions: reactionRollup(url, reactions.get(comment.id)),
        start_line: comment.start_line,
        original_start_line: comment.start_line,
        start_side: comment.start_side,
        line: comment.line,
        original_line: comment.line,
        side: comment.side,
        subject_type: comment.subject_type,
      };
    });
  }
}
