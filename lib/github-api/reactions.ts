import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { currentUser } from '../http/auth.js';
import { idParam, queryString } from '../http/validate.js';
import { isReactionContent, type ReactionTarget } from '../services/reactions.js';
import type { ReactionSubject } from '../store/queries/reactions.js';
import { reactionShape } from '../github/reaction-shapes.js';
import { created, githubPage, noContent, readJson, validationFailed } from './http.js';
import { numberParam, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

/** Where each kind of object's reactions are, and how its path names it. */
const TARGETS: ReadonlyArray<{ path: string; subject: ReactionSubject; id: (event: H3Event) => number }> = [
  { path: `${REPO}/issues/:number/reactions`, subject: 'issue', id: (event) => numberParam(event) },
  { path: `${REPO}/issues/comments/:comment_id/reactions`, subject: 'comment', id: (event) => idParam(event, 'comment_id') },
  { path: `${REPO}/pulls/comments/:comment_id/reactions`, subject: 'review_comment', id: (event) => idParam(event, 'comment_id') },
  { path: `${REPO}/comments/:comment_id/reactions`, subject: 'commit_comment', id: (event) => idParam(event, 'comment_id') },
  { path: `${REPO}/releases/:release_id/reactions`, subject: 'release', id: (event) => idParam(event, 'release_id') },
];

/**
 * Reactions (octokit's `reactions.*`): to issues and pull requests, their comments, review comments and releases.
 * Listing (with GitHub's `content` filter), reacting (201, or 200 with the reaction already given) and taking one's
 * own reaction back (204).
 */
export function mountReactions(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);

  for (const { path, subject, id } of TARGETS) {
    const targetOf = (event: H3Event): ReactionTarget => ({ subject, id: id(event) });

    app.get(path, async (event) => {
      const repo = await repoOf(ctx, event);
      const page = githubPage(ctx, event);
      const { items, total } = await ctx.reactions.list(repo, await currentUser(ctx, event), targetOf(event), queryString(event, 'content'), page);
      const users = new Map((await shapes.usersNamed(ctx.store, [...new Set(items.map((row) => row.username))])).map((user) => [user.login.toLowerCase(), user]));
      return page.respond(total, items.map((row) => reactionShape(row, users.get(row.username.toLowerCase()) ?? null)));
    });

    app.post(path, async (event) => {
      const { repo, user } = await repoAndUser(ctx, event);
      const { content } = await readJson(ctx, event);
      const target = targetOf(event);
      if (content === undefined) throw validationFailed({ resource: 'Reaction', field: 'content', code: 'missing_field' });
      if (!isReactionContent(subject, content)) throw validationFailed({ resource: 'Reaction', field: 'content', code: 'invalid' });
      const { reaction, created: made } = await ctx.reactions.add(repo, user, target, content);
      const shaped = reactionShape(reaction, shapes.user(user));
      return made ? created(event, shaped) : shaped;
    });

    app.delete(`${path}/:reaction_id`, async (event) => {
      const { repo, user } = await repoAndUser(ctx, event);
      await ctx.reactions.remove(repo, user, targetOf(event), idParam(event, 'reaction_id'));
      return noContent();
    });
  }
}
