import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../errors.js';
import { assetDownload } from '../../../github-api/releases.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { releasesView, releaseView } from '../../pages/releases-view.js';
import { pathParam, queryString } from '../../validate.js';
import { htmlResponse } from '../../html-response.js';
import { repoPageRequest } from './page-request.js';

const PER_PAGE = 10;

/**
 * The releases pages (GitHub's `html_url` of a release is `/:owner/:repo/releases/tag/<tag>`) and downloads at
 * `browser_download_url` (`/:owner/:repo/releases/download/<tag>/<name>`, the tag may hold slashes), for whoever may
 * read the repository (drafts and their assets only with write access).
 */
export function mountReleasePages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  // The releases of a repository (drafts for those who may write), newest first, and one release by its tag.
  app.get('/:owner/:repo/releases', async (event) => {
    const { repo, viewer, user, access } = await repoPageRequest(ctx, guard, event);
    const raw = queryString(event, 'page');
    const page = raw && /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
    const { items, total } = await ctx.releases.list(repo, viewer, { limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
    return htmlResponse(releasesView(user, repo, access, items, page, total > page * PER_PAGE));
  });

  app.get('/:owner/:repo/releases/tag/**:tag', async (event) => {
    const { repo, viewer, user, access } = await repoPageRequest(ctx, guard, event);
    return htmlResponse(releaseView(user, repo, access, await ctx.releases.visibleByTag(repo, viewer, pathParam(event, 'tag'))));
  });

  app.get('/:owner/:repo/releases/download/**:rest', async (event) => {
    const { repo, viewer } = await repoPageRequest(ctx, guard, event);
    const rest = pathParam(event, 'rest');
    const split = rest.lastIndexOf('/');
    if (split <= 0) throw notFound('Not found');
    const asset = await ctx.releases.assetByTag(repo, viewer, rest.slice(0, split), rest.slice(split + 1));
    return assetDownload(asset, await ctx.releases.download(repo, viewer, asset));
  });
}
