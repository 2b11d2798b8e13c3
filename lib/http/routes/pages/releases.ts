import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../errors.js';
import { assetDownload } from '../../../github/api/releases.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { pathParam } from '../../validate.js';
import { repoPageRequest } from './page-request.js';

/**
 * Release downloads at GitHub's `browser_download_url` (`/:owner/:repo/releases/download/<tag>/<name>`, the tag may
 * hold slashes), for whoever may read the repository (a draft's assets only with write access).
 */
export function mountReleasePages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  app.get('/:owner/:repo/releases/download/**:rest', async (event) => {
    const { repo, viewer } = await repoPageRequest(ctx, guard, event);
    const rest = pathParam(event, 'rest');
    const split = rest.lastIndexOf('/');
    if (split <= 0) throw notFound('Not found');
    const asset = await ctx.releases.assetByTag(repo, viewer, rest.slice(0, split), rest.slice(split + 1));
    return assetDownload(asset, await ctx.releases.download(repo, viewer, asset));
  });
}
