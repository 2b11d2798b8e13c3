import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import type { SshKeyRow } from '../../../services/ssh-keys.js';
import { currentUser, requireUser } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { idParam, pathParam, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

/** `read_only` as a form sends it (`true`/`false`) or JSON does (a boolean); anything else is left for the service to refuse. */
function flag(value: unknown): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/**
 * SSH keys in Gitea's shapes: the caller's own (`/api/v1/user/keys`), anyone's public keys, and a repository's deploy
 * keys (admins only). The same service as `/api/v3` and the pages.
 */
export function mountKeyRoutes(app: H3, ctx: AppContext): void {
  const userKey = (row: SshKeyRow) => ({
    id: row.id,
    key: row.key,
    url: `${ctx.baseUrl()}/api/v1/user/keys/${row.id}`,
    title: row.title,
    fingerprint: row.fingerprint,
    created_at: row.created_at,
    key_type: 'user',
    read_only: false,
  });

  app.get('/api/v1/user/keys', async (event) => {
    const user = await requireUser(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.sshKeys.list(user, page);
    return page.respond(total, items.map(userKey));
  });

  app.post('/api/v1/user/keys', async (event) => {
    const user = await requireUser(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const row = await ctx.sshKeys.add(user, { title: form.title, key: form.key });
    event.res.status = 201;
    return userKey(row);
  });

  app.get('/api/v1/user/keys/:id', async (event) => userKey(await ctx.sshKeys.get(await requireUser(ctx, event), idParam(event, 'id'))));

  app.delete('/api/v1/user/keys/:id', async (event) => {
    await ctx.sshKeys.remove(await requireUser(ctx, event), idParam(event, 'id'));
    return new Response(null, { status: 204 });
  });

  app.get('/api/v1/users/:username/keys', async (event) => {
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.sshKeys.publicKeysOf(pathParam(event, 'username'), page);
    return page.respond(total, items.map((row) => ({ id: row.id, key: row.key, fingerprint: row.fingerprint, created_at: row.created_at })));
  });

  const deployKey = (row: SshKeyRow, fullName: string) => ({
    id: row.id,
    key_id: row.id,
    key: row.key,
    url: `${ctx.baseUrl()}/api/v1/repos/${fullName}/keys/${row.id}`,
    title: row.title,
    fingerprint: row.fingerprint,
    created_at: row.created_at,
    read_only: row.read_only === 1,
  });

  app.get('/api/v1/repos/:owner/:repo/keys', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.sshKeys.listDeploy(repo, await currentUser(ctx, event), page);
    return page.respond(total, items.map((row) => deployKey(row, `${repo.owner_name}/${repo.name}`)));
  });

  app.post('/api/v1/repos/:owner/:repo/keys', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const row = await ctx.sshKeys.addDeploy(repo, user, { title: form.title, key: form.key, read_only: flag(form.read_only) });
    event.res.status = 201;
    return deployKey(row, `${repo.owner_name}/${repo.name}`);
  });

  app.get('/api/v1/repos/:owner/:repo/keys/:id', async (event) => {
    const repo = await repoFromPath(ctx, event);
    return deployKey(await ctx.sshKeys.getDeploy(repo, await currentUser(ctx, event), idParam(event, 'id')), `${repo.owner_name}/${repo.name}`);
  });

  app.delete('/api/v1/repos/:owner/:repo/keys/:id', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    await ctx.sshKeys.removeDeploy(repo, user, idParam(event, 'id'));
    return new Response(null, { status: 204 });
  });
}
