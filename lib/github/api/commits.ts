import type { H3 } from 'h3';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { pathParam, queryString } from '../../http/validate.js';
import { pageOf } from '../../http/pagination.js';
import { githubPage } from './http.js';
import { apiUrl, REPO, repoOf, shapesOf } from './lookup.js';

/** Files per page of one commit's answer: 300 unless `per_page` asks for fewer (GitHub's page of a commit's files). */
const COMMIT_FILE_PAGES = { default: 300, max: 300 };

/** Commit history, one commit with its files, and comparisons of two refs. */
export function mountCommits(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);

  app.get(`${REPO}/commits`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.gitData.history(repo, { ref: queryString(event, 'sha') || undefined, path: queryString(event, 'path') || undefined }, page);
    return page.respond(total, items.map((commit) => shapes.commit(ctx.store, repo, commit)));
  });

  // GitHub: "If there are more than 300 files in the commit diff ..., the response will include pagination link
  // headers for the remaining files, up to a limit of 3000 files. Each page contains the static commit information,
  // and the only changes are to the file listing." `per_page` (at most 300) sizes the pages of files.
  app.get(`${REPO}/commits/:ref`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = pageOf(ctx, event, 'per_page', COMMIT_FILE_PAGES);
    const { commit, files, totalFiles } = await ctx.gitData.commitWithFiles(repo, pathParam(event, 'ref'), page);
    return shapes.commit(ctx.store, repo, commit, page.respond(totalFiles, files));
  });

  // `base...head` (or `base..head`); refs may hold slashes.
  app.get(`${REPO}/compare/**:spec`, async (event) => {
    const repo = await repoOf(ctx, event);
    const match = /^(.+?)\.{2,3}(.+)$/.exec(pathParam(event, 'spec'));
    if (!match) throw notFound();
    const comparison = await ctx.gitData.compare(repo, match[1]!, match[2]!);
    return {
      url: apiUrl(ctx, repo, `/compare/${match[1]}...${match[2]}`),
      html_url: `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/compare/${match[1]}...${match[2]}`,
      base_commit: shapes.commit(ctx.store, repo, comparison.base),
      ...(comparison.mergeBase ? { merge_base_commit: shapes.commit(ctx.store, repo, comparison.mergeBase) } : {}),
      status: comparison.status,
      ahead_by: comparison.aheadBy,
      behind_by: comparison.behindBy,
      total_commits: comparison.aheadBy,
      commits: comparison.commits.map((commit) => shapes.commit(ctx.store, repo, commit)),
      files: comparison.files.map((file) => shapes.file(file)),
    };
  });
}
