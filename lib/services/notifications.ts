import { invalid, notFound } from '../errors.js';
import type { Db, WriteTx } from '../store/interface.js';
import {
  countNotifications,
  markNotificationDone,
  hasUnreadThread,
  markNotificationsRead,
  notificationOf,
  notificationsOf,
  notifyAccounts,
  participantsOf,
  readersAmong,
  threadHolders,
  watchersOf,
  type NotificationFilter,
  type NotificationReason,
  type NotificationRow,
} from '../store/queries/notifications.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { repositoriesWithIds, type RepositoryRow } from '../store/queries/repositories.js';
import { usersByNames, type UserRow } from '../store/queries/users.js';
import { mentionedUsernames } from './references.js';

/** What happened on an issue or pull request, as far as who hears of it goes. */
export interface ThreadNews {
  /** Text just written (a description, a comment, a review): the accounts it mentions are told (`mention`). */
  text?: string;
  /** Accounts told for a reason of their own: an assignee (`assign`), a requested reviewer (`review_requested`). */
  direct?: ReadonlyArray<{ userId: number; reason: NotificationReason }>;
  /**
   * Its author (`author`), those who commented or reviewed (`comment`), those told of it before (their reason: the
   * thread is theirs from then on, as on GitHub) and the repository's watchers (`subscribed`) too.
   */
  everyone?: boolean;
  /**
   * The write opens the thread: its author is the actor, nobody has commented, and nobody was told of it before
   * (numbers are never reused), so of `everyone` only the watchers are looked up.
   */
  opened?: boolean;
}

/**
 * Tells accounts of news on an issue or pull request, inside the write that made it: each gets the thread unread in
 * their inbox with the closest reason they have (direct, then mention, author, comment, subscribed). Nobody hears of
 * their own doing, nor of a private repository they may not read.
 */
export async function notifyThread(tx: WriteTx, repo: RepositoryRow, number: number, actorId: number | undefined, news: ThreadNews, now: string): Promise<void> {
  const recipients = new Map<number, NotificationReason>();
  const add = (userId: number, reason: NotificationReason) => {
    if (userId !== actorId && !recipients.has(userId)) recipients.set(userId, reason);
  };
  for (const { userId, reason } of news.direct ?? []) add(userId, reason);
  const names = news.text ? mentionedUsernames(news.text) : [];
  if (names.length > 0) for (const user of (await usersByNames(tx, names)).values()) add(user.id, 'mention');
  if (news.everyone) {
    if (!news.opened) {
      const { authorId, commenters } = await participantsOf(tx, repo.id, number);
      if (authorId !== undefined) add(authorId, 'author');
      for (const userId of commenters) add(userId, 'comment');
      for (const holder of await threadHolders(tx, repo.id, number)) add(holder.user_id, holder.reason);
    }
    for (const userId of await watchersOf(tx, repo.id)) add(userId, 'subscribed');
  }
  if (repo.is_private === 1) {
    const readers = await readersAmong(tx, repo, [...recipients.keys()]);
    for (const userId of [...recipients.keys()]) if (!readers.has(userId)) recipients.delete(userId);
  }
  await notifyAccounts(tx, recipients, repo.id, number, now);
}

/** An account's inbox: its threads, read and unread, and marking them read or done. */
export class NotificationService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
  ) {}

  async list(user: UserRow, filter: NotificationFilter, page: PageWindow): Promise<{ items: NotificationRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await notificationsOf(tx, user.id, filter, page), total: await countNotifications(tx, user.id, filter) }));
  }

  async count(user: UserRow, filter: NotificationFilter): Promise<number> {
    return await countNotifications(this.store, user.id, filter);
  }

  async unreadCount(user: UserRow): Promise<number> {
    return await this.count(user, { all: false, participating: false });
  }

  async thread(user: UserRow, id: number): Promise<NotificationRow> {
    const row = Number.isSafeInteger(id) ? await notificationOf(this.store, user.id, id) : undefined;
    if (!row) throw notFound('Not Found');
    return row;
  }

  async markRead(user: UserRow, id: number): Promise<void> {
    const thread = await this.thread(user, id);
    await this.store.write(async (tx) => await markNotificationsRead(tx, user.id, { id: thread.id }, this.now()));
  }

  /** Marks every thread (of one repository) updated up to `upTo` (now when absent) read, as read then. */
  async markAllRead(user: UserRow, upTo: string | undefined, repoId?: number): Promise<void> {
    await this.store.write(async (tx) => await markNotificationsRead(tx, user.id, { repoId }, upTo ?? this.now()));
  }

  /** Reading an issue or pull request reads its thread (only written when there is one unread); true if it was. */
  async sawConversation(user: UserRow, repo: RepositoryRow, number: number): Promise<boolean> {
    if (!(await hasUnreadThread(this.store, user.id, repo.id, number))) return false;
    return (await this.store.write(async (tx) => await markNotificationsRead(tx, user.id, { repoId: repo.id, number }, this.now()))) > 0;
  }

  /** GitHub's "mark as done": the thread leaves the inbox until something new happens on it. */
  async done(user: UserRow, id: number): Promise<void> {
    const thread = await this.thread(user, id);
    await this.store.write(async (tx) => await markNotificationDone(tx, user.id, thread.id));
  }

  /** The repositories of threads (already filtered to those the account may read), by id: one query. */
  async repositoriesOf(rows: readonly NotificationRow[]): Promise<Map<number, RepositoryRow>> {
    return new Map((await repositoriesWithIds(this.store, rows.map((row) => row.repo_id))).map((repo) => [repo.id, repo]));
  }
}

/** A time of a request (`since`, `before`, `last_read_at`) as stored, or a 400 naming it. */
export function notificationTime(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const time = Date.parse(value);
  if (!/^\d{4}-\d\d-\d\dT/.test(value) || !Number.isFinite(time)) throw invalid(`${field} must be an ISO 8601 timestamp`);
  return new Date(time).toISOString();
}
