import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { currentUser, requireUser } from '../http/auth.js';
import { pathParam } from '../http/validate.js';
import type { UserRow } from '../store/queries/users.js';
import { githubPage, refuseUnsupportedParams } from './http.js';
import { repositoriesFor, shapesOf, V3 } from './lookup.js';

/** How repositories are listed: by full name, A to Z (GitHub's `sort=full_name`, ascending by default for it). */
const BY_FULL_NAME = { sort: ['full_name'], direction: ['asc'] } as const;

/** Users and their repositories: `/user`, `/users/:username`, `/user/repos`, `/users/:username/repos`, one's addresses and (no) organizations. */
export function mountUsers(app: H3, ctx: AppContext): void {
  app.get(`${V3}/user`, async (event) => {
    const user = await requireUser(ctx, event);
    return shapesOf(ctx).fullUser(user, await ctx.repos.countsOf(user), true);
  });

  app.get(`${V3}/users/:username`, async (event) => {
    const user = await userNamed(ctx, pathParam(event, 'username'));
    return shapesOf(ctx).fullUser(user, await ctx.repos.countsOf(user), false);
  });

  // The caller's address, as GitHub lists one's addresses: repohost keeps one, private, never verified.
  app.get(`${V3}/user/emails`, async (event) => {
    const user = await requireUser(ctx, event);
    const page = githubPage(ctx, event);
    return page.respond(1, [{ email: user.email, primary: true, verified: user.email_verified === 1, visibility: 'private' }].slice(page.offset, page.offset + page.limit));
  });

  // Addresses shown on one's profile: none, as every address here is private.
  app.get(`${V3}/user/public_emails`, async (event) => {
    await requireUser(ctx, event);
    return githubPage(ctx, event).respond(0, []);
  });

  // Organizations: repohost has none, so every account belongs to none.
  app.get(`${V3}/user/orgs`, async (event) => {
    await requireUser(ctx, event);
    return githubPage(ctx, event).respond(0, []);
  });

  app.get(`${V3}/users/:username/orgs`, async (event) => {
    await userNamed(ctx, pathParam(event, 'username'));
    return githubPage(ctx, event).respond(0, []);
  });

  // The caller's own repositories (GitHub adds those it collaborates on; repohost lists owned ones), by full name.
  app.get(`${V3}/user/repos`, async (event) => {
    refuseUnsupportedParams(event, '/user/repos', { ...BY_FULL_NAME, visibility: ['all'], affiliation: ['owner'], type: ['all', 'owner'], since: [], before: [] });
    const user = await requireUser(ctx, event);
    return await repositoriesOf(ctx, event, user, user);
  });

  app.get(`${V3}/users/:username/repos`, async (event) => {
    refuseUnsupportedParams(event, '/users/{username}/repos', { ...BY_FULL_NAME, type: ['all', 'owner'] });
    return await repositoriesOf(ctx, event, await userNamed(ctx, pathParam(event, 'username')), await currentUser(ctx, event));
  });
}

async function userNamed(ctx: AppContext, username: string): Promise<UserRow> {
  const user = await ctx.users.byName(username);
  if (!user) throw notFound();
  return user;
}

async function repositoriesOf(ctx: AppContext, event: Parameters<typeof githubPage>[1], owner: UserRow, viewer: UserRow | undefined) {
  const page = githubPage(ctx, event);
  const { items, total } = await ctx.repos.listOfOwner(viewer, owner, page);
  return page.respond(total, await repositoriesFor(ctx, items, viewer));
}
