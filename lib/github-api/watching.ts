import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { currentUser, requireUser } from '../http/auth.js';
import { pathParam } from '../http/validate.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { githubTime } from '../github/time.js';
import { githubPage, noContent, readJson, unprocessable } from './http.js';
import { apiUrl, REPO, repoAndUser, repoOf, repositoriesFor, shapesOf, V3 } from './lookup.js';

/** Watched repositories are listed as GitHub does: newest watch first. */
const NEWEST_FIRST = { sort: 'created', direction: 'desc' } as const;

/**
 * Watching (octokit's `activity.*RepoSubscription`, `listWatchersForRepo`, `listWatchedRepos…`): who watches a
 * repository, what an account watches, and one's own subscription. repohost has no ignoring: a subscription is a
 * watch, `ignored` always false.
 */
export function mountWatching(app: H3, ctx: AppContext): void {
  const subscription = (repo: RepositoryRow, since: string) => ({
    subscribed: true,
    ignored: false,
    reason: null,
    created_at: githubTime(since),
    url: apiUrl(ctx, repo, '/subscription'),
    repository_url: apiUrl(ctx, repo, ''),
  });

  app.get(`${REPO}/subscribers`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.social.accountsOf('watches', repo, page);
    const shapes = shapesOf(ctx);
    return page.respond(total, items.map(({ user }) => shapes.user(user)));
  });

  app.get(`${REPO}/subscription`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const since = await ctx.social.watchingSince(user, repo);
    if (since === undefined) throw notFound();
    return subscription(repo, since);
  });

  app.put(`${REPO}/subscription`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.ignored !== undefined && body.ignored !== false) throw unprocessable('repohost does not ignore repositories: ignored must be false');
    if (body.subscribed !== undefined && body.subscribed !== true) throw unprocessable('repohost keeps no subscription that is not a watch: delete the subscription to stop watching');
    await ctx.social.setWatch(user, repo, true);
    return subscription(repo, (await ctx.social.watchingSince(user, repo))!);
  });

  app.delete(`${REPO}/subscription`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.social.setWatch(user, repo, false);
    return noContent();
  });

  const watchedBy = async (event: H3Event, user: UserRow, viewer: UserRow | undefined) => {
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.social.repositoriesOf('watches', user, viewer, NEWEST_FIRST, page);
    return page.respond(total, await repositoriesFor(ctx, items.map(({ repo }) => repo), viewer));
  };

  app.get(`${V3}/user/subscriptions`, async (event) => {
    const user = await requireUser(ctx, event);
    return await watchedBy(event, user, user);
  });

  app.get(`${V3}/users/:username/subscriptions`, async (event) => {
    const user = await ctx.users.byName(pathParam(event, 'username'));
    if (!user) throw notFound();
    return await watchedBy(event, user, await currentUser(ctx, event));
  });
}
