import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../errors.js';
import { currentUser, requireUser } from '../../auth.js';
import { pathParam } from '../../validate.js';

export function mountUserRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/me', async (event) => ctx.users.summary(await requireUser(ctx, event)));

  app.get('/api/v1/users/:username', (event) => {
    const user = ctx.users.byName(pathParam(event, 'username'));
    if (!user) throw notFound('User not found');
    return ctx.users.summary(user);
  });

  app.get('/api/v1/users/:username/repos', async (event) => {
    const owner = ctx.users.byName(pathParam(event, 'username'));
    if (!owner) throw notFound('User not found');
    const viewer = await currentUser(ctx, event);
    return ctx.repos.listOfOwner(viewer, owner).map((repo) => ctx.repos.summary(repo, viewer));
  });
}
