import type { H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { currentUser, requireUser } from '../http/auth.js';
import { pathParam } from '../http/validate.js';
import { permissionFlags } from '../services/permissions.js';
import type { Conversation } from '../services/issues.js';
import type { PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import type { GitHubShapes } from '../github/shapes.js';
import type { GitHubRepository } from '../github/types.js';

/** The route prefix of every path of the GitHub-compatible API. */
export const V3 = '/api/v3';
/** The repository part of most paths. */
export const REPO = `${V3}/repos/:owner/:repo`;

/** The one builder of GitHub's objects (shared with webhook payloads). */
export const shapesOf = (ctx: AppContext): GitHubShapes => ctx.recorder.github;

/** The URL of `path` under the repository in this API (GitHub's `url` fields). */
export function apiUrl(ctx: AppContext, repo: RepositoryRow, path: string): string {
  return `${ctx.baseUrl()}${V3}/repos/${repo.owner_name}/${repo.name}${path}`;
}

/** The repository of the path if the caller may see it; 404 otherwise (private repositories never leak). */
export async function repoOf(ctx: AppContext, event: H3Event): Promise<RepositoryRow> {
  return await ctx.repos.visibleByName(await currentUser(ctx, event), pathParam(event, 'owner'), pathParam(event, 'repo'));
}

/** The repository of the path and the signed-in caller (401 without credentials). */
export async function repoAndUser(ctx: AppContext, event: H3Event): Promise<{ repo: RepositoryRow; user: UserRow }> {
  const user = await requireUser(ctx, event);
  return { repo: await repoOf(ctx, event), user };
}

/** The repository as GitHub shows it to this caller, `permissions` included. */
export async function repositoryFor(ctx: AppContext, repo: RepositoryRow, viewer: UserRow | undefined): Promise<GitHubRepository> {
  return await shapesOf(ctx).repository(ctx.store, repo, permissionFlags(await ctx.repos.access(viewer, repo)));
}

/** Several repositories (a list's) as `repositoryFor` shows each, in a fixed number of statements. */
export async function repositoriesFor(ctx: AppContext, repos: readonly RepositoryRow[], viewer: UserRow | undefined): Promise<GitHubRepository[]> {
  const levels = await ctx.repos.accessToEach(viewer, repos);
  return await shapesOf(ctx).repositories(ctx.store, repos, (repo) => permissionFlags(levels.get(repo.id)!));
}

/** A per-repository number (issue or pull request) from the path; anything else names nothing. */
export function numberParam(event: H3Event, name = 'number'): number {
  const raw = pathParam(event, name);
  if (!/^\d{1,9}$/.test(raw)) throw notFound();
  return Number(raw);
}

/** What an issue number names: issues and pull requests share one numbering, as on GitHub. */
export async function conversationOf(ctx: AppContext, repo: RepositoryRow, number: number): Promise<Conversation> {
  const issue = await ctx.issues.byNumber(repo, number);
  if (issue) return { kind: 'issue', issue };
  const pull = await ctx.pulls.byNumber(repo, number);
  if (pull) return { kind: 'pull', pull };
  throw notFound();
}

/** The pull request numbered in the path (an issue's number is not one: 404, as on GitHub). */
export async function pullOf(ctx: AppContext, repo: RepositoryRow, event: H3Event): Promise<PullRow> {
  const pull = await ctx.pulls.byNumber(repo, numberParam(event));
  if (!pull) throw notFound();
  return pull;
}
