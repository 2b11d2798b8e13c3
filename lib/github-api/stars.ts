import type { H3, H3Event } from 'h3';
import { getRequestHeader } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { currentUser, requireUser } from '../http/auth.js';
import { pathParam, queryString } from '../http/validate.js';
import type { StarredOrder } from '../services/social.js';
import type { UserRow } from '../store/queries/users.js';
import { githubTime } from '../github/time.js';
import { githubPage, noContent, validationFailed } from './http.js';
import { REPO, repoAndUser, repoOf, repositoriesFor, shapesOf, V3 } from './lookup.js';

const STARRED = `${V3}/user/starred/:owner/:repo`;

/** GitHub's `application/vnd.github.star+json`: each item with its `starred_at`. */
const withStarTimes = (event: H3Event) => /application\/vnd\.github(?:\.v3)?\.star\+json/.test(getRequestHeader(event, 'accept') ?? '');

/** GitHub's `sort` and `direction` of a starred list (by when starred, newest first, by default). */
function starredOrder(event: H3Event): StarredOrder {
  const sort = queryString(event, 'sort') ?? 'created';
  if (sort !== 'created' && sort !== 'updated') throw validationFailed({ resource: 'Repository', field: 'sort', code: 'invalid' });
  const direction = queryString(event, 'direction') ?? 'desc';
  if (direction !== 'asc' && direction !== 'desc') throw validationFailed({ resource: 'Repository', field: 'direction', code: 'invalid' });
  return { sort, direction };
}

/** Starring (octokit's `activity.*Star*` and `listStargazersForRepo`): who starred a repository, what an account starred. */
export function mountStars(app: H3, ctx: AppContext): void {
  app.get(`${REPO}/stargazers`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.social.accountsOf('stars', repo, page);
    const shapes = shapesOf(ctx);
    const timed = withStarTimes(event);
    return page.respond(total, items.map(({ user, since }) => (timed ? { starred_at: githubTime(since), user: shapes.user(user) } : shapes.user(user))));
  });

  const starredList = async (event: H3Event, user: UserRow, viewer: UserRow | undefined) => {
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.social.repositoriesOf('stars', user, viewer, starredOrder(event), page);
    const timed = withStarTimes(event);
    const repos = await repositoriesFor(ctx, items.map(({ repo }) => repo), viewer);
    const shaped: unknown[] = timed ? items.map(({ since }, index) => ({ starred_at: githubTime(since), repo: repos[index]! })) : repos;
    return page.respond(total, shaped);
  };

  app.get(`${V3}/user/starred`, async (event) => {
    const user = await requireUser(ctx, event);
    return await starredList(event, user, user);
  });

  app.get(`${V3}/users/:username/starred`, async (event) => {
    const user = await ctx.users.byName(pathParam(event, 'username'));
    if (!user) throw notFound();
    return await starredList(event, user, await currentUser(ctx, event));
  });

  // "Is it starred by me?": 204 or 404, as on GitHub.
  app.get(STARRED, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    if (!(await ctx.social.stateOf(user, repo)).starred) throw notFound();
    return noContent();
  });

  app.put(STARRED, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.social.setStar(user, repo, true);
    return noContent();
  });

  app.delete(STARRED, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.social.setStar(user, repo, false);
    return noContent();
  });
}
