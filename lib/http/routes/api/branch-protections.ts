import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { requireUser } from '../../auth.js';
import { pathParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

/** Protected branches (admin): a rule per branch name or glob; `:branch` is URL-encoded (`release%2F*`). */
export function mountBranchProtectionRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/branch_protections', async (event) => {
    const user = await requireUser(ctx, event);
    return await ctx.protection.list(await repoFromPath(ctx, event), user);
  });

  app.put('/api/v1/repos/:owner/:repo/branch_protections/:branch', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.protection.set(repo, user, pathParam(event, 'branch'), form);
  });

  app.delete('/api/v1/repos/:owner/:repo/branch_protections/:branch', async (event) => {
    const user = await requireUser(ctx, event);
    await ctx.protection.remove(await repoFromPath(ctx, event), user, pathParam(event, 'branch'));
    return new Response(null, { status: 204 });
  });
}
