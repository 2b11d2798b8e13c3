import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError } from '../errors.js';
import { bearerJwt, currentUser } from '../http/auth.js';
import { pathParam } from '../http/validate.js';
import { integrationAllows } from '../services/permissions.js';
import type { AppRow } from '../store/queries/apps.js';
import { AppShapes } from '../github/app-shapes.js';
import { created, GitHubApiError, githubPage, noContent, readJson } from './http.js';
import { REPO, repositoriesFor, shapesOf, V3 } from './lookup.js';

/**
 * The permissions that govern a path under `/repos/:owner/:repo` (GitHub's, per endpoint family): any of the first list
 * lets an app read there, any of the second (at `write`) lets it change things. First match wins.
 */
const PERMISSIONS_OF_PATH: ReadonlyArray<[RegExp, read: string[], write: string[]]> = [
  [/^\/branches\/.+\/protection(?:\/|$)/, ['administration'], ['administration']],
  [/^\/commits\/[^/]+\/check-(?:runs|suites)$/, ['checks'], ['checks']],
  [/^\/commits\/[^/]+\/status(?:es)?$|^\/statuses(?:\/|$)/, ['statuses'], ['statuses']],
  [/^\/check-(?:runs|suites)(?:\/|$)/, ['checks'], ['checks']],
  [/^\/deployments(?:\/|$)/, ['deployments'], ['deployments']],
  [/^\/(?:issues|labels|milestones|assignees)(?:\/|$)/, ['issues', 'pull_requests'], ['issues', 'pull_requests']],
  // Merging writes the base branch; updating a pull request's branch, its head.
  [/^\/pulls\/\d+\/(?:merge|update-branch)$/, ['pull_requests'], ['contents']],
  [/^\/pulls(?:\/|$)/, ['pull_requests'], ['pull_requests']],
  [/^\/(?:hooks|keys)(?:\/|$)/, ['administration'], ['administration']],
  [/^\/collaborators(?:\/|$)/, ['metadata'], ['administration']],
  [/^\/(?:contents|readme|git|commits|compare|branches|tags|tarball|zipball|releases|merges|dispatches|comments)(?:\/|$)/, ['contents'], ['contents']],
];
/** The repository itself and anything else: its metadata to read, `administration` to change. */
const OTHERWISE: [read: string[], write: string[]] = [['metadata'], ['administration']];

/**
 * What an app's installation may do in a repository, beyond the role `accessLevel` gives it (the widest of its
 * permissions): a request needs the permission of its endpoint family, and a change may only be made in a repository
 * it is installed on. GitHub's 403 `Resource not accessible by integration` otherwise. A repository the app may not
 * see at all is left to the route (404).
 */
export async function integrationScope(ctx: AppContext, event: H3Event): Promise<void> {
  const viewer = await currentUser(ctx, event);
  const grant = viewer?.installation;
  if (!grant) return;
  const path = /^\/api\/(?:v3|uploads)\/repos\/([^/]+)\/([^/]+)(.*)$/.exec(event.url.pathname);
  if (!path) return;
  const repo = await ctx.repos.findByName(decodeURIComponent(path[1]!), decodeURIComponent(path[2]!));
  if (!repo || (await ctx.repos.access(viewer, repo)) === 'none') return;
  const write = event.req.method !== 'GET' && event.req.method !== 'HEAD';
  const [read, written] = PERMISSIONS_OF_PATH.find(([pattern]) => pattern.test(path[3]!))?.slice(1) as [string[], string[]] | undefined ?? OTHERWISE;
  if (!integrationAllows(grant, repo, write ? 'write' : 'read', ...(write ? written : read))) throw new GitHubApiError(403, 'Resource not accessible by integration');
}

/**
 * GitHub Apps: what an app asks as itself with its JSON web token (`/app`, its installations, installation tokens,
 * the installation of a repository or account), and as an installation (`/installation/repositories`).
 */
