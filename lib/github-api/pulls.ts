import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { queryString } from '../http/validate.js';
import { parsePullStatus } from '../services/pulls.js';
import type { PullListFilter, PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { notFound } from '../errors.js';
import { accepted, conflictAs, created, diffResponse, githubPage, noContent, readJson, remembered, requestedDiff, unprocessable, validationFailed } from './http.js';
import { pullOf, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const PULL = `${REPO}/pulls/:number`;

/** `owner:branch` (GitHub's cross-repository form) names a branch of this repository when the owner is its own. */
function branchOf(repo: RepositoryRow, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const colon = value.indexOf(':');
  return colon > 0 && value.slice(0, colon).toLowerCase() === repo.owner_name.toLowerCase() ? value.slice(colon + 1) : value;
}

/** Pull requests: list, open, read (JSON, diff or patch), edit, merge, and their commits and files. */
export function mountPulls(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);
  const pullShape = async (repo: RepositoryRow, pull: PullRow) => {
    const { mergeable } = await ctx.pulls.summary(repo, pull);
    // GitHub's states: `dirty` (conflicts), `blocked` (the base's required checks or reviews not met), else `clean`.
    const blocked = mergeable === true && ((await ctx.mergeGates.unmetChecks(repo, pull.base, pull.head_sha)).length > 0 || (await ctx.mergeGates.unmetReviews(repo, pull.base, pull.id)) !== undefined);
    const state = mergeable === false ? 'dirty' : blocked ? 'blocked' : mergeable === true ? 'clean' : 'unknown';
    // A single pull request carries what it changes, counted (GitHub's lists leave the counts out).
    // An open one's `merge_commit_sha` is GitHub's test merge of its branches (a single pull request only: lists leave
    // the merges unmade).
    const mergeCommit = mergeable === true ? await ctx.pulls.testMerge(repo, pull) : pull.status === 'open' ? null : pull.merge_commit_sha;
    return { ...await shapes.pull(ctx.store, repo, pull, undefined, await ctx.pulls.stats(repo, pull)), mergeable, mergeable_state: state, merge_commit_sha: mergeCommit };
  };

  app.get(`${REPO}/pulls`, async (event) => {
    const repo = await repoOf(ctx, event);
    return await remembered(ctx, event, async () => {
      const page = githubPage(ctx, event);
      // GitHub's `closed` holds merged pull requests too, as the service's does.
      const { items, total } = await ctx.pulls.list(repo, parsePullStatus(queryString(event, 'state')), page, pullListFilter(ctx, repo, event));
      return page.respond(total, await shapes.pulls(ctx.store, repo, items));
    });
  });

  app.post(`${REPO}/pulls`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const missing = (['title', 'head', 'base'] as const).filter((field) => body[field] === undefined);
    if (missing.length > 0) throw validationFailed(...missing.map((field) => ({ resource: 'PullRequest', field, code: 'missing_field' as const })));
    // Documented fields repohost has no counterpart for are refused, never ignored: a draft would otherwise be opened
    // ready for review, and an issue would stay an issue.
    if (body.draft !== undefined && body.draft !== false) throw unprocessable('repohost does not support draft pull requests');
    if (body.issue !== undefined) throw unprocessable('repohost does not turn an issue into a pull request: give a title instead');
    const head = branchOf(repo, body.head);
    if (body.head_repo !== undefined && body.head_repo !== repo.name && body.head_repo !== `${repo.owner_name}/${repo.name}`) throw unprocessable('repohost has no forks: head_repo must be this repository');
    // GitHub refuses a pull request that would bring nothing, in words tools match (create-pull-request, release bots).
    const tips = await ctx.git.refsOf(repo.owner_name, repo.name);
    const headTip = typeof head === 'string' ? tips.get(`refs/heads/${head}`) : undefined;
    const baseTip = typeof body.base === 'string' ? tips.get(`refs/heads/${body.base}`) : undefined;
    if (headTip && baseTip && head !== body.base && (await ctx.git.countCommitsBetween(repo.owner_name, repo.name, baseTip, headTip)) === 0) {
      throw validationFailed({ resource: 'PullRequest', code: 'custom', message: `No commits between ${String(body.base)} and ${head}` });
    }
    // GitHub's words, which tools match (create-pull-request, Weblate): one open pull request per head and base.
    const exists = () => validationFailed({ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${repo.owner_name}:${String(head)}.` });
    const pull = await conflictAs(() => ctx.pulls.create(repo, user, { title: body.title, description: body.body ?? undefined, head, base: body.base }), exists);
    return created(event, await pullShape(repo, pull));
  });

  app.get(PULL, async (event) => {
    const repo = await repoOf(ctx, event);
    const pull = await pullOf(ctx, repo, event);
    const kind = requestedDiff(event);
    if (!kind) return pullShape(repo, pull);
    return diffResponse(kind, await ctx.pulls.diff(repo, pull.id, kind));
  });

  app.patch(PULL, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const pull = await pullOf(ctx, repo, event);
    const updated = await ctx.pulls.update(repo, user, pull.id, { title: body.title ?? undefined, description: body.body ?? undefined, status: body.state ?? undefined, base: body.base ?? undefined });
    return pullShape(repo, updated);
  });

  app.get(`${PULL}/merge`, async (event) => {
    const repo = await repoOf(ctx, event);
    // 204 when merged, 404 when not: GitHub's answer to "is it merged?".
    if ((await pullOf(ctx, repo, event)).status !== 'merged') throw notFound();
    return noContent();
  });

  app.put(`${PULL}/merge`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const pull = await pullOf(ctx, repo, event);
    const method = body.merge_method ?? 'merge';
    if (method !== 'merge' && method !== 'squash' && method !== 'rebase') throw validationFailed({ resource: 'PullRequest', field: 'merge_method', code: 'invalid' });
    const { sha } = await ctx.pulls.merge(repo, user, pull.id, { method, title: body.commit_title ?? undefined, message: body.commit_message ?? undefined, headSha: body.sha ?? undefined });
    return { sha, merged: true, message: 'Pull Request successfully merged' };
  });

  // The base merged into the head branch (GitHub does it later and answers 202; repohost has done it by then).
  app.put(`${PULL}/update-branch`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const pull = await pullOf(ctx, repo, event);
    await ctx.branchMerges.updatePullBranch(repo, user, pull, body.expected_head_sha);
    return accepted(event, { message: 'Updating pull request branch.', url: `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/pulls/${pull.number}` });
  });

  app.get(`${PULL}/commits`, async (event) => {
    const repo = await repoOf(ctx, event);
    const pull = await pullOf(ctx, repo, event);
    const page = githubPage(ctx, event);
    const commits = page.slice(await ctx.gitData.range(repo, pull.base_sha, pull.head_sha));
    return await shapes.code.commits(ctx.store, repo, commits);
  });

  app.get(`${PULL}/files`, async (event) => {
    const repo = await repoOf(ctx, event);
    const pull = await pullOf(ctx, repo, event);
    const page = githubPage(ctx, event);
    return page.slice(await ctx.pulls.files(repo, pull.id)).map((file) => shapes.code.file(repo, pull.head_sha, file));
  });
}

const PULL_SORTS = ['created', 'updated', 'popularity', 'long-running'] as const;
/** How long GitHub's `long-running` pull requests have been open, and how recently they were active: a month. */
const LONG_RUNNING_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * GitHub's `sort` (created, updated, popularity: by comments, long-running: open for over a month and active within
 * it, by creation) and `direction` (desc by default for created, asc for the others, as GitHub's).
 */
function pullOrder(ctx: AppContext, event: H3Event): Pick<PullListFilter, 'sort' | 'direction' | 'activeSince'> {
  const sort = (queryString(event, 'sort') || 'created') as (typeof PULL_SORTS)[number];
  if (!PULL_SORTS.includes(sort)) throw validationFailed({ resource: 'PullRequest', field: 'sort', code: 'invalid' });
  const direction = queryString(event, 'direction') || (sort === 'created' ? 'desc' : 'asc');
  if (direction !== 'asc' && direction !== 'desc') throw validationFailed({ resource: 'PullRequest', field: 'direction', code: 'invalid' });
  return { sort, direction, ...(sort === 'long-running' ? { activeSince: new Date(ctx.options.now().getTime() - LONG_RUNNING_MS).toISOString() } : {}) };
}

/**
 * GitHub's `head` (`user:ref`, pull requests of that user's branch: here only the repository's owner has branches in
 * it) and `base` filters of the pull request list. A head of another user matches nothing.
 */
function pullListFilter(ctx: AppContext, repo: RepositoryRow, event: H3Event): PullListFilter {
  const filter: PullListFilter = { ...pullOrder(ctx, event) };
  const head = queryString(event, 'head');
  if (head) {
    const colon = head.indexOf(':');
    const user = colon >= 0 ? head.slice(0, colon) : repo.owner_name;
    // A branch name never has a NUL: asking for one matches no pull request.
    filter.head = user.toLowerCase() === repo.owner_name.toLowerCase() ? head.slice(colon + 1) : '\0';
  }
  const base = queryString(event, 'base');
  if (base) filter.base = base;
  return filter;
}
