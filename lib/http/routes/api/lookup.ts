import type { H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { currentUser } from '../../auth.js';
import { pathParam } from '../../validate.js';

/** The repository named by the `owner`/`repo` path segments, if the caller may see it (else 404). */
export async function repoFromPath(ctx: AppContext, event: H3Event, owner = 'owner', repo = 'repo'): Promise<RepositoryRow> {
  return await ctx.repos.visibleByName(await currentUser(ctx, event), pathParam(event, owner), pathParam(event, repo));
}
