import { getCookie, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { currentUser, SESSION_COOKIE } from './auth.js';
import type { PageUser } from './pages/html.js';

/**
 * Counts the signed-in viewer's unread notifications for the header of the page a browser asks for: one query, only
 * for GETs of pages by a session (not the APIs, git, assets or avatars).
 */
export function mountNotificationCount(app: H3, ctx: AppContext): void {
  app.use(async (event) => {
    if (event.req.method !== 'GET' || !getCookie(event, SESSION_COOKIE) || !(event.req.headers.get('accept') ?? '').includes('text/html')) return;
    if (/^\/(?:api|assets|avatars)\//.test(event.url.pathname)) return;
    const viewer = await currentUser(ctx, event);
    if (viewer) event.context.unreadNotifications = await ctx.notifications.unreadCount(viewer);
  });
}

/** Reads the viewer's thread of an issue or pull request (its page is open), and keeps the header's count right. */
export async function readThread(ctx: AppContext, request: { viewer: UserRow | undefined; user: PageUser | undefined; repo: RepositoryRow }, number: number): Promise<void> {
  if (!request.viewer || !(await ctx.notifications.sawConversation(request.viewer, request.repo, number))) return;
  if (request.user?.unread !== undefined) request.user.unread = Math.max(0, request.user.unread - 1);
}

/** What mountNotificationCount counted for this request, if anything. */
export function unreadOf(event: H3Event): number | undefined {
  return event.context.unreadNotifications as number | undefined;
}
