import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { queryString } from '../http/validate.js';
import type { MilestoneListing, MilestoneRow } from '../store/queries/milestones.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { usersByNames } from '../store/queries/users.js';
import { conflictAs, created, githubPage, noContent, readJson, validationFailed } from './http.js';
import { numberParam, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const titleTaken = () => validationFailed({ resource: 'Milestone', code: 'already_exists', field: 'title' });

function listing(event: H3Event): MilestoneListing {
  const state = queryString(event, 'state') ?? 'open';
  if (state !== 'open' && state !== 'closed' && state !== 'all') throw validationFailed({ resource: 'Milestone', field: 'state', code: 'invalid' });
  const sort = queryString(event, 'sort') ?? 'due_on';
  if (sort !== 'due_on' && sort !== 'completeness') throw validationFailed({ resource: 'Milestone', field: 'sort', code: 'invalid' });
  const direction = queryString(event, 'direction') ?? 'asc';
  if (direction !== 'asc' && direction !== 'desc') throw validationFailed({ resource: 'Milestone', field: 'direction', code: 'invalid' });
  return { state: state === 'all' ? undefined : state, sort, direction };
}

/** Milestones of a repository in GitHub's shapes: list (state, sort, direction), create, read, edit, delete. */
export function mountMilestones(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);
  const MILESTONE = `${REPO}/milestones/:number`;
  // Every creator of a page read in one query.
  const shape = async (repo: RepositoryRow, rows: readonly MilestoneRow[]) => {
    const creators = await usersByNames(ctx.store, rows.map((row) => row.creator));
    return rows.map((row) => shapes.milestone(repo, row, creators.get(row.creator.toLowerCase())));
  };

  app.get(`${REPO}/milestones`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.milestones.list(repo, listing(event), page);
    return page.respond(total, await shape(repo, items));
  });

  app.post(`${REPO}/milestones`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.title === undefined) throw validationFailed({ resource: 'Milestone', field: 'title', code: 'missing_field' });
    return created(event, (await shape(repo, [await conflictAs(() => ctx.milestones.create(repo, user, body), titleTaken)]))[0]);
  });

  app.get(MILESTONE, async (event) => {
    const repo = await repoOf(ctx, event);
    return (await shape(repo, [await ctx.milestones.get(repo, numberParam(event))]))[0];
  });

  app.patch(MILESTONE, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    return (await shape(repo, [await conflictAs(() => ctx.milestones.update(repo, user, numberParam(event), body), titleTaken)]))[0];
  });

  app.delete(MILESTONE, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.milestones.remove(repo, user, numberParam(event));
    return noContent();
  });
}
