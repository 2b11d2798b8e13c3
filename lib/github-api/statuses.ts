import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { pathParam } from '../http/validate.js';
import type { CommitStatusRow } from '../store/queries/commit-statuses.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { nodeId } from '../github/api-ids.js';
import { githubTime } from '../github/time.js';
import { created, githubPage, noCommitFor, readJson, refuseTooLong } from './http.js';

/** The longest description of a commit status GitHub takes. */
const MAX_DESCRIPTION = 140;
import { apiUrl, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

/** Commit statuses: post one on a commit, list a ref's, and its combined state. */
export function mountStatuses(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);
  const api = (repo: RepositoryRow, path: string) => apiUrl(ctx, repo, path);
  const statusShape = async (repo: RepositoryRow, status: CommitStatusRow) => {
    const creator = await shapes.userNamed(ctx.store, status.creator);
    return {
    id: status.id,
    node_id: nodeId('StatusContext', status.id),
    url: api(repo, `/statuses/${status.sha}`),
    // GitHub's: the avatar of whoever posted the status (an app's, for an app's).
    avatar_url: creator?.avatar_url ?? null,
    state: status.state,
    description: status.description || null,
    target_url: status.target_url,
    context: status.context,
    created_at: githubTime(status.created_at),
    updated_at: githubTime(status.updated_at),
    creator,
    };
  };

  app.post(`${REPO}/statuses/:sha`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    // GitHub's bound (tools shorten descriptions to fit it) and its 422 for a commit it does not know.
    refuseTooLong('Status', 'description', body.description, MAX_DESCRIPTION);
    const status = await ctx.statuses.create(repo, user, pathParam(event, 'sha'), body).catch(noCommitFor);
    return created(event, await statusShape(repo, status));
  });

  const statusesOf = async (event: H3Event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.statuses.list(repo, pathParam(event, 'ref'), page);
    return page.respond(total, (await Promise.all(items.map(async (status) => await statusShape(repo, status)))));
  };
  app.get(`${REPO}/commits/:ref/statuses`, statusesOf);
  // The older path of the same list (PyGithub's `Commit.get_statuses` follows a commit's `statuses_url` there).
  app.get(`${REPO}/statuses/:ref`, statusesOf);

  app.get(`${REPO}/commits/:ref/status`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const combined = await ctx.statuses.combined(repo, pathParam(event, 'ref'));
    // The state is of every context; the statuses are paged (with GitHub's Link), as GitHub's.
    return {
      state: combined.state,
      sha: combined.sha,
      total_count: combined.total_count,
      statuses: await Promise.all(page.slice(combined.statuses).map(async (status) => await statusShape(repo, status))),
      repository: await shapes.repository(ctx.store, repo),
      commit_url: api(repo, `/commits/${combined.sha}`),
      url: api(repo, `/commits/${combined.sha}/status`),
    };
  });
}
