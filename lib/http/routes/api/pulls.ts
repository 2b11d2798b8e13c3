import { getRequestHeader, HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../errors.js';
import { parsePullStatus } from '../../../services/pulls.js';
import { requireUser } from '../../auth.js';
import { pageOf } from '../../pagination.js';
import { idParam, pathParam, queryString, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

const PULL = '/api/v1/repos/:owner/:repo/pulls/:id';
const DIFF_TYPES = { diff: 'text/x-diff', patch: 'text/x-patch' } as const;

/** `:id`, `:id.diff` or `:id.patch` (or an `Accept: text/x-diff|text/x-patch` header): the id and what to answer. */
function pullTarget(event: H3Event): { id: number; kind: 'json' | 'diff' | 'patch' } {
  const match = /^(\d{1,15})(?:\.(diff|patch))?$/.exec(pathParam(event, 'id'));
  if (!match) throw notFound('Not found');
  const accept = getRequestHeader(event, 'accept') ?? '';
  const kind = (match[2] as 'diff' | 'patch' | undefined) ?? (accept.includes(DIFF_TYPES.diff) ? 'diff' : accept.includes(DIFF_TYPES.patch) ? 'patch' : 'json');
  return { id: Number(match[1]), kind };
}

export function mountPullRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/pulls', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.pulls.list(repo, parsePullStatus(queryString(event, 'status') ?? queryString(event, 'state')), page);
    return page.respond(total, await ctx.pulls.summaries(repo, items));
  });

  app.post('/api/v1/repos/:owner/:repo/pulls', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const pull = await ctx.pulls.create(repo, user, { title: form.title, description: form.description ?? form.body, head: form.head, base: form.base });
    return ctx.pulls.summary(repo, pull);
  });

  app.get(PULL, async (event) => {
    const repo = await repoFromPath(ctx, event);
    const { id, kind } = pullTarget(event);
    if (kind === 'json') return ctx.pulls.summary(repo, await ctx.pulls.get(repo, id));
    const body = await ctx.pulls.diff(repo, id, kind);
    return new HTTPResponse(body as unknown as BodyInit, { headers: { 'content-type': `${DIFF_TYPES[kind]}; charset=utf-8`, 'x-content-type-options': 'nosniff' } });
  });

  app.patch(PULL, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const pull = await ctx.pulls.update(repo, user, idParam(event, 'id'), { title: form.title, description: form.description ?? form.body, status: form.status ?? form.state, base: form.base });
    return ctx.pulls.summary(repo, pull);
  });

  app.post(`${PULL}/merge`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const { sha } = await ctx.pulls.merge(repo, user, idParam(event, 'id'), {
      method: form.method ?? form.merge_method,
      title: form.title,
      message: form.message,
      headSha: form.head_sha ?? form.sha,
      deleteBranch: form.delete_branch,
    });
    return { success: true, merged: true, sha };
  });

  app.get(`${PULL}/commits`, async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    return page.slice(await ctx.pulls.commits(repo, idParam(event, 'id')));
  });

  app.get(`${PULL}/files`, async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    return page.slice(await ctx.pulls.files(repo, idParam(event, 'id')));
  });

  app.get(`${PULL}/comments`, async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.pullComments.comments(repo, idParam(event, 'id'), page);
    return page.respond(total, items);
  });

  app.post(`${PULL}/comments`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.pullComments.comment(repo, idParam(event, 'id'), user, form.text ?? form.body);
  });

  app.patch(`${PULL}/comments/:comment_id`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.pullComments.editComment(repo, idParam(event, 'id'), idParam(event, 'comment_id'), user, form.text ?? form.body);
  });

  app.delete(`${PULL}/comments/:comment_id`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    await ctx.pullComments.deleteComment(repo, idParam(event, 'id'), idParam(event, 'comment_id'), user);
    return new Response(null, { status: 204 });
  });
}
