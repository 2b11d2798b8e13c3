import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { requireUser } from '../../auth.js';
import { idParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

export function mountIssueRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/issues', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.issues.list(repo).map((issue) => ctx.issues.summary(issue));
  });

  app.post('/api/v1/repos/:owner/:repo/issues', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.issues.summary(await ctx.issues.create(repo, user, { title: form.title, body: form.body }));
  });

  app.get('/api/v1/repos/:owner/:repo/issues/:id', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.issues.summary(ctx.issues.get(repo, idParam(event, 'id')));
  });
}
