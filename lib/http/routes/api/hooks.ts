import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { requireUser } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { idParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

/** Webhooks of a repository (admin): the hooks, their deliveries, redeliveries and test pings. */
export function mountHookRoutes(app: H3, ctx: AppContext): void {
  const base = '/api/v1/repos/:owner/:repo/hooks';

  app.get(base, async (event) => {
    // Credentials first, as for every admin route: anonymous callers are asked for them (401) rather than told 404.
    const user = await requireUser(ctx, event);
    // At most 20 hooks a repository, so one page holds them all unless `limit` says less; paged like every list.
    return pageOf(ctx, event).slice(await ctx.webhooks.list(await repoFromPath(ctx, event), user));
  });

  app.post(base, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const hook = await ctx.webhooks.create(repo, user, form);
    event.res.status = 201;
    return hook;
  });

  app.get(`${base}/:id`, async (event) => {
    const user = await requireUser(ctx, event);
    return await ctx.webhooks.get(await repoFromPath(ctx, event), user, idParam(event, 'id'));
  });

  app.patch(`${base}/:id`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.webhooks.update(repo, user, idParam(event, 'id'), form);
  });

  app.delete(`${base}/:id`, async (event) => {
    const user = await requireUser(ctx, event);
    await ctx.webhooks.remove(await repoFromPath(ctx, event), user, idParam(event, 'id'));
    return new Response(null, { status: 204 });
  });

  app.post(`${base}/:id/tests`, async (event) => {
    const user = await requireUser(ctx, event);
    await ctx.webhooks.ping(await repoFromPath(ctx, event), user, idParam(event, 'id'));
    return new Response(null, { status: 204 });
  });

  app.get(`${base}/:id/deliveries`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.webhooks.deliveries(repo, user, idParam(event, 'id'), page);
    return page.respond(total, items);
  });

  app.get(`${base}/:id/deliveries/:delivery_id`, async (event) => {
    const user = await requireUser(ctx, event);
    return await ctx.webhooks.delivery(await repoFromPath(ctx, event), user, idParam(event, 'id'), idParam(event, 'delivery_id'));
  });

  app.post(`${base}/:id/deliveries/:delivery_id/redeliver`, async (event) => {
    const user = await requireUser(ctx, event);
    const delivery = await ctx.webhooks.redeliver(await repoFromPath(ctx, event), user, idParam(event, 'id'), idParam(event, 'delivery_id'));
    event.res.status = 202;
    return delivery;
  });
}
