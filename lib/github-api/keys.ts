import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { currentUser, requireUser } from '../http/auth.js';
import { idParam, pathParam } from '../http/validate.js';
import type { SshKeyRow } from '../services/ssh-keys.js';
import { githubTime } from '../github/time.js';
import { created, githubPage, noContent, readJson } from './http.js';
import { apiUrl, REPO, repoOf, V3 } from './lookup.js';

/** GitHub's `key` object: one of the caller's own SSH keys. */
function userKey(ctx: AppContext, row: SshKeyRow) {
  return { id: row.id, key: row.key, url: `${ctx.baseUrl()}${V3}/user/keys/${row.id}`, title: row.title, created_at: githubTime(row.created_at), verified: true, read_only: false };
}

/**
 * SSH keys: the caller's own (`/user/keys`), anyone's public keys (`/users/:username/keys`, as GitHub shows them to
 * everyone), and a repository's deploy keys (`/repos/:owner/:repo/keys`, admins only). Keys are checked and refused
 * with GitHub's 422 when malformed, weak, or already in use by any account or repository.
 */
export function mountKeys(app: H3, ctx: AppContext): void {
  app.get(`${V3}/user/keys`, async (event) => {
    const user = await requireUser(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.sshKeys.list(user, page);
    return page.respond(total, items.map((row) => userKey(ctx, row)));
  });

  app.post(`${V3}/user/keys`, async (event) => {
    const user = await requireUser(ctx, event);
    const body = await readJson(ctx, event);
    return created(event, userKey(ctx, await ctx.sshKeys.add(user, { title: body.title, key: body.key })));
  });

  app.get(`${V3}/user/keys/:id`, async (event) => userKey(ctx, await ctx.sshKeys.get(await requireUser(ctx, event), idParam(event, 'id'))));

  app.delete(`${V3}/user/keys/:id`, async (event) => {
    await ctx.sshKeys.remove(await requireUser(ctx, event), idParam(event, 'id'));
    return noContent();
  });

  app.get(`${V3}/users/:username/keys`, async (event) => {
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.sshKeys.publicKeysOf(pathParam(event, 'username'), page);
    return page.respond(total, items.map((row) => ({ id: row.id, key: row.key, created_at: githubTime(row.created_at) })));
  });

  const deployKey = (repo: Parameters<typeof apiUrl>[1], row: SshKeyRow) => ({
    id: row.id,
    key: row.key,
    url: apiUrl(ctx, repo, `/keys/${row.id}`),
    title: row.title,
    verified: true,
    created_at: githubTime(row.created_at),
    read_only: row.read_only === 1,
    added_by: null,
    last_used: null,
    enabled: true,
  });

  app.get(`${REPO}/keys`, async (event) => {
    const viewer = await currentUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.sshKeys.listDeploy(repo, viewer, page);
    return page.respond(total, items.map((row) => deployKey(repo, row)));
  });

  app.post(`${REPO}/keys`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const body = await readJson(ctx, event);
    return created(event, deployKey(repo, await ctx.sshKeys.addDeploy(repo, viewer, { title: body.title, key: body.key, read_only: body.read_only })));
  });

  app.get(`${REPO}/keys/:id`, async (event) => {
    const repo = await repoOf(ctx, event);
    return deployKey(repo, await ctx.sshKeys.getDeploy(repo, await currentUser(ctx, event), idParam(event, 'id')));
  });

  app.delete(`${REPO}/keys/:id`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    await ctx.sshKeys.removeDeploy(repo, viewer, idParam(event, 'id'));
    return noContent();
  });
}
