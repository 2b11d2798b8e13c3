import type { H3, H3Event, HTTPResponse } from 'h3';
import type { AppContext } from '../../../context.js';
import { isRepoHostError, notFound } from '../../../errors.js';
import type { PullRow } from '../../../store/queries/pulls.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import type { UserRow } from '../../../store/queries/users.js';
import { atLeast } from '../../../services/permissions.js';
import { NO_ITEMS } from '../../../store/queries/page-window.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { type DiffView, diffViewOf, highlighting, patchPlaces, renderDiff, viewQuery } from '../../pages/diff-view.js';
import { compareView, pullListView, pullView, type CompareModel, type PullTab } from '../../pages/pulls-view.js';
import { fullName, pathUrl, repoBase } from '../../pages/repo-layout.js';
import type { SafeHtml } from '../../pages/html.js';
import { diffReview, parseLineAsked, reviewBox, reviewSummaries, type LineAsked, type ReviewContext } from '../../pages/review-view.js';
import { pageOf } from '../../pagination.js';
import { checkedNames, idParam, pathParam, queryString, type FormFields } from '../../validate.js';
import { redirectTo } from '../web.js';
import { mountConversationForms, type ConversationForm, type ConversationService } from './conversation-forms.js';
import { commentWindow, conversationReactions, timelineOfCommentPage, repoForm, repoPageRequest, textDownload, type RepoPageRequest } from './page-request.js';
import { triageOf } from './triage.js';
import { readThread } from '../../notification-count.js';

type CommentWindow = ReturnType<typeof commentWindow>;


/** The pull request a page address numbers, or the 404 page. */
async function pullNumbered(ctx: AppContext, repo: RepositoryRow, number: number): Promise<PullRow> {
  const pull = await ctx.pulls.byNumber(repo, number);
  if (!pull) throw notFound('Pull request not found');
  return pull;
}
/** Branches offered by the compare page's selectors. */
const MAX_LISTED_BRANCHES = { limit: 500, offset: 0 };

/** What the files tab's address asks for: the line to comment on, and the layout of the diff. */
interface FilesTabView {
  asked?: LineAsked;
  view?: DiffView;
}

/** Review comments a files tab shows (GitHub's review threads are never longer in practice). */
const MAX_REVIEW_COMMENTS = { limit: 2000, offset: 0 };
const MAX_REVIEWS = { limit: 200, offset: 0 };

/** The files tab: the diff with its review threads (and the form on the line asked for), and the review box. */
async function filesTab(ctx: AppContext, request: RepoPageRequest, row: PullRow, { asked, view = diffViewOf(undefined, undefined) }: FilesTabView): Promise<{ diff: SafeHtml; reviewBox: SafeHtml | '' }> {
  const { viewer, user, repo, access } = request;
  const changed = await ctx.pulls.files(repo, row.id, view.hideWhitespace);
  // The file asked for with all its lines (a new list: the one read is cached).
  const expanded = view.expanded === undefined ? undefined : changed[view.expanded];
  const whole = expanded?.patch === undefined ? undefined : await ctx.pulls.fileWithAllLines(repo, row.id, expanded, view.hideWhitespace);
  const files = whole ? changed.map((file, index) => (index === view.expanded ? whole : file)) : changed;
  const context: ReviewContext = {
    viewer: user,
    repository: fullName(repo),
    action: `${repoBase(repo)}/pulls/${row.number}`,
    comments: (await ctx.reviews.comments(repo, viewer, { pull: row }, MAX_REVIEW_COMMENTS)).items,
    headSha: row.head_sha,
    asked,
    view,
    commentable: whole && expanded?.patch !== undefined ? { index: view.expanded!, places: patchPlaces(expanded.patch) } : undefined,
    viewed: await ctx.reviews.viewedFiles(repo, viewer, row),
    canApply: row.status === 'open' && atLeast(access, 'write'),
    canResolve: viewer !== undefined && (viewer.id === row.author_id || atLeast(access, 'write')),
    resolutions: await ctx.reviews.resolutions(row),
    pending: await ctx.reviews.pendingOf(row, viewer),
  };
  const fileIndex = new Map(files.map((file, index) => [file.filename, index]));
  const pendingComments = context.pending ? context.comments.filter((comment) => comment.review_id === context.pending!.id).length : 0;
  return {
    diff: await renderDiff(files, downloads(context.action), diffReview(context, fileIndex), { view, href: (other) => `${context.action}/files${viewQuery(other) ? `?${viewQuery(other)}` : ''}` }, highlighting(ctx)),
    reviewBox: row.status === 'open' ? reviewBox(context, viewer?.id === row.author_id, pendingComments) : '',
  };
}

