import { getRequestHeader, HTTPResponse, type H3 } from 'h3';
import type { AppContext } from '../../context.js';
import { queryString } from '../../http/validate.js';
import { parsePullStatus } from '../../services/pulls.js';
import type { PullRow } from '../../store/queries/pulls.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { notFound } from '../../errors.js';
import { conflictAs, created, githubPage, noContent, readJson, validationFailed } from './http.js';
import { pullOf, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const PULL = `${REPO}/pulls/:number`;
const DIFF_TYPES = { diff: 'application/vnd.github.diff', patch: 'application/vnd.github.patch' } as const;

/** `owner:branch` (GitHub's cross-repository form) names a branch of this repository when the owner is its own. */
function branchOf(repo: RepositoryRow, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const colon = value.indexOf(':');
  return colon > 0 && value.slice(0, colon).toLowerCase() === repo.owner_name.toLowerCase() ? value.slice(colon + 1) : value;
}

/** Pull requests: list, open, read (JSON, diff or patch), edit, merge, and their commits and files. */
export function mountPulls(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);
  const pullShape = async (repo: RepositoryRow, pull: PullRow) => ({
    ...shapes.pull(ctx.store, repo, pull),
    mergeable: (await ctx.pulls.summary(repo, pull)).mergeable,
  });

  app.get(`${REPO}/pulls`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    // GitHub's `closed` holds merged pull requests too, as the service's does.
    const { items, total } = ctx.pulls.list(repo, parsePullStatus(queryString(event, 'state')), page);
    return page.respond(total, shapes.pulls(ctx.store, repo, items));
  });

  app.post(`${REPO}/pulls`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const missing = (['title', 'head', 'base'] as const).filter((field) => body[field] === undefined);
    if (missing.length > 0) throw validationFailed(...missing.map((field) => ({ resource: 'PullRequest', field, code: 'missing_field' as const })));
    const head = branchOf(repo, body.head);
    // GitHub's words, which tools match (create-pull-request, Weblate): one open pull request per head and base.
    const exists = () => validationFailed({ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner_name}:${String(head)}.` });
    const pull = await conflictAs(() => ctx.pulls.create(repo, user, { title: body.title, description: body.body ?? undefined, head, base: body.base }), exists);
    return created(event, await pullShape(repo, pull));
  });

  app.get(PULL, async (event) => {
    const repo = await repoOf(ctx, event);
    const pull = pullOf(ctx, repo, event);
    const accept = getRequestHeader(event, 'accept') ?? '';
    // `application/vnd.github.diff`, or `.v3.diff` as Octokit's mediaType.format sends it; the same for patch.
    const kind = /application\/vnd\.github(?:\.v3)?\.diff/.test(accept) ? 'diff' : /application\/vnd\.github(?:\.v3)?\.patch/.test(accept) ? 'patch' : undefined;
    if (!kind) return pullShape(repo, pull);
    const body = await ctx.pulls.diff(repo, pull.id, kind);
    return new HTTPResponse(body as unknown as BodyInit, { headers: { 'content-type': `${DIFF_TYPES[kind]}; charset=utf-8`, 'x-content-type-options': 'nosniff' } });
  });

  app.patch(PULL, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const pull = pullOf(ctx, repo, event);
    const updated = await ctx.pulls.update(repo, user, pull.id, { title: body.title ?? undefined, description: body.body ?? undefined, status: body.state ?? undefined, base: body.base ?? undefined });
    return pullShape(repo, updated);
  });

  app.get(`${PULL}/merge`, async (event) => {
    const repo = await repoOf(ctx, event);
    // 204 when merged, 404 when not: GitHub's answer to "is it merged?".
    if (pullOf(ctx, repo, event).status !== 'merged') throw notFound();
    return noContent();
  });

  app.put(`${PULL}/merge`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const pull = pullOf(ctx, repo, event);
    const method = body.merge_method ?? 'merge';
    if (method !== 'merge' && method !== 'squash' && method !== 'rebase') throw validationFailed({ resource: 'PullRequest', field: 'merge_method', code: 'invalid' });
    const { sha } = await ctx.pulls.merge(repo, user, pull.id, { method, title: body.commit_title ?? undefined, message: body.commit_message ?? undefined, headSha: body.sha ?? undefined });
    return { sha, merged: true, message: 'Pull Request successfully merged' };
  });

  app.get(`${PULL}/commits`, async (event) => {
    const repo = await repoOf(ctx, event);
    const pull = pullOf(ctx, repo, event);
    const page = githubPage(ctx, event);
    const commits = page.slice(await ctx.gitData.range(repo, pull.base_sha, pull.head_sha));
    return commits.map((commit) => shapes.commit(ctx.store, repo, commit));
  });

  app.get(`${PULL}/files`, async (event) => {
    const repo = await repoOf(ctx, event);
    const pull = pullOf(ctx, repo, event);
    const page = githubPage(ctx, event);
    return page.slice(await ctx.pulls.files(repo, pull.id)).map((file) => shapes.file(file));
  });
}