export function mountApps(app: H3, ctx: AppContext): void {
  const shapes = new AppShapes(ctx.baseUrl, shapesOf(ctx));

  /** The app the request's JSON web token is signed by; 401 with GitHub's words otherwise. */
  const appOf = async (event: H3Event): Promise<AppRow> => {
    const jwt = bearerJwt(event);
    if (!jwt) throw new GitHubApiError(401, 'A JSON web token could not be decoded');
    try {
      return await ctx.apps.appOfJwt(jwt);
    } catch (error) {
      if (isRepoHostError(error) && error.status === 401) throw new GitHubApiError(401, error.message);
      throw error;
    }
  };
  const installationId = (event: H3Event) => {
    const raw = pathParam(event, 'installation_id');
    return /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  };
  const installationShape = async (row: Awaited<ReturnType<typeof ctx.apps.installation>>, owner: AppRow) => shapes.installation(row, owner, await ctx.apps.account(row));

  app.get(`${V3}/app`, async (event) => {
    const found = await appOf(event);
    return shapes.app(found, await ctx.apps.owner(found), await ctx.apps.installationsCount(found));
  });

  app.get(`${V3}/apps/:app_slug`, async (event) => {
    const found = await ctx.apps.bySlug(pathParam(event, 'app_slug'));
    return shapes.app(found, await ctx.apps.owner(found));
  });

  app.get(`${V3}/app/installations`, async (event) => {
    const found = await appOf(event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.apps.installations(found, page);
    return page.respond(total, await Promise.all(items.map(async (row) => await installationShape(row, found))));
  });

  app.get(`${V3}/app/installations/:installation_id`, async (event) => {
    const found = await appOf(event);
    return await installationShape(await ctx.apps.installation(found, installationId(event)), found);
  });

  app.delete(`${V3}/app/installations/:installation_id`, async (event) => {
    await ctx.apps.uninstall(await appOf(event), installationId(event));
    return noContent();
  });

  app.post(`${V3}/app/installations/:installation_id/access_tokens`, async (event) => {
    const found = await appOf(event);
    const token = await ctx.apps.createToken(found, installationId(event), await readJson(ctx, event));
    const bot = await ctx.apps.viewerOfToken(token.token);
    const repositories = token.repositories && (await repositoriesFor(ctx, token.repositories, bot));
    return created(event, shapes.token(token, repositories));
  });

  app.get(`${REPO}/installation`, async (event) => {
    const found = await appOf(event);
    return await installationShape(await ctx.apps.installationOfRepositoryNamed(found, pathParam(event, 'owner'), pathParam(event, 'repo')), found);
  });

  app.get(`${V3}/users/:username/installation`, async (event) => {
    const found = await appOf(event);
    return await installationShape(await ctx.apps.installationOfAccount(found, pathParam(event, 'username')), found);
  });

  // As the installation: the repositories its token may reach.
  app.get(`${V3}/installation/repositories`, async (event) => {
    const viewer = await currentUser(ctx, event);
    const grant = viewer?.installation;
    if (!grant) throw new GitHubApiError(403, 'This endpoint can only be accessed with an installation token');
    const installation = await ctx.apps.installationForGrant(grant);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.apps.repositories(installation, grant.repoIds, page);
    page.respond(total, items); // GitHub's paging headers; the body is an object, not the list
    return { total_count: total, repository_selection: installation.repository_selection, repositories: await repositoriesFor(ctx, items, viewer) };
  });

  app.delete(`${V3}/installation/token`, async (event) => {
    const viewer = await currentUser(ctx, event);
    const token = /^(?:Bearer|token)\s+(ghs_\S+)\s*$/i.exec(event.req.headers.get('authorization') ?? '')?.[1];
    if (!viewer?.installation || !token) throw new GitHubApiError(401, 'Bad credentials');
    await ctx.apps.revokeToken(token);
    return noContent();
  });
}
