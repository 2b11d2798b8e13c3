import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { invalid, isRepoHostError, notFound } from '../../../errors.js';
import type { IssueFilter, IssueRow } from '../../../store/queries/issues.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { parseIssueFilter } from '../../../services/issues.js';
import { atLeast } from '../../../services/permissions.js';
import { FIRST_HUNDRED, NO_ITEMS, type PageWindow } from '../../../store/queries/page-window.js';
import type { UserRow } from '../../../store/queries/users.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { issueListView, issueView, labelsView, newIssueView } from '../../pages/issues-view.js';
import { repoBase } from '../../pages/repo-layout.js';
import { pageOf } from '../../pagination.js';
import { idParam, queryString } from '../../validate.js';
import { redirectTo } from '../web.js';
import { mountConversationForms, type ConversationForm } from './conversation-forms.js';
import { commentWindow, conversationReactions, timelineOfCommentPage, repoForm, repoPageRequest, type RepoPageRequest } from './page-request.js';
import { triageOf } from './triage.js';
import { readThread } from '../../notification-count.js';

type CommentWindow = ReturnType<typeof commentWindow>;

/** Qualifiers that would take a search out of the issue list's repository or kind. */
const OUT_OF_SCOPE = /(?:^|\s)(?:(?:repo|user|org):|(?:is|type):(?:pr|pull-request)\b)/i;
/** The longest search the issue list takes (GitHub's search takes 256 characters). */
const MAX_QUERY = 200;

/** A page of an issue list, the counts of its state tabs, and why a search could not run. */
interface ListedIssues {
  items: IssueRow[];
  total: number;
  counts: { open: number; closed: number };
  error?: string;
}

/** The issue a page address numbers, or the 404 page. */
async function issueNumbered(ctx: AppContext, repo: RepositoryRow, number: number): Promise<IssueRow> {
  const issue = await ctx.issues.byNumber(repo, number);
  if (!issue) throw notFound('Issue not found');
  return issue;
}

/** The issue page of a request, the viewer's rights on it decided by the services' rules (author or write access). */
async function renderIssue(ctx: AppContext, request: RepoPageRequest, number: number, window: CommentWindow, error?: string): Promise<string> {
  const { viewer, user, repo, access } = request;
  const issue = await issueNumbered(ctx, repo, number);
  const comments = (await ctx.issues.comments(repo, issue.id, window)).items;
  const commentAt = async (offset: number) => (await ctx.issues.comments(repo, issue.id, { limit: 1, offset })).items[0]?.created_at;
  return issueView(
    user,
    repo,
    access,
    {
      issue,
      comments,
      timeline: await timelineOfCommentPage(ctx, request, issue.number, window, { comments, total: issue.comments }, commentAt),
      commentPage: window.page,
      labels: (await ctx.labels.list(repo, FIRST_HUNDRED)).items,
      canChangeState: viewer !== undefined && (viewer.username === issue.author || atLeast(access, 'write')),
      canLabel: atLeast(access, 'write'),
      canEdit: (author) => viewer !== undefined && (viewer.username === author || atLeast(access, 'write')),
      triage: await triageOf(ctx, request, issue.number),
      reactions: await conversationReactions(ctx, repo, issue.number, comments.map((comment) => comment.id)),
    },
    error,
  );
}

