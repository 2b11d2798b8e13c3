import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { currentUser, requireUser, requireUserOrNotFound } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { idParam, pathParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

export function mountRepoRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo', async (event) => await ctx.repos.summary(await repoFromPath(ctx, event), await currentUser(ctx, event)));

  app.delete('/api/v1/repos/:owner/:repo', async (event) => {
    const user = await requireUser(ctx, event);
    await ctx.repos.remove(user, pathParam(event, 'owner'), pathParam(event, 'repo'));
    return new Response(null, { status: 204 });
  });

  app.patch('/api/v1/repos/:owner/:repo', async (event) => {
    const user = await requireUser(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return await ctx.repos.summary(await ctx.repos.update(user, pathParam(event, 'owner'), pathParam(event, 'repo'), form), user);
  });

  app.post('/api/v1/repos/:repo_id/star', async (event) => {
    const user = await requireUserOrNotFound(ctx, event);
    const repo = await ctx.repos.visibleById(user, idParam(event, 'repo_id'));
    return { success: true, result: await ctx.social.toggleStar(user, repo) };
  });

  app.post('/api/v1/repos/:repo_id/watch', async (event) => {
    const user = await requireUserOrNotFound(ctx, event);
    const repo = await ctx.repos.visibleById(user, idParam(event, 'repo_id'));
    return { success: true, result: await ctx.social.toggleWatch(user, repo) };
  });

  // Counts (spec endpoints 14-16) are used with a session; without one they answer `Not found`.
  app.get('/api/v1/:owner/:repo/branches/count', async (event) => {
    await requireUserOrNotFound(ctx, event);
    return { success: true, result: await ctx.repos.countBranches(await repoFromPath(ctx, event)) };
  });

  app.get('/api/v1/:owner/:repo/:branch/commits/count', async (event) => {
    await requireUserOrNotFound(ctx, event);
    const repo = await repoFromPath(ctx, event);
    return { success: true, result: await ctx.repos.countCommits(repo, pathParam(event, 'branch')) };
  });

  app.get('/api/v1/:owner/:repo/issues/count', async (event) => {
    await requireUserOrNotFound(ctx, event);
    return { success: true, result: await ctx.issues.count(await repoFromPath(ctx, event)) };
  });

  app.get('/api/v1/repos/:owner/:repo/branches', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.repos.branches(repo, page);
    return page.respond(total, items.map((branch) => ({ name: branch.name, commit: branch.commit_sha })));
  });

  app.get('/api/v1/repos/:owner/:repo/ci/runs', async (event) => {
    const repo = await ctx.repos.visibleByName(await currentUser(ctx, event), pathParam(event, 'owner'), pathParam(event, 'repo'));
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.ci.runs(repo, page);
    return page.respond(total, items);
  });
}
