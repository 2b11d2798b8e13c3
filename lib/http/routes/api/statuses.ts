import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { requireUser } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { pathParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

/** Commit statuses (GitHub's and Gitea's shape): post on a commit id, read by branch, tag or commit id. */
export function mountStatusRoutes(app: H3, ctx: AppContext): void {
  app.post('/api/v1/repos/:owner/:repo/statuses/:sha', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.statuses.create(repo, user, pathParam(event, 'sha').toLowerCase(), form);
  });

  app.get('/api/v1/repos/:owner/:repo/commits/:ref/statuses', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.statuses.list(repo, pathParam(event, 'ref'), page);
    return page.respond(total, items);
  });

  app.get('/api/v1/repos/:owner/:repo/commits/:ref/status', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.statuses.combined(repo, pathParam(event, 'ref'));
  });
}