/** Issue pages: the list with filters, a new issue, the conversation, labels. */
export function mountIssuePages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  app.get('/:owner/:repo/issues', async (event) => {
    const { viewer, user, repo, access } = await repoPageRequest(ctx, guard, event);
    const filter = parseIssueFilter({ status: queryString(event, 'status') === 'closed' ? 'closed' : 'open', labels: queryString(event, 'labels') });
    const page = pageOf(ctx, event);
    const query = (queryString(event, 'q') ?? '').trim().slice(0, MAX_QUERY);
    const listed = query ? await searchedIssues(viewer, repo, filter, query, page) : await filteredIssues(repo, filter, page);
    return htmlResponse(
      issueListView(user, repo, access, {
        status: filter.status ?? 'open',
        counts: listed.counts,
        issues: listed.items.map((issue) => ctx.issues.summary(issue)),
        labels: (await ctx.labels.list(repo, FIRST_HUNDRED)).items,
        filter: filter.labels,
        query,
        error: listed.error,
        page: page.page,
        limit: page.limit,
        total: listed.total,
      }),
    );
  });

  /** A page of the issues the state and label filters leave, and the counts of each state. */
  async function filteredIssues(repo: RepositoryRow, filter: IssueFilter, page: PageWindow): Promise<ListedIssues> {
    const { items, total } = await ctx.issues.list(repo, filter, page);
    const counts = {
      open: (await ctx.issues.list(repo, { ...filter, status: 'open' }, NO_ITEMS)).total,
      closed: (await ctx.issues.list(repo, { ...filter, status: 'closed' }, NO_ITEMS)).total,
    };
    return { items, total, counts };
  }

  /**
   * The same with a search (`q`): words in titles and bodies and GitHub's qualifiers (author:, assignee:, milestone:,
   * label:, no:…), through the issue search of /search/issues in this repository. A query it cannot run says why.
   */
  async function searchedIssues(viewer: UserRow | undefined, repo: RepositoryRow, filter: IssueFilter, query: string, page: PageWindow): Promise<ListedIssues> {
    const scope = `repo:${repo.owner_name}/${repo.name} is:issue ${filter.labels.map((name) => `label:"${name}"`).join(' ')} ${query}`;
    const run = (state: 'open' | 'closed', window: PageWindow) => ctx.search.issues(viewer, `${scope} is:${state}`, undefined, undefined, window);
    try {
      // The list is this repository's issues: a query may narrow it, never widen it to other repositories or kinds.
      if (OUT_OF_SCOPE.test(query)) throw invalid('The issue list searches the issues of this repository: leave out repo:, user:, org: and is:pr');
      const { items: hits, total } = await run(filter.status ?? 'open', page);
      const counts = { open: (await run('open', NO_ITEMS)).total, closed: (await run('closed', NO_ITEMS)).total };
      return { items: await ctx.issues.byIds(repo, hits.map((hit) => hit.id)), total, counts };
    } catch (error) {
      if (isRepoHostError(error) && error.kind === 'invalid') return { items: [], total: 0, counts: { open: 0, closed: 0 }, error: error.message };
      throw error;
    }
  }

  app.get('/:owner/:repo/issues/new', async (event) => {
    // The repository first: an invisible one is a 404 before anyone is asked to sign in.
    const { user, repo, access } = await repoPageRequest(ctx, guard, event);
    if (!user) return redirectTo('/login');
    return htmlResponse(newIssueView(user, repo, access));
  });

  app.post('/:owner/:repo/issues/new', (event) =>
    repoForm(
      ctx,
      guard,
      event,
      async ({ viewer, repo }, form) => {
        const issue = await ctx.issues.create(repo, viewer, { title: form.title, body: form.body });
        return redirectTo(`${repoBase(repo)}/issues/${issue.number}`);
      },
      ({ user, repo, access }, message, form) => newIssueView(user!, repo, access, message, { title: String(form.title ?? ''), body: String(form.body ?? '') }),
    ),
  );

  app.get('/:owner/:repo/issues/:number', async (event) => {
    const request = await repoPageRequest(ctx, guard, event);
    const number = idParam(event, 'number');
    // Issues and pull requests share the numbers: a pull request's number leads to it, as on GitHub.
    if (!await ctx.issues.byNumber(request.repo, number) && await ctx.pulls.byNumber(request.repo, number)) return redirectTo(`${repoBase(request.repo)}/pulls/${number}`);
    // Reading the issue reads its notification.
    await readThread(ctx, request, number);
    return htmlResponse(await renderIssue(ctx, request, number, commentWindow(event)));
  });

  /** A form on the issue page: back to the issue (at `anchor` if the action names one), or the page with the error. */
  const issueForm: ConversationForm = (event, action) =>
    repoForm(
      ctx,
      guard,
      event,
      async (request, form) => {
        const issue = await issueNumbered(ctx, request.repo, idParam(event, 'number'));
        const anchor = await action(request, form, issue.id);
        return redirectTo(`${repoBase(request.repo)}/issues/${issue.number}${anchor ?? ''}`);
      },
      (request, message) => renderIssue(ctx, request, idParam(event, 'number'), commentWindow(event), message),
    );

  mountConversationForms(app, 'issues', ctx.issues, issueForm, { assignees: ctx.assignees, milestones: ctx.milestones });

  // Checkboxes named `label_<id>` carry label names: the form replaces the issue's set.
  app.post('/:owner/:repo/issues/:number/labels', (event) =>
    issueForm(event, async ({ viewer, repo }, form, id) => {
      const names = Object.entries(form).filter(([key, value]) => key.startsWith('label_') && typeof value === 'string').map(([, value]) => value as string);
      await ctx.labels.setOnIssue(repo, viewer, await ctx.issues.get(repo, id), names, true);
    }),
  );

  const renderLabels = async ({ viewer, user, repo, access }: RepoPageRequest, error?: string) =>
    labelsView(user, repo, access, (await ctx.labels.list(repo, FIRST_HUNDRED)).items, viewer !== undefined && atLeast(access, 'write'), error);

  app.get('/:owner/:repo/labels', async (event) => htmlResponse(await renderLabels(await repoPageRequest(ctx, guard, event))));

  app.post('/:owner/:repo/labels', (event) =>
    repoForm(
      ctx,
      guard,
      event,
      async ({ viewer, repo }, form) => {
        await ctx.labels.create(repo, viewer, form);
        return redirectTo(`${repoBase(repo)}/labels`);
      },
      renderLabels,
    ),
  );

  app.post('/:owner/:repo/labels/:label_id/delete', (event) =>
    repoForm(
      ctx,
      guard,
      event,
      async ({ viewer, repo }) => {
        await ctx.labels.remove(repo, viewer, idParam(event, 'label_id'));
        return redirectTo(`${repoBase(repo)}/labels`);
      },
      renderLabels,
    ),
  );
}
