import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { idParam, pathParam } from '../http/validate.js';
import { CommitCommentShapes } from '../github/commit-comment-shapes.js';
import { created, githubPage, noCommitFor, noContent, readJson, validationFailed } from './http.js';
import { REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const COMMENT = `${REPO}/comments/:comment_id`;

/** Commit comments (octokit's `repos.*CommitComment*`): of the repository, of a commit, and one by its id. */
export function mountCommitComments(app: H3, ctx: AppContext): void {
  const shapes = new CommitCommentShapes(() => ctx.baseUrl(), shapesOf(ctx));

  app.get(`${REPO}/comments`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.commitComments.list(repo, undefined, page);
    return page.respond(total, await shapes.comments(ctx.store, repo, items));
  });

  app.get(`${REPO}/commits/:ref/comments`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.commitComments.list(repo, pathParam(event, 'ref'), page).catch(noCommitFor);
    return page.respond(total, await shapes.comments(ctx.store, repo, items));
  });

  app.post(`${REPO}/commits/:ref/comments`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.body === undefined) throw validationFailed({ resource: 'CommitComment', field: 'body', code: 'missing_field' });
    const comment = await ctx.commitComments.create(repo, user, pathParam(event, 'ref'), body).catch(noCommitFor);
    return created(event, (await shapes.comments(ctx.store, repo, [comment]))[0]);
  });

  app.get(COMMENT, async (event) => {
    const repo = await repoOf(ctx, event);
    return (await shapes.comments(ctx.store, repo, [await ctx.commitComments.get(repo, idParam(event, 'comment_id'))]))[0];
  });

  app.patch(COMMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.body === undefined) throw validationFailed({ resource: 'CommitComment', field: 'body', code: 'missing_field' });
    return (await shapes.comments(ctx.store, repo, [await ctx.commitComments.edit(repo, user, idParam(event, 'comment_id'), body.body)]))[0];
  });

  app.delete(COMMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.commitComments.remove(repo, user, idParam(event, 'comment_id'));
    return noContent();
  });
}
