import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { requireUser } from '../../auth.js';
import { idParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

export function mountPullRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/pulls', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.pulls.list(repo).map((pull) => ctx.pulls.summary(pull));
  });

  app.post('/api/v1/repos/:owner/:repo/pulls', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const pull = await ctx.pulls.create(repo, user, { title: form.title, description: form.description ?? form.body, head: form.head, base: form.base });
    return ctx.pulls.summary(pull);
  });

  app.get('/api/v1/repos/:owner/:repo/pulls/:id', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.pulls.summary(ctx.pulls.get(repo, idParam(event, 'id')));
  });

  app.get('/api/v1/repos/:owner/:repo/pulls/:id/comments', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.pulls.comments(repo, idParam(event, 'id'));
  });

  app.post('/api/v1/repos/:owner/:repo/pulls/:id/comments', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.pulls.comment(repo, idParam(event, 'id'), user, form.text ?? form.body);
  });
}
