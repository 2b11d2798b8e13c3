import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { pathParam, queryString } from '../http/validate.js';
import { pageOf } from '../http/pagination.js';
import { diffResponse, GitHubApiError, githubPage, noCommitFor, requestedDiff, validationFailed } from './http.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { CommitFilter } from '../git/history.js';
import { apiUrl, REPO, repoOf, shapesOf } from './lookup.js';

/** Files per page of one commit's answer: 300 unless `per_page` asks for fewer (GitHub's page of a commit's files). */
const COMMIT_FILE_PAGES = { default: 300, max: 300 };
/** Commits per page of a comparison: 250 unless `per_page` asks for fewer (the most a comparison lists). */
const COMPARE_COMMIT_PAGES = { default: 30, max: 100 };

/** Commit history, one commit with its files, and comparisons of two refs. */
export function mountCommits(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);

  /** GitHub's answer to any commits request of a repository with no commits at all. */
  const refuseEmpty = async (repo: RepositoryRow) => {
    if ((await ctx.gitData.refsOf(repo)).size === 0) throw new GitHubApiError(409, 'Git Repository is empty.');
  };

  app.get(`${REPO}/commits`, async (event) => {
    const repo = await repoOf(ctx, event);
    await refuseEmpty(repo);
    const page = githubPage(ctx, event);
    const filter = await commitFilter(ctx, event);
    if (filter === 'nobody') return page.respond(0, []);
    const { items, total } = await ctx.gitData.history(repo, { ref: queryString(event, 'sha') || undefined, path: queryString(event, 'path') || undefined, filter }, page).catch(noCommitFor);
    return page.respond(total, await shapes.code.commits(ctx.store, repo, items));
  });

  // GitHub: "If there are more than 300 files in the commit diff ..., the response will include pagination link
  // headers for the remaining files, up to a limit of 3000 files. Each page contains the static commit information,
  // and the only changes are to the file listing." `per_page` (at most 300) sizes the pages of files.
  app.get(`${REPO}/commits/:ref`, async (event) => {
    const repo = await repoOf(ctx, event);
    await refuseEmpty(repo);
    const kind = requestedDiff(event);
    if (kind) {
      const commit = await ctx.git.browse.commit(repo.owner_name, repo.name, (await ctx.gitData.commitWithFiles(repo, pathParam(event, 'ref')).catch(noCommitFor)).commit.id);
      if (!commit) throw notFound();
      return diffResponse(kind, await ctx.git.browse.streamCommit(repo.owner_name, repo.name, commit, kind));
    }
    const page = pageOf(ctx, event, 'per_page', COMMIT_FILE_PAGES);
    const { commit, files, totalFiles } = await ctx.gitData.commitWithFiles(repo, pathParam(event, 'ref'), page).catch(noCommitFor);
    return await shapes.code.commit(ctx.store, repo, commit, page.respond(totalFiles, files));
  });

  // The branches whose tip the commit is (GitHub's `branch-short`: name, commit, protected), by name.
  app.get(`${REPO}/commits/:ref/branches-where-head`, async (event) => {
    const repo = await repoOf(ctx, event);
    await refuseEmpty(repo);
    const sha = await ctx.gitData.resolve(repo, pathParam(event, 'ref')).catch(noCommitFor);
    const ruleOf = await ctx.protection.rulesOf(repo);
    return [...(await ctx.gitData.refsOf(repo))]
      .flatMap(([ref, tip]) => (ref.startsWith('refs/heads/') && tip === sha ? [ref.slice('refs/heads/'.length)] : []))
      .sort()
      .map((name) => ({ name, commit: { sha, url: apiUrl(ctx, repo, `/commits/${sha}`) }, protected: ruleOf(name) !== undefined }));
  });

  // The merged pull request that brought the commit (and while it is off the default branch, the open ones too).
  app.get(`${REPO}/commits/:ref/pulls`, async (event) => {
    const repo = await repoOf(ctx, event);
    await refuseEmpty(repo);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.commitPulls.list(repo, pathParam(event, 'ref'), page).catch(noCommitFor);
    return page.respond(total, await shapes.pulls(ctx.store, repo, items));
  });

  // `base...head` (or `base..head`); refs may hold slashes.
  app.get(`${REPO}/compare/**:spec`, async (event) => {
    const repo = await repoOf(ctx, event);
    const match = /^(.+?)\.{2,3}(.+)$/.exec(pathParam(event, 'spec'));
    if (!match) throw notFound();
    // Without `page` or `per_page` GitHub answers the newest 250 commits, unpaged; with either, pages of at most 100
    // (30 by default) from the oldest, the files on the first page only.
    const paged = queryString(event, 'page') !== undefined || queryString(event, 'per_page') !== undefined;
    const page = paged ? pageOf(ctx, event, 'per_page', COMPARE_COMMIT_PAGES) : undefined;
    const comparison = await ctx.gitData.compare(repo, match[1]!, match[2]!, page && { offset: page.offset, limit: page.limit });
    // Histories that share no commit are not compared (GitHub's 404, in its words).
    if (!comparison.mergeBase) throw new GitHubApiError(404, `No common ancestor between ${match[1]} and ${match[2]}.`);
    // As on GitHub: what head brings since the merge base (the diff), or head's commits base lacks (the patch).
    const kind = requestedDiff(event);
    if (kind) return diffResponse(kind, await ctx.git.compare.diffStream(repo.owner_name, repo.name, comparison.base.id, comparison.head.id, kind));
    const html = `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/compare/${match[1]}...${match[2]}`;
    const commits = page ? page.respond(comparison.aheadBy, comparison.commits) : comparison.commits;
    return {
      url: apiUrl(ctx, repo, `/compare/${match[1]}...${match[2]}`),
      html_url: html,
      permalink_url: `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/compare/${comparison.base.id}...${comparison.head.id}`,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      base_commit: await shapes.code.commit(ctx.store, repo, comparison.base),
      ...(comparison.mergeBase ? { merge_base_commit: await shapes.code.commit(ctx.store, repo, comparison.mergeBase) } : {}),
      status: comparison.status,
      ahead_by: comparison.aheadBy,
      behind_by: comparison.behindBy,
      total_commits: comparison.aheadBy,
      commits: await shapes.code.commits(ctx.store, repo, commits),
      ...(page && page.page > 1 ? {} : { files: comparison.files.map((file) => shapes.code.file(repo, comparison.head.id, file)) }),
    };
  });
}

/**
 * GitHub's `since`, `until` (ISO 8601, by commit date), `author` and `committer` (a username: the account's address
 * and the address its commits here carry; or an address) filters of the commit list. An unknown username matches
 * nothing.
 */
async function commitFilter(ctx: AppContext, event: H3Event): Promise<CommitFilter | 'nobody'> {
  const filter: CommitFilter = {};
  for (const name of ['since', 'until'] as const) {
    const value = queryString(event, name);
    if (!value) continue;
    const time = Date.parse(value);
    if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) throw validationFailed({ resource: 'Commit', field: name, code: 'invalid' });
    filter[name] = new Date(time).toISOString();
  }
  for (const [name, field] of [['author', 'authors'], ['committer', 'committers']] as const) {
    const value = queryString(event, name);
    if (!value) continue;
    if (value.includes('@')) filter[field] = [value];
    else {
      const user = await ctx.users.byName(value);
      if (!user) return 'nobody';
      filter[field] = [user.email, `${user.username}@${ctx.options.noreplyEmailDomain}`];
    }
  }
  return filter;
}
