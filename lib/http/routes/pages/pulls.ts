import type { H3, HTTPResponse } from 'h3';
import type { AppContext } from '../../../context.js';
import { isRepoHostError, notFound } from '../../../errors.js';
import type { PullRow } from '../../../store/queries/pulls.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { atLeast } from '../../../services/permissions.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { renderDiff } from '../../pages/diff-view.js';
import { compareView, pullListView, pullView, type CompareModel, type PullTab } from '../../pages/pulls-view.js';
import { pathUrl, repoBase } from '../../pages/repo-layout.js';
import { pageOf } from '../../pagination.js';
import { idParam, pathParam, queryString } from '../../validate.js';
import { redirectTo } from '../web.js';
import { mountConversationForms, type ConversationForm } from './conversation-forms.js';
import { commentWindow, repoForm, repoPageRequest, textDownload, type RepoPageRequest } from './page-request.js';

type CommentWindow = ReturnType<typeof commentWindow>;

const NO_ITEMS = { limit: 0, offset: 0 };

/** The pull request a page address numbers, or the 404 page. */
async function pullNumbered(ctx: AppContext, repo: RepositoryRow, number: number): Promise<PullRow> {
  const pull = await ctx.pulls.byNumber(repo, number);
  if (!pull) throw notFound('Pull request not found');
  return pull;
}
/** Branches offered by the compare page's selectors. */
const MAX_LISTED_BRANCHES = { limit: 500, offset: 0 };

/** The pull request page on one of its tabs; what each tab needs is read from git only for that tab. */
async function renderPull(ctx: AppContext, request: RepoPageRequest, number: number, tab: PullTab, window: CommentWindow, error?: string): Promise<string> {
  const { viewer, user, repo, access } = request;
  const row = await pullNumbered(ctx, repo, number);
  const pull = await ctx.pulls.summary(repo, row);
  // A merged pull request says how many commits it brought (its recorded base and head no longer move).
  const commits = tab === 'commits' || pull.status === 'merged' ? await ctx.pulls.commits(repo, row.id) : undefined;
  return pullView(user, repo, access, {
    pull,
    tab,
    comments: tab === 'conversation' ? (await ctx.pulls.comments(repo, row.id, window)).items : undefined,
    commentPage: window.page,
    commits: tab === 'commits' ? commits : undefined,
    commitCount: pull.status === 'merged' ? commits?.length : undefined,
    diff: tab === 'files' ? await renderDiff(await ctx.pulls.files(repo, row.id), downloads(`${repoBase(repo)}/pulls/${row.number}`)) : undefined,
    checks: await ctx.statuses.combinedOf(repo, pull.head_sha),
    checkRuns: await ctx.checks.latestRunsAt(repo, pull.head_sha, MAX_CHECK_RUNS_SHOWN),
    requiredContexts: (await ctx.protection.ruleFor(repo, pull.base))?.required_status_contexts ?? [],
    unmetChecks: await ctx.pulls.unmetChecks(repo, pull.base, pull.head_sha),
    unmetReviews: pull.status === 'open' ? await ctx.pulls.unmetReviews(repo, pull.base, row.id) : undefined,
    canChangeState: viewer !== undefined && (viewer.username === pull.author || atLeast(access, 'write')),
    canMerge: atLeast(access, 'write'),
    canEdit: (author) => viewer !== undefined && (viewer.username === author || atLeast(access, 'write')),
    error,
  });
}

/** Check runs a pull request page lists (the newest of each name). */
const MAX_CHECK_RUNS_SHOWN = 50;

/** The `.diff` and `.patch` addresses beside a page's. */
const downloads = (page: string) => ({ diff: `${page}.diff`, patch: `${page}.patch` });

/** `base...head` of a compare address; branch names may hold slashes but never `...` (git forbids `..`). */
function parseCompareSpec(spec: string): { base: string; head: string } | undefined {
  const at = spec.indexOf('...');
  if (at <= 0 || at + 3 >= spec.length) return undefined;
  return { base: spec.slice(0, at), head: spec.slice(at + 3) };
}

async function renderCompare(ctx: AppContext, request: RepoPageRequest, base: string, head: string, extra: Pick<CompareModel, 'error' | 'values'> = {}): Promise<string> {
  const { user, repo, access } = request;
  const branches = (await ctx.repos.branches(repo, MAX_LISTED_BRANCHES)).items.map((branch) => branch.name);
  const found = base !== head ? await ctx.pulls.compare(repo, base, head) : undefined;
  const comparison = found && { ...found, diff: await renderDiff(found.files, downloads(`${repoBase(repo)}/compare/${pathUrl(base)}...${pathUrl(head)}`)) };
  return compareView(user, repo, access, { branches, base, head, comparison, ...extra });
}

/**
 * `base...head.diff` (or `.patch`): the comparison as text streamed from git, when both are branches; undefined for
 * any other address (a head branch whose name itself ends in `.diff` is a page).
 */
