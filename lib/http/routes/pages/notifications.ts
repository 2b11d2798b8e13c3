import type { H3, H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import type { UserRow } from '../../../store/queries/users.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { notificationsView } from '../../pages/notifications-view.js';
import { idParam, queryString, readForm } from '../../validate.js';
import { redirectTo, signedInOrLogin } from '../web.js';
import { pageUserOf } from './page-request.js';

const PER_PAGE = 25;

/** The signed-in account's inbox at `/notifications` (a reserved name), and its forms. */
export function mountNotificationPages(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  app.get('/notifications', async (event) => {
    const user = await signedInOrLogin(ctx, event);
    if (user instanceof Response) return user;
    const show = queryString(event, 'show') === 'all' ? 'all' : 'unread';
    const asked = Number(queryString(event, 'page'));
    const pageNumber = Number.isSafeInteger(asked) && asked >= 1 && asked <= 100_000 ? asked : 1;
    const window = { limit: PER_PAGE, offset: (pageNumber - 1) * PER_PAGE };
    const { items, total } = await ctx.notifications.list(user, { all: show === 'all', participating: false }, window);
    const unread = show === 'unread' ? total : await ctx.notifications.unreadCount(user);
    const all = show === 'all' ? total : await ctx.notifications.count(user, { all: true, participating: false });
    const repos = await ctx.notifications.repositoriesOf(items);
    const threads = items.flatMap((row) => (repos.has(row.repo_id) ? [{ ...row, repo: repos.get(row.repo_id)! }] : []));
    return htmlResponse(notificationsView(pageUserOf(guard, event, user), { show, threads, counts: { unread, all }, page: pageNumber, limit: PER_PAGE, total }));
  });

  /** A form of the inbox: signed in and carrying its token, then back to the inbox. */
  const inboxForm = (work: (user: UserRow, event: H3Event) => Promise<void>) => async (event: H3Event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const user = await signedInOrLogin(ctx, event, form);
    if (user instanceof Response) return user;
    await work(user, event);
    return redirectTo('/notifications');
  };
  app.post('/notifications/read', inboxForm(async (user) => await ctx.notifications.markAllRead(user, undefined)));
  app.post('/notifications/:id/read', inboxForm(async (user, event) => await ctx.notifications.markRead(user, idParam(event, 'id'))));
  app.post('/notifications/:id/done', inboxForm(async (user, event) => await ctx.notifications.done(user, idParam(event, 'id'))));
}
