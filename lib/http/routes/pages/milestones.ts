import type { H3, H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { parseIssueFilter } from '../../../services/issues.js';
import { atLeast } from '../../../services/permissions.js';
import type { MilestoneListing } from '../../../store/queries/milestones.js';
import { FIRST_HUNDRED, NO_ITEMS } from '../../../store/queries/page-window.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { milestonesView, milestoneView, type MilestoneListModel } from '../../pages/milestones-view.js';
import { repoBase } from '../../pages/repo-layout.js';
import { milestoneUrl } from '../../pages/triage-view.js';
import { pageOf } from '../../pagination.js';
import { idParam, queryString, type FormFields } from '../../validate.js';
import { redirectTo } from '../web.js';
import { repoForm, repoPageRequest, type RepoPageRequest } from './page-request.js';

type State = 'open' | 'closed';

const stateOf = (event: H3Event): State => (queryString(event, 'state') === 'closed' ? 'closed' : 'open');
const listing = (state: State): MilestoneListing => ({ state, sort: 'due_on', direction: 'asc' });
/** A form's text, or undefined when left empty (the service then keeps or clears it). */
const optional = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/**
 * Milestone pages (Gitea's paths): `/milestones` lists them open or closed with their progress; `/milestone/:number`
 * shows one with its issues and pull requests. Writers create, close, reopen and delete them through MilestoneService
 * (the API's rules and events).
 */
export function mountMilestonePages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  async function renderList(request: RepoPageRequest, state: State, extra: Pick<MilestoneListModel, 'error' | 'values'> = {}): Promise<string> {
    const { user, repo, access } = request;
    const [shown, open, closed] = await Promise.all([
      ctx.milestones.list(repo, listing(state), FIRST_HUNDRED),
      ctx.milestones.list(repo, listing('open'), NO_ITEMS),
      ctx.milestones.list(repo, listing('closed'), NO_ITEMS),
    ]);
    return milestonesView(user, repo, access, { state, counts: { open: open.total, closed: closed.total }, milestones: shown.items, canManage: atLeast(access, 'write'), ...extra });
  }

  app.get('/:owner/:repo/milestones', async (event) => htmlResponse(await renderList(await repoPageRequest(ctx, guard, event), stateOf(event))));

  app.post('/:owner/:repo/milestones', (event) =>
    repoForm(
      ctx,
      guard,
      event,
      async ({ repo, viewer }, form) => {
        const dueDay = optional(form.due_on);
        const milestone = await ctx.milestones.create(repo, viewer, { title: form.title, description: optional(form.description), due_on: dueDay && `${dueDay}T00:00:00Z` });
        return redirectTo(milestoneUrl(repo, milestone));
      },
      (request, message, form: FormFields) => renderList(request, 'open', { error: message, values: { title: String(form.title ?? ''), description: String(form.description ?? ''), due_on: String(form.due_on ?? '') } }),
      'write',
    ),
  );

  app.get('/:owner/:repo/milestone/:number', async (event) => {
    const { user, repo, access } = await repoPageRequest(ctx, guard, event);
    const milestone = await ctx.milestones.get(repo, idParam(event, 'number'));
    const state = stateOf(event);
    const filter = (status: State) => ({ ...parseIssueFilter({ status }), milestoneNumber: milestone.number });
    const page = pageOf(ctx, event);
    const [shown, open, closed] = await Promise.all([
      ctx.issues.listWithPulls(repo, filter(state), page),
      ctx.issues.listWithPulls(repo, filter('open'), NO_ITEMS),
      ctx.issues.listWithPulls(repo, filter('closed'), NO_ITEMS),
    ]);
    return htmlResponse(milestoneView(user, repo, access, { milestone, state, items: shown.items, counts: { open: open.total, closed: closed.total }, canManage: atLeast(access, 'write'), page: page.page, limit: page.limit, total: shown.total }));
  });

  /** A writer's form on a milestone: back to the list, or the list with the error. */
  const milestoneForm = (event: H3Event, action: (request: RepoPageRequest, form: FormFields, number: number) => Promise<void>) =>
    repoForm(
      ctx,
      guard,
      event,
      async (request, form) => {
        await action(request, form, idParam(event, 'number'));
        return redirectTo(`${repoBase(request.repo)}/milestones`);
      },
      (request, message) => renderList(request, 'open', { error: message }),
      'write',
    );

  app.post('/:owner/:repo/milestone/:number/state', (event) =>
    milestoneForm(event, async ({ repo, viewer }, form, number) => {
      await ctx.milestones.update(repo, viewer, number, { state: form.state });
    }),
  );

  app.post('/:owner/:repo/milestone/:number/delete', (event) => milestoneForm(event, ({ repo, viewer }, _form, number) => ctx.milestones.remove(repo, viewer, number)));
}
