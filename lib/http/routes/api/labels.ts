import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { requireUser } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { idParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

/** Repository labels; labels on issues are under the issue routes. */
export function mountLabelRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/labels', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.labels.list(repo, page);
    return page.respond(total, items);
  });

  app.post('/api/v1/repos/:owner/:repo/labels', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.labels.create(repo, user, form);
  });

  app.patch('/api/v1/repos/:owner/:repo/labels/:label_id', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.labels.update(repo, user, idParam(event, 'label_id'), form);
  });

  app.delete('/api/v1/repos/:owner/:repo/labels/:label_id', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    await ctx.labels.remove(repo, user, idParam(event, 'label_id'));
    return new Response(null, { status: 204 });
  });
}
