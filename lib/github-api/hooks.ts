import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { idParam } from '../http/validate.js';
import type { Delivery, Hook, HookInput } from '../webhooks/service.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { FormFields } from '../http/validate.js';
import { githubTime } from '../github/time.js';
import { NOTHING_PUSHED, type EventFields } from '../events/recorder.js';
import { ZERO_ID } from '../git/refs.js';
import type { UserRow } from '../store/queries/users.js';
import { created, githubPage, noContent, readJson, refuseUnsupportedParams, validationFailed } from './http.js';
import { apiUrl, REPO, repoAndUser } from './lookup.js';

const HOOK = `${REPO}/hooks/:hook_id`;

/** GitHub's request (`config` object, `events`, `active`) as the webhook service's input. */
function hookInput(body: FormFields): HookInput {
  const config = body.config;
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))) throw validationFailed({ resource: 'Hook', field: 'config', code: 'invalid' });
  const fields = (config ?? {}) as Record<string, unknown>;
  // repohost always verifies certificates: a hook asking not to is refused rather than silently made stricter.
  if (fields.insecure_ssl !== undefined && String(fields.insecure_ssl) !== '0') {
    throw validationFailed({ resource: 'Hook', field: 'config.insecure_ssl', code: 'custom', message: 'repohost always verifies TLS certificates; insecure_ssl must be 0' });
  }
  return { url: fields.url, content_type: fields.content_type, secret: fields.secret, events: body.events, active: body.active };
}

/**
 * GitHub's "latest push" for a hook test, as a push event's fields: the default branch's last commit, pushed onto its
 * first parent (repohost keeps no push payloads); undefined for an empty repository.
 */
async function latestPush(ctx: AppContext, repo: RepositoryRow, pusher: UserRow): Promise<EventFields<'push'> | undefined> {
  const head = await ctx.git.resolveCommit(repo.owner_name, repo.name, repo.default_branch);
  if (!head) return undefined;
  const commit = await ctx.git.readCommit(repo.owner_name, repo.name, head);
  const change = { ref: `refs/heads/${repo.default_branch}`, before: commit?.parents[0] ?? ZERO_ID, after: head };
  const [pushed] = await ctx.git.pushedRefs(repo.owner_name, repo.name, [change]);
  return ctx.recorder.pushFields(repo, pusher, change, pushed ?? NOTHING_PUSHED);
}

/** Repository webhooks with GitHub's `config` object, their deliveries, redeliveries and pings. */
export function mountHooks(app: H3, ctx: AppContext): void {
  const api = (repo: RepositoryRow, path: string) => apiUrl(ctx, repo, path);
  const hookShape = (repo: RepositoryRow, hook: Hook) => {
    const path = `/hooks/${hook.id}`;
    return {
      type: hook.type,
      id: hook.id,
      name: hook.name,
      active: hook.active,
      events: hook.events,
      // GitHub masks a secret it holds; it never sends one back.
      config: { ...hook.config, ...(hook.has_secret ? { secret: '********' } : {}) },
      created_at: githubTime(hook.created_at),
      updated_at: githubTime(hook.updated_at),
      url: api(repo, path),
      test_url: api(repo, `${path}/tests`),
      ping_url: api(repo, `${path}/pings`),
      deliveries_url: api(repo, `${path}/deliveries`),
      last_response: hook.last_response,
    };
  };
  const deliveryShape = (repo: RepositoryRow, delivery: Delivery) => ({
    id: delivery.id,
    guid: delivery.guid,
    delivered_at: githubTime(delivery.delivered_at ?? delivery.created_at),
    redelivery: delivery.redelivery,
    duration: (delivery.duration ?? 0) / 1000,
    status: delivery.status,
    status_code: delivery.status_code ?? 0,
    event: delivery.event,
    action: delivery.action,
    installation_id: null,
    repository_id: repo.id,
  });
  /** One delivery whole: with its request and response, and `url`, where it was sent (GitHub's "URL target"). */
  const fullDeliveryShape = (repo: RepositoryRow, hook: Hook, delivery: Delivery) => ({
    ...deliveryShape(repo, delivery),
    url: hook.config.url,
    request: delivery.request,
    response: delivery.response,
  });
  const hookId = (event: H3Event) => idParam(event, 'hook_id');

  app.get(`${REPO}/hooks`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    return githubPage(ctx, event).slice((await ctx.webhooks.list(repo, user)).map((hook) => hookShape(repo, hook)));
  });

  app.post(`${REPO}/hooks`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.name !== undefined && body.name !== 'web') throw validationFailed({ resource: 'Hook', field: 'name', code: 'invalid', message: "name must be 'web'" });
    return created(event, hookShape(repo, await ctx.webhooks.create(repo, user, hookInput(body))));
  });

  app.get(HOOK, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    return hookShape(repo, await ctx.webhooks.get(repo, user, hookId(event)));
  });

  app.patch(HOOK, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const input = hookInput(body);
    // GitHub's add_events / remove_events change the list relative to what it is.
    if (body.add_events !== undefined || body.remove_events !== undefined) {
      const current = new Set((await ctx.webhooks.get(repo, user, hookId(event))).events);
      for (const name of Array.isArray(body.add_events) ? body.add_events : []) current.add(String(name));
      for (const name of Array.isArray(body.remove_events) ? body.remove_events : []) current.delete(String(name));
      input.events = [...current];
    }
    return hookShape(repo, await ctx.webhooks.update(repo, user, hookId(event), input));
  });

  app.delete(HOOK, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.webhooks.remove(repo, user, hookId(event));
    return noContent();
  });

  app.post(`${HOOK}/pings`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.webhooks.ping(repo, user, hookId(event));
    return noContent();
  });

  app.post(`${HOOK}/tests`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    // The hook and the caller's admin access are checked before git is read.
    await ctx.webhooks.get(repo, user, hookId(event));
    await ctx.webhooks.test(repo, user, hookId(event), await latestPush(ctx, repo, user!));
    return noContent();
  });

  app.get(`${HOOK}/deliveries`, async (event) => {
    // Paged by `page` and the `Link` header it sends, not by GitHub's `cursor`, which is refused rather than ignored.
    refuseUnsupportedParams(event, 'the deliveries of a hook', { cursor: [] });
    const { repo, user } = await repoAndUser(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.webhooks.deliveries(repo, user, hookId(event), page);
    return page.respond(total, items.map((delivery) => deliveryShape(repo, delivery)));
  });

  app.get(`${HOOK}/deliveries/:delivery_id`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const hook = await ctx.webhooks.get(repo, user, hookId(event));
    return fullDeliveryShape(repo, hook, await ctx.webhooks.delivery(repo, user, hook.id, idParam(event, 'delivery_id')));
  });

  app.post(`${HOOK}/deliveries/:delivery_id/attempts`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.webhooks.redeliver(repo, user, hookId(event), idParam(event, 'delivery_id'));
    event.res.status = 202;
    return {};
  });
}
