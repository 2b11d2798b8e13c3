import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { currentUser } from '../http/auth.js';
import type { PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { ReviewCommentRow, ReviewRow } from '../store/queries/reviews.js';
import type { UserRow } from '../store/queries/users.js';
import { ReviewShapes } from '../github/review-shapes.js';
import { commentOrderOf, created, githubPage, noContent, readJson, unprocessable, validationFailed } from './http.js';
import { numberParam, pullOf, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

/**
 * Pull request reviews, review comments on diff lines and requested reviewers, in GitHub's shapes
 * (`/pulls/:number/reviews[...]`, `/pulls/:number/comments`, `/pulls/comments/:id`, `/pulls/:number/requested_reviewers`).
 */
export function mountReviews(app: H3, ctx: AppContext): void {
  const shapes = new ReviewShapes(() => ctx.baseUrl(), shapesOf(ctx));
  const PULL = `${REPO}/pulls/:number`;
  const REVIEW = `${PULL}/reviews/:review_id`;
  const COMMENT = `${REPO}/pulls/comments/:comment_id`;
  const reviewShape = async (repo: RepositoryRow, pull: PullRow, review: ReviewRow) => (await shapes.reviews(ctx.store, repo, pull.number, [review]))[0];
  const commentShape = async (repo: RepositoryRow, comment: ReviewCommentRow) => (await shapes.comments(ctx.store, repo, [comment]))[0];
  /** The repository, the pull request of the path and whoever asks (signed in or not). */
  const context = async (event: H3Event, signedIn = false): Promise<{ repo: RepositoryRow; pull: PullRow; viewer: UserRow | undefined }> => {
    const { repo, user } = signedIn ? await repoAndUser(ctx, event) : { repo: await repoOf(ctx, event), user: await currentUser(ctx, event) };
    return { repo, pull: await pullOf(ctx, repo, event), viewer: user };
  };
  const requested = async (logins: readonly string[]) => ({ users: await shapesOf(ctx).usersNamed(ctx.store, logins), teams: [] });

  app.get(`${PULL}/reviews`, async (event) => {
    const { repo, pull, viewer } = await context(event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.reviews.list(pull, viewer, page);
    return page.respond(total, await shapes.reviews(ctx.store, repo, pull.number, items));
  });

  app.post(`${PULL}/reviews`, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    const body = await readJson(ctx, event);
    return await reviewShape(repo, pull, await ctx.reviews.create(repo, viewer, pull, body));
  });

  app.get(REVIEW, async (event) => {
    const { repo, pull, viewer } = await context(event);
    return await reviewShape(repo, pull, await ctx.reviews.get(pull, viewer, numberParam(event, 'review_id')));
  });

  app.put(REVIEW, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    const body = await readJson(ctx, event);
    return await reviewShape(repo, pull, await ctx.reviews.edit(repo, viewer, pull, numberParam(event, 'review_id'), body));
  });

  app.delete(REVIEW, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    return await reviewShape(repo, pull, await ctx.reviews.deletePending(repo, viewer, pull, numberParam(event, 'review_id')));
  });

  app.post(`${REVIEW}/events`, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    const body = await readJson(ctx, event);
    return await reviewShape(repo, pull, await ctx.reviews.submit(repo, viewer, pull, numberParam(event, 'review_id'), body));
  });

  app.put(`${REVIEW}/dismissals`, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    const body = await readJson(ctx, event);
    return await reviewShape(repo, pull, await ctx.reviews.dismiss(repo, viewer, pull, numberParam(event, 'review_id'), body.message));
  });

  app.get(`${REVIEW}/comments`, async (event) => {
    const { repo, pull, viewer } = await context(event);
    const review = await ctx.reviews.get(pull, viewer, numberParam(event, 'review_id'));
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.reviews.comments(repo, viewer, { review }, page);
    return page.respond(total, await shapes.comments(ctx.store, repo, items));
  });

  app.get(`${PULL}/comments`, async (event) => {
    const order = commentOrderOf(event, 'PullRequestReviewComment');
    const { repo, pull, viewer } = await context(event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.reviews.comments(repo, viewer, { pull }, page, order);
    return page.respond(total, await shapes.comments(ctx.store, repo, items));
  });

  app.post(`${PULL}/comments`, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    const body = await readJson(ctx, event);
    // GitHub requires it; with `in_reply_to` every parameter but the body is ignored.
    if (body.in_reply_to === undefined && (body.commit_id === undefined || body.commit_id === null)) throw unprocessable('Invalid request.\n\n"commit_id" wasn\'t supplied.');
    return created(event, await commentShape(repo, await ctx.reviews.addComment(repo, viewer, pull, body)));
  });

  app.post(`${PULL}/comments/:comment_id/replies`, async (event) => {
    const { repo, pull, viewer } = await context(event, true);
    const body = await readJson(ctx, event);
    return created(event, await commentShape(repo, await ctx.reviews.addComment(repo, viewer, pull, { body: body.body, in_reply_to: numberParam(event, 'comment_id') })));
  });

  app.get(`${REPO}/pulls/comments`, async (event) => {
    const order = commentOrderOf(event, 'PullRequestReviewComment');
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.reviews.comments(repo, await currentUser(ctx, event), 'all', page, order);
    return page.respond(total, await shapes.comments(ctx.store, repo, items));
  });

  app.get(COMMENT, async (event) => {
    const repo = await repoOf(ctx, event);
    return await commentShape(repo, await ctx.reviews.comment(repo, await currentUser(ctx, event), numberParam(event, 'comment_id')));
  });

  app.patch(COMMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    return await commentShape(repo, await ctx.reviews.editComment(repo, user, numberParam(event, 'comment_id'), body));
  });

  app.delete(COMMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.reviews.deleteComment(repo, user, numberParam(event, 'comment_id'));
    return noContent();
  });

  app.get(`${PULL}/requested_reviewers`, async (event) => {
    const { pull } = await context(event);
    return await requested(await ctx.reviews.requested(pull));
  });

  for (const [method, add] of [
    ['post', true],
    ['delete', false],
  ] as const) {
    app[method](`${PULL}/requested_reviewers`, async (event) => {
      const { repo, pull, viewer } = await context(event, true);
      const body = await readJson(ctx, event);
      if (Array.isArray(body.team_reviewers) && body.team_reviewers.length > 0) throw validationFailed({ resource: 'PullRequest', field: 'team_reviewers', code: 'invalid', message: 'repohost has no teams' });
      await ctx.reviews.request(repo, viewer, pull, body.reviewers ?? [], add);
      const shape = await shapesOf(ctx).pull(ctx.store, repo, pull);
      return add ? created(event, shape) : shape;
    });
  }
}
