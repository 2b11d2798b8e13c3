import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError } from '../errors.js';
import { pathParam } from '../http/validate.js';
import type { EnvironmentRow } from '../store/queries/environments.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { nodeId } from '../github/api-ids.js';
import { githubTime } from '../github/time.js';
import { githubPage, noContent, readJson, unprocessable } from './http.js';
import { apiUrl, REPO, repoAndUser, repoOf } from './lookup.js';

const ENVIRONMENT = `${REPO}/environments/:environment_name`;

/**
 * Deployment environments (octokit's `repos.getAllEnvironments`, `getEnvironment`, `createOrUpdateEnvironment`,
 * `deleteAnEnvironment`): GitHub's environment objects, without protection rules (repohost has none; asking for one
 * is 422, never ignored).
 */
export function mountEnvironments(app: H3, ctx: AppContext): void {
  const shape = (repo: RepositoryRow, environment: EnvironmentRow) => ({
    id: environment.id,
    node_id: nodeId('Environment', environment.id),
    name: environment.name,
    url: apiUrl(ctx, repo, `/environments/${encodeURIComponent(environment.name)}`),
    html_url: `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/deployments/activity_log?environments_filter=${encodeURIComponent(environment.name)}`,
    created_at: githubTime(environment.created_at),
    updated_at: githubTime(environment.updated_at),
    protection_rules: [],
    deployment_branch_policy: null,
  });
  const nameOf = (event: H3Event) => pathParam(event, 'environment_name');

  app.get(`${REPO}/environments`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.environments.list(repo, page);
    return { total_count: total, environments: page.respond(total, items.map((environment) => shape(repo, environment))) };
  });

  app.get(ENVIRONMENT, async (event) => {
    const repo = await repoOf(ctx, event);
    return shape(repo, await ctx.environments.get(repo, nameOf(event)));
  });

  app.put(ENVIRONMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const environment = await ctx.environments.put(repo, user, nameOf(event), body).catch((error: unknown) => {
      throw isRepoHostError(error) && error.kind === 'invalid' ? unprocessable(error.message) : error;
    });
    return shape(repo, environment);
  });

  app.delete(ENVIRONMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.environments.remove(repo, user, nameOf(event));
    return noContent();
  });
}