/** The conversation tab's reviews: each review's verdict and summary, and the reviewers requested. */
async function reviewsSection(ctx: AppContext, request: RepoPageRequest, row: PullRow): Promise<SafeHtml | ''> {
  const { viewer, repo } = request;
  const [reviews, comments, requested] = await Promise.all([ctx.reviews.list(row, viewer, MAX_REVIEWS), ctx.reviews.comments(repo, viewer, { pull: row }, MAX_REVIEW_COMMENTS), ctx.reviews.requested(row)]);
  const perReview = new Map<number, number>();
  for (const comment of comments.items) perReview.set(comment.review_id, (perReview.get(comment.review_id) ?? 0) + 1);
  const mayRequest = request.user && row.status === 'open' && (viewer?.id === row.author_id || atLeast(request.access, 'write'));
  const choice = mayRequest ? { viewer: request.user!, candidates: (await ctx.assignees.list(repo)).filter((name) => name !== row.author) } : undefined;
  const dismisser = request.user && atLeast(request.access, 'write') ? request.user : undefined;
  return reviewSummaries({ repository: fullName(repo), action: `${repoBase(repo)}/pulls/${row.number}` }, reviews.items, perReview, requested, choice, dismisser);
}

/** The pull request page on one of its tabs; what each tab needs is read from git only for that tab. */
async function renderPull(ctx: AppContext, request: RepoPageRequest, number: number, tab: PullTab, window: CommentWindow, error?: string, view: FilesTabView = {}): Promise<string> {
  const { viewer, user, repo, access } = request;
  const row = await pullNumbered(ctx, repo, number);
  const pull = await ctx.pulls.summary(repo, row);
  const files = tab === 'files' ? await filesTab(ctx, request, row, view) : undefined;
  // A merged pull request says how many commits it brought (its recorded base and head no longer move).
  const commits = tab === 'commits' || pull.status === 'merged' ? await ctx.pulls.commits(repo, row.id) : undefined;
  const comments = tab === 'conversation' ? (await ctx.pullComments.comments(repo, row.id, window)).items : undefined;
  const commentAt = async (offset: number) => (await ctx.pullComments.comments(repo, row.id, { limit: 1, offset })).items[0]?.created_at;
  return pullView(user, repo, access, {
    pull,
    tab,
    comments,
    timeline: comments ? await timelineOfCommentPage(ctx, request, row.number, window, { comments, total: pull.comments }, commentAt) : undefined,
    reactions: comments ? await conversationReactions(ctx, repo, row.number, comments.map((comment) => comment.id)) : undefined,
    commentPage: window.page,
    commits: tab === 'commits' ? commits : undefined,
    commitCount: pull.status === 'merged' ? commits?.length : undefined,
    diff: files?.diff,
    reviewBox: files?.reviewBox,
    reviews: tab === 'conversation' ? await reviewsSection(ctx, request, row) : undefined,
    triage: tab === 'conversation' ? await triageOf(ctx, request, row.number) : undefined,
    checks: await ctx.statuses.combinedOf(repo, pull.head_sha),
    checkRuns: await ctx.checks.latestRunsAt(repo, pull.head_sha, MAX_CHECK_RUNS_SHOWN),
    requiredContexts: (await ctx.protection.ruleFor(repo, pull.base))?.required_status_contexts ?? [],
    unmetChecks: await ctx.mergeGates.unmetChecks(repo, pull.base, pull.head_sha),
    unmetReviews: pull.status === 'open' ? await ctx.mergeGates.unmetReviews(repo, pull.base, row.id) : undefined,
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
  const comparison = found && { ...found, diff: await renderDiff(found.files, downloads(`${repoBase(repo)}/compare/${pathUrl(base)}...${pathUrl(head)}`), undefined, undefined, highlighting(ctx)) };
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
      const view = { asked: parseLineAsked(queryString(event, 'comment')), view: diffViewOf(queryString(event, 'diff'), queryString(event, 'w'), queryString(event, 'expand')) };
      // Reading the pull request (any tab) reads its notification.
      await readThread(ctx, request, idParam(event, 'number'));
      return htmlResponse(await renderPull(ctx, request, idParam(event, 'number'), tab, commentWindow(event), undefined, view));
    });
  }

  // GitHub's address of a pull request (`/pull/N`, what /api/v3's `html_url` names): the page lives at Gitea's
  // `/pulls/N`, where it has always been; GitHub's leads there, tab and query kept.
  for (const suffix of ['', '/commits', '/files']) {
    app.get(`/:owner/:repo/pull/:number${suffix}`, async (event) => {
      const request = await repoPageRequest(ctx, guard, event);
      const location = `${repoBase(request.repo)}/pulls/${idParam(event, 'number')}${suffix}${event.url.search}`;
      return new Response(null, { status: 301, headers: { location } });
    });
  }

  /**
   * A form on the pull request page: back to it at what `action` answers (an anchor, or a tab and an anchor), or
   * `tab` with the service's message.
   */
  const formOnPull =
    (tab: PullTab) => (event: H3Event, action: (request: RepoPageRequest & { viewer: UserRow }, form: FormFields, pull: PullRow) => Promise<string | void>) =>
      repoForm(
        ctx,
        guard,
        event,
        async (request, form) => {
          const pull = await pullNumbered(ctx, request.repo, idParam(event, 'number'));
          const anchor = await action(request, form, pull);
          return redirectTo(`${repoBase(request.repo)}/pulls/${pull.number}${anchor ?? ''}`);
        },
        (request, message) => renderPull(ctx, request, idParam(event, 'number'), tab, commentWindow(event), message),
      );
  const pullForm: ConversationForm = (event, action) => formOnPull('conversation')(event, (request, form, pull) => action(request, form, pull.id));
  /** A form of the code review: its errors come back on the files tab. */
  const reviewForm = formOnPull('files');

  // A pull request's conversation: the pull request itself, its comments kept apart (services/pull-comments.ts).
  const conversation: ConversationService = {
    get: (repo, id) => ctx.pulls.get(repo, id),
    update: (repo, viewer, id, changes) => ctx.pulls.update(repo, viewer, id, changes),
    comment: (repo, id, author, body) => ctx.pullComments.comment(repo, id, author, body),
    editComment: (repo, id, commentId, viewer, body) => ctx.pullComments.editComment(repo, id, commentId, viewer, body),
  };
  mountConversationForms(app, 'pulls', conversation, pullForm, { assignees: ctx.assignees, milestones: ctx.milestones });

  // A comment on a line or a whole file: alone (a review of its own, as GitHub makes it), kept in the viewer's pending review, or a
  // reply to a thread.
  app.post('/:owner/:repo/pulls/:number/files/comments', (event) =>
    reviewForm(event, async ({ viewer, repo }, form, pull) => {
      if (typeof form.in_reply_to === 'string' && form.in_reply_to !== '') {
        return `/files#r${(await ctx.reviews.addComment(repo, viewer, pull, { body: form.body, in_reply_to: Number(form.in_reply_to) })).id}`;
      }
      const start = typeof form.start_line === 'string' && form.start_line !== '' ? Number(form.start_line) : undefined;
      const input = { body: form.body, path: form.path, subject_type: form.subject_type, side: form.side, line: Number(form.line), start_line: start, start_side: start === undefined ? undefined : form.side };
      const comment = form.mode === 'review' ? await ctx.reviews.addPendingComment(repo, viewer, pull, input) : await ctx.reviews.addComment(repo, viewer, pull, input);
      return `/files#r${comment.id}`;
    }),
  );

  // The checked accounts (`reviewer.<login>`) become the requested reviewers: the others' requests are removed.
  app.post('/:owner/:repo/pulls/:number/reviewers', (event) =>
    pullForm(event, async ({ viewer, repo }, form, id) => {
      const pull = await ctx.pulls.get(repo, id);
      const wanted = checkedNames(form, 'reviewer.');
      const current = await ctx.reviews.requested(pull);
      const added = wanted.filter((name) => !current.includes(name));
      const removed = current.filter((name) => !wanted.includes(name));
      if (added.length) await ctx.reviews.request(repo, viewer, pull, added, true);
      if (removed.length) await ctx.reviews.request(repo, viewer, pull, removed, false);
      return '#reviews';
    }),
  );

  app.post('/:owner/:repo/pulls/:number/reviews', (event) =>
    reviewForm(event, async ({ viewer, repo }, form, pull) => `#review-${(await ctx.reviews.finish(repo, viewer, pull, { body: form.body, event: form.event })).id}`),
  );

  app.post('/:owner/:repo/pulls/:number/files/comments/:id/apply', (event) =>
    reviewForm(event, async ({ viewer, repo }, _form, pull) => {
      await ctx.suggestions.apply(repo, viewer, pull, idParam(event, 'id'));
      return '/files';
    }),
  );

  app.post('/:owner/:repo/pulls/:number/files/comments/:id/resolve', (event) =>
    reviewForm(event, async ({ viewer, repo }, form, pull) => {
      const id = idParam(event, 'id');
      const resolved = form.resolved !== '0';
      await ctx.reviews.setResolved(repo, viewer, pull, id, resolved);
      // At the folded thread itself: an address inside it would unfold it again.
      return `/files#${resolved ? 't' : 'r'}${id}`;
    }),
  );

  // A file marked viewed (or not) by the viewer: back at the file, folded once viewed.
  app.post('/:owner/:repo/pulls/:number/files/viewed', (event) =>
    reviewForm(event, async ({ viewer, repo }, form, pull) => {
      await ctx.reviews.setViewed(repo, viewer, pull, form.path, form.viewed !== '0');
      const index = Number(form.index);
      return `/files${Number.isSafeInteger(index) && index >= 0 ? `#diff-${index + 1}` : ''}`;
    }),
  );

  // Dismissing an approval or a request for changes, with the message the API takes: on the conversation tab.
  app.post('/:owner/:repo/pulls/:number/reviews/:id/dismiss', (event) =>
    pullForm(event, async ({ viewer, repo }, form, number) => {
      const id = idParam(event, 'id');
      await ctx.reviews.dismiss(repo, viewer, await ctx.pulls.get(repo, number), id, form.message);
      return `#review-${id}`;
    }),
  );

  // Refusals (conflicts, required checks: 405; head moved: 409) come back as the page with the service's message.
  app.post('/:owner/:repo/pulls/:number/merge', (event) =>
    pullForm(event, async ({ viewer, repo }, form, id) => {
      await ctx.pulls.merge(repo, viewer, id, { method: form.method, title: form.title, message: form.message, headSha: form.head_sha, deleteBranch: form.delete_branch });
    }),
  );
}
