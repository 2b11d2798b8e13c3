import type { NotificationRow } from '../../store/queries/notifications.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { noticeBox, stateTabs } from './components.js';
import { pager, relativeTime } from './code/links.js';
import { csrfInput, html, page, type PageUser } from './html.js';

/** Why a thread is in the inbox, as a person reads it. */
const REASONS: Readonly<Record<NotificationRow['reason'], string>> = {
  assign: 'assigned to you',
  author: 'you opened it',
  comment: 'you commented',
  mention: 'you were mentioned',
  review_requested: 'your review was requested',
  state_change: 'you changed its state',
  subscribed: 'you watch the repository',
};

export interface NotificationsModel {
  /** `unread` (the default) or `all`. */
  show: 'unread' | 'all';
  threads: Array<NotificationRow & { repo: RepositoryRow }>;
  counts: { unread: number; all: number };
  page: number;
  limit: number;
  total: number;
  notice?: string;
}

/** `/notifications`: the viewer's inbox, unread first tab, each thread linked, marked read one by one or all at once. */
export function notificationsView(viewer: PageUser, model: NotificationsModel): string {
  const href = (show: string, target = 1) => `/notifications?show=${show}${target > 1 ? `&page=${target}` : ''}`;
  const rows = model.threads.map((thread) => {
    const path = `/${thread.repo.owner_name}/${thread.repo.name}/${thread.kind === 'pull' ? 'pulls' : 'issues'}/${thread.number}`;
    const kind = thread.kind === 'pull' ? 'Pull request' : 'Issue';
    return html`<li class="item${thread.unread === 1 ? ' unread' : ''}"><span class="muted">${thread.repo.owner_name}/${thread.repo.name} · ${kind} #${thread.number}</span>
<a class="item-title" href="${path}">${thread.title ?? `#${thread.number}`}</a>
<span class="muted">${REASONS[thread.reason]} · ${relativeTime(thread.updated_at) || thread.updated_at}</span>
${thread.unread === 1 ? html`<form method="post" action="/notifications/${thread.id}/read" class="inline">${csrfInput(viewer)}<button type="submit" aria-label="Mark as read: ${kind.toLowerCase()} #${thread.number} of ${thread.repo.name}">Mark as read</button></form>` : ''}
<form method="post" action="/notifications/${thread.id}/done" class="inline">${csrfInput(viewer)}<button type="submit" aria-label="Done: ${kind.toLowerCase()} #${thread.number} of ${thread.repo.name}">Done</button></form></li>`;
  });
  const empty = model.show === 'unread' ? 'No unread notifications.' : 'No notifications.';
  return page(
    'Notifications',
    viewer,
    html`<h1>Notifications</h1>${noticeBox(model.notice)}
<div class="list-head">${stateTabs('Notifications shown', [
      { label: 'Unread', count: model.counts.unread, href: href('unread'), active: model.show === 'unread' },
      { label: 'All', count: model.counts.all, href: href('all'), active: model.show === 'all' },
    ])}${model.counts.unread > 0 ? html`<form method="post" action="/notifications/read" class="inline">${csrfInput(viewer)}<button type="submit">Mark all as read</button></form>` : ''}</div>
${rows.length ? html`<ul class="items notifications">${rows}</ul>` : html`<p>${empty}</p>`}
${pager((target) => href(model.show, target), model.page, model.page * model.limit < model.total)}`,
  );
}
