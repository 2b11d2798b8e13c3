import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { invalid, notFound } from '../../../errors.js';
import { currentUser } from '../../auth.js';
import { pathParam, queryString } from '../../validate.js';

export function mountTreeRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:repo_id/tree/files', async (event) => {
    const branch = queryString(event, 'branch');
    if (!branch) throw invalid('branch is required');
    const rawId = pathParam(event, 'repo_id');
    if (!/^\d{1,15}$/.test(rawId)) throw notFound('Not found');
    const repo = await ctx.repos.visibleById(await currentUser(ctx, event), Number(rawId));
    return { success: true, result: await ctx.repos.listFiles(repo, branch, queryString(event, 'path') ?? '') };
  });
}
