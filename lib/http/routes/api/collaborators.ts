import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { currentUser, requireUser } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { pathParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

/** Who besides the owner may read, write or administer a repository. */
export function mountCollaboratorRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/collaborators', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.collaborators.list(repo, await currentUser(ctx, event), page);
    return page.respond(total, items);
  });

  app.put('/api/v1/repos/:owner/:repo/collaborators/:username', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.collaborators.set(repo, user, pathParam(event, 'username'), form.permission);
  });

  app.delete('/api/v1/repos/:owner/:repo/collaborators/:username', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    await ctx.collaborators.remove(repo, user, pathParam(event, 'username'));
    return new Response(null, { status: 204 });
  });
}