async function comparisonDownload(ctx: AppContext, repo: RepositoryRow, spec: { base: string; head: string }): Promise<HTTPResponse | undefined> {
  const match = /^(.+)\.(diff|patch)$/.exec(spec.head);
  if (!match) return undefined;
  const browse = ctx.git.browse;
  const branch = async (name: string) => {
    const found = await browse.resolveRefPath(repo.owner_name, repo.name, 'branch', name);
    return found && found.path === '' && found.ref === name ? found.commit : undefined;
  };
  if (await branch(spec.head)) return undefined;
  const [base, head] = await Promise.all([branch(spec.base), branch(match[1]!)]);
  if (!base || !head) throw notFound('Not found');
  return textDownload(await browse.streamComparison(repo.owner_name, repo.name, base, head, match[2] as 'diff' | 'patch'));
}

/** Pull request pages: the list, compare-and-create, the pull request with its tabs, merging. */
export function mountPullPages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  app.get('/:owner/:repo/pulls', async (event) => {
    const { user, repo, access } = await repoPageRequest(ctx, guard, event);
    const status = queryString(event, 'status') === 'closed' ? 'closed' : 'open';
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.pulls.list(repo, status, page);
    const counts = { open: (await ctx.pulls.list(repo, 'open', NO_ITEMS)).total, closed: (await ctx.pulls.list(repo, 'closed', NO_ITEMS)).total };
    // Statuses are rows of the store: one small read per listed pull request, no git.
    const checks = new Map((await Promise.all(items.map(async (pull) => [pull.id, await ctx.statuses.combinedOf(repo, pull.head_sha)] as const))).filter(([, combined]) => combined.total_count > 0).map(([id, combined]) => [id, combined.state]));
    return htmlResponse(pullListView(user, repo, access, { status, counts, pulls: items, checks, page: page.page, limit: page.limit, total }));
  });

  // The selectors submit here; the comparison itself lives at a linkable address.
  app.get('/:owner/:repo/compare', async (event) => {
    const request = await repoPageRequest(ctx, guard, event);
    const { repo } = request;
    const base = queryString(event, 'base') ?? repo.default_branch;
    const head = queryString(event, 'head');
    if (head) return redirectTo(`${repoBase(repo)}/compare/${pathUrl(base)}...${pathUrl(head)}`);
    return htmlResponse(await renderCompare(ctx, request, base, base));
  });

  app.get('/:owner/:repo/compare/**:spec', async (event) => {
    const request = await repoPageRequest(ctx, guard, event);
    const spec = parseCompareSpec(pathParam(event, 'spec'));
    if (!spec) return redirectTo(`${repoBase(request.repo)}/compare`);
    const download = await comparisonDownload(ctx, request.repo, spec);
    if (download) return download;
    return htmlResponse(await renderCompare(ctx, request, spec.base, spec.head));
  });

  app.post('/:owner/:repo/pulls', (event) =>
    repoForm(
      ctx,
      guard,
      event,
      async ({ viewer, repo }, form) => {
        const pull = await ctx.pulls.create(repo, viewer, { title: form.title, description: form.description, head: form.head, base: form.base });
        return redirectTo(`${repoBase(repo)}/pulls/${pull.number}`);
      },
      async (request, message, form) => {
        const values = { title: String(form.title ?? ''), description: String(form.description ?? '') };
        // The branches themselves may be what is wrong: then the picker alone, with the message.
        return renderCompare(ctx, request, String(form.base ?? ''), String(form.head ?? ''), { error: message, values }).catch((error: unknown) => {
          if (!isRepoHostError(error)) throw error;
          return renderCompare(ctx, request, request.repo.default_branch, request.repo.default_branch, { error: message });
        });
      },
    ),
  );

  for (const [suffix, tab] of [['', 'conversation'], ['/commits', 'commits'], ['/files', 'files']] as const) {
    app.get(`/:owner/:repo/pulls/:number${suffix}`, async (event) => {
      const request = await repoPageRequest(ctx, guard, event);
      // `/pulls/<number>.diff` and `.patch`: what the pull request changes, as text streamed from git.
      const download = suffix === '' ? /^(\d{1,15})\.(diff|patch)$/.exec(pathParam(event, 'number')) : null;
      if (download) {
        const pull = await pullNumbered(ctx, request.repo, Number(download[1]));
        return textDownload(await ctx.pulls.diff(request.repo, pull.id, download[2] as 'diff' | 'patch'));
      }
      return htmlResponse(await renderPull(ctx, request, idParam(event, 'number'), tab, commentWindow(event)));
    });
  }

  /** A form on the pull request page: back to it (at `anchor` if the action names one), or the page with the error. */
  const pullForm: ConversationForm = (event, action) =>
    repoForm(
      ctx,
      guard,
      event,
      async (request, form) => {
        const pull = await pullNumbered(ctx, request.repo, idParam(event, 'number'));
        const anchor = await action(request, form, pull.id);
        return redirectTo(`${repoBase(request.repo)}/pulls/${pull.number}${anchor ?? ''}`);
      },
      (request, message) => renderPull(ctx, request, idParam(event, 'number'), 'conversation', commentWindow(event), message),
    );

  mountConversationForms(app, 'pulls', ctx.pulls, pullForm);

  // Refusals (conflicts, required checks: 405; head moved: 409) come back as the page with the service's message.
  app.post('/:owner/:repo/pulls/:number/merge', (event) =>
    pullForm(event, async ({ viewer, repo }, form, id) => {
      await ctx.pulls.merge(repo, viewer, id, { method: form.method, title: form.title, message: form.message, headSha: form.head_sha, deleteBranch: form.delete_branch });
    }),
  );
}
