import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../errors.js';
import { currentUser, requireUser } from '../../auth.js';
import { tokenSummary } from '../../../services/credentials.js';
import { pageOf } from '../../pagination.js';
import { pathParam } from '../../validate.js';

export function mountUserRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/me', async (event) => ctx.users.summary(await requireUser(ctx, event)));

  app.get('/api/v1/users/:username', async (event) => {
    const user = await ctx.users.byName(pathParam(event, 'username'));
    if (!user) throw notFound('User not found');
    return ctx.users.summary(user);
  });

  // A user's own API tokens (Gitea's path): names and last eight characters, never the secrets.
  app.get('/api/v1/users/:username/tokens', async (event) => {
    const user = await requireUser(ctx, event);
    if (user.username.toLowerCase() !== pathParam(event, 'username').toLowerCase()) throw notFound('Not found');
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.credentials.apiTokens(user.id, page);
    return page.respond(total, items.map(tokenSummary));
  });

  app.get('/api/v1/users/:username/repos', async (event) => {
    const owner = await ctx.users.byName(pathParam(event, 'username'));
    if (!owner) throw notFound('User not found');
    const viewer = await currentUser(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.repos.listOfOwner(viewer, owner, page);
    return page.respond(total, (await Promise.all(items.map(async (repo) => await ctx.repos.summary(repo, viewer)))));
  });
}
