import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { requireUser } from '../http/auth.js';
import { pathParam, queryString } from '../http/validate.js';
import { notificationTime } from '../services/notifications.js';
import type { NotificationFilter, NotificationRow } from '../store/queries/notifications.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { githubTime } from '../github/time.js';
import type { GitHubRepository } from '../github/types.js';
import { githubPage, readJson, validationFailed } from './http.js';
import { apiUrl, REPO, repoOf, repositoriesFor, V3 } from './lookup.js';

/** GitHub's answer to marking threads read: 205 Reset Content, no body. */
const resetContent = () => new Response(null, { status: 205 });

function flag(event: H3Event, name: string): boolean {
  const value = queryString(event, name);
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw validationFailed({ resource: 'Notification', field: name, code: 'invalid' });
}

/** The filters of GitHub's notification lists (`all`, `participating`, `since`, `before`). */
function filterOf(event: H3Event, repoId?: number): NotificationFilter {
  return {
    all: flag(event, 'all'),
    participating: flag(event, 'participating'),
    repoId,
    since: notificationTime('since', queryString(event, 'since')),
    before: notificationTime('before', queryString(event, 'before')),
  };
}

/**
 * Notifications, as GitHub's REST API serves them to the signed-in account: its threads (an issue or pull request
 * each), all or of one repository, marked read one by one or up to a time, or done.
 */
export function mountNotifications(app: H3, ctx: AppContext): void {
  const thread = (row: NotificationRow, repo: RepositoryRow, repository: GitHubRepository) => {
    const subject = apiUrl(ctx, repo, `/${row.kind === 'pull' ? 'pulls' : 'issues'}/${row.number}`);
    const url = `${ctx.baseUrl()}${V3}/notifications/threads/${row.id}`;
    return {
      id: String(row.id),
      unread: row.unread === 1,
      reason: row.reason,
      updated_at: githubTime(row.updated_at),
      last_read_at: row.last_read_at === null ? null : githubTime(row.last_read_at),
      subject: { title: row.title ?? '', url: subject, latest_comment_url: subject, type: row.kind === 'pull' ? 'PullRequest' : 'Issue' },
      repository,
      url,
      subscription_url: `${url}/subscription`,
    };
  };
  /** The page's threads as GitHub shows them: each repository shaped once (the rows are only of readable ones). */
  const threads = async (rows: readonly NotificationRow[], user: UserRow) => {
    const repos = await ctx.notifications.repositoriesOf(rows);
    const shaped = new Map((await repositoriesFor(ctx, [...repos.values()], user)).map((repository) => [repository.id, repository]));
    return rows.flatMap((row) => (repos.has(row.repo_id) ? [thread(row, repos.get(row.repo_id)!, shaped.get(row.repo_id)!)] : []));
  };
  const list = async (event: H3Event, user: UserRow, repoId?: number) => {
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.notifications.list(user, filterOf(event, repoId), page);
    return page.respond(total, await threads(items, user));
  };
  const markAll = async (event: H3Event, user: UserRow, repoId?: number) => {
    const body = await readJson(ctx, event);
    if (body.read === false) throw validationFailed({ resource: 'Notification', field: 'read', code: 'invalid', message: 'repohost only marks notifications read' });
    if (body.last_read_at !== undefined && typeof body.last_read_at !== 'string') throw validationFailed({ resource: 'Notification', field: 'last_read_at', code: 'invalid' });
    const upTo = notificationTime('last_read_at', body.last_read_at as string | undefined);
    await ctx.notifications.markAllRead(user, upTo, repoId);
    return resetContent();
  };
  const threadId = (event: H3Event) => {
    const raw = pathParam(event, 'thread_id');
    return /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  };

  app.get(`${V3}/notifications`, async (event) => await list(event, await requireUser(ctx, event)));
  app.put(`${V3}/notifications`, async (event) => await markAll(event, await requireUser(ctx, event)));

  app.get(`${REPO}/notifications`, async (event) => {
    const user = await requireUser(ctx, event);
    return await list(event, user, (await repoOf(ctx, event)).id);
  });
  app.put(`${REPO}/notifications`, async (event) => {
    const user = await requireUser(ctx, event);
    return await markAll(event, user, (await repoOf(ctx, event)).id);
  });

  app.get(`${V3}/notifications/threads/:thread_id`, async (event) => {
    const user = await requireUser(ctx, event);
    return (await threads([await ctx.notifications.thread(user, threadId(event))], user))[0];
  });
  // Every thread of the inbox is subscribed (repohost keeps no other subscription state).
  app.get(`${V3}/notifications/threads/:thread_id/subscription`, async (event) => {
    const row = await ctx.notifications.thread(await requireUser(ctx, event), threadId(event));
    const url = `${ctx.baseUrl()}${V3}/notifications/threads/${row.id}`;
    return { subscribed: true, ignored: false, reason: null, created_at: githubTime(row.updated_at), url: `${url}/subscription`, thread_url: url };
  });
  app.patch(`${V3}/notifications/threads/:thread_id`, async (event) => {
    await ctx.notifications.markRead(await requireUser(ctx, event), threadId(event));
    return resetContent();
  });
  app.delete(`${V3}/notifications/threads/:thread_id`, async (event) => {
    await ctx.notifications.done(await requireUser(ctx, event), threadId(event));
    return new Response(null, { status: 204 });
  });
}
