import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { NoSuchCommit } from '../errors.js';
import { idParam, queryString } from '../http/validate.js';
import type { DeploymentFilter } from '../store/queries/deployments.js';
import { DeploymentShapes } from '../github/deployment-shapes.js';
import { accepted, created, GitHubApiError, githubPage, noContent, readJson, validationFailed } from './http.js';
import { REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const DEPLOYMENT = `${REPO}/deployments/:deployment_id`;

/**
 * Deployments and their statuses (octokit's `repos.*Deployment*`), in GitHub's shapes and words: creating one merges
 * the default branch into a branch behind it first (202, none made) and needs the commit's statuses successful (409
 * naming them), unless `auto_merge: false` and `required_contexts: []` say otherwise, as on GitHub.
 */
export function mountDeployments(app: H3, ctx: AppContext): void {
  const shapes = new DeploymentShapes(() => ctx.baseUrl(), shapesOf(ctx));

  app.get(`${REPO}/deployments`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const filter: DeploymentFilter = {};
    for (const name of ['sha', 'ref', 'task', 'environment'] as const) {
      const value = queryString(event, name);
      // GitHub's `environment=null` (octokit sends it so) lists every environment.
      if (value !== undefined && value !== '' && !(name === 'environment' && value === 'null')) filter[name] = value;
    }
    const { items, total } = await ctx.deployments.list(repo, filter, page);
    return page.respond(total, await shapes.deployments(ctx.store, repo, items));
  });

  app.post(`${REPO}/deployments`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.ref === undefined) throw validationFailed({ resource: 'Deployment', field: 'ref', code: 'missing_field' });
    const outcome = await ctx.deployments.create(repo, user, body).catch((error: unknown) => {
      throw error instanceof NoSuchCommit ? new GitHubApiError(422, `No ref found for: ${String(body.ref)}`) : error;
    });
    if ('autoMerged' in outcome) return accepted(event, { message: `Auto-merged ${outcome.autoMerged} into ${outcome.into} on deployment.` });
    if ('mergeConflict' in outcome) throw new GitHubApiError(409, `Conflict merging ${outcome.mergeConflict} into ${outcome.into}.`);
    if ('failedContexts' in outcome) {
      throw new GitHubApiError(409, `Conflict: Commit status checks failed for ${String(body.ref)}.`, [{ contexts: outcome.failedContexts, resource: 'Deployment', field: 'required_contexts', code: 'invalid' }]);
    }
    return created(event, (await shapes.deployments(ctx.store, repo, [outcome.created]))[0]);
  });

  app.get(DEPLOYMENT, async (event) => {
    const repo = await repoOf(ctx, event);
    return (await shapes.deployments(ctx.store, repo, [await ctx.deployments.get(repo, idParam(event, 'deployment_id'))]))[0];
  });

  app.delete(DEPLOYMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    if ((await ctx.deployments.remove(repo, user, idParam(event, 'deployment_id'))) === 'active') {
      throw new GitHubApiError(422, 'We cannot delete an active deployment unless it is the only deployment in a given environment.');
    }
    return noContent();
  });

  app.get(`${DEPLOYMENT}/statuses`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.deployments.statuses(repo, idParam(event, 'deployment_id'), page);
    return page.respond(total, await shapes.statuses(ctx.store, repo, items));
  });

  app.post(`${DEPLOYMENT}/statuses`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.state === undefined) throw validationFailed({ resource: 'DeploymentStatus', field: 'state', code: 'missing_field' });
    const status = await ctx.deployments.createStatus(repo, user, idParam(event, 'deployment_id'), body);
    return created(event, (await shapes.statuses(ctx.store, repo, [status]))[0]);
  });

  app.get(`${DEPLOYMENT}/statuses/:status_id`, async (event) => {
    const repo = await repoOf(ctx, event);
    const status = await ctx.deployments.status(repo, idParam(event, 'deployment_id'), idParam(event, 'status_id'));
    return (await shapes.statuses(ctx.store, repo, [status]))[0];
  });
}
