import type { Readable } from 'node:stream';
import { HTTPResponse, type H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { notFound } from '../../../errors.js';
import { atLeast, type AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import type { UserRow } from '../../../store/queries/users.js';
import { currentUser } from '../../auth.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { COMMENTS_PER_PAGE, type ConversationReactions, type PageTimeline } from '../../pages/conversation.js';
import type { PageUser } from '../../pages/html.js';
import { unreadOf } from '../../notification-count.js';
import { pathParam, queryString, readForm, type FormFields } from '../../validate.js';
import type { PageWindow } from '../../../store/queries/page-window.js';

import { formAction, signedInOrLogin } from '../web.js';

/** Who is looking at a repository page, what they may do there, and what the page knows of them. */
export interface RepoPageRequest {
  viewer: UserRow | undefined;
  /** The viewer as pages see it: name and the request-forgery token of their forms. */
  user: PageUser | undefined;
  repo: RepositoryRow;
  /** From lib/services/permissions.ts: the one answer for every page. */
  access: AccessLevel;
}

/** The page user of a signed-in viewer. */
export function pageUserOf(guard: RequestForgeryGuard, event: H3Event, viewer: UserRow): PageUser;
export function pageUserOf(guard: RequestForgeryGuard, event: H3Event, viewer: UserRow | undefined): PageUser | undefined;
export function pageUserOf(guard: RequestForgeryGuard, event: H3Event, viewer: UserRow | undefined): PageUser | undefined {
  return viewer && { username: viewer.username, csrf: guard.tokenOf(event), unread: unreadOf(event) };
}

/**
 * The repository of `/:owner/:repo/...` if the viewer has at least `needed` on it; otherwise 404, so private
 * repositories never leak and pages above the viewer's access (settings) do not show they exist.
 */
export async function repoPageRequest(ctx: AppContext, guard: RequestForgeryGuard, event: H3Event, needed: AccessLevel = 'read'): Promise<RepoPageRequest> {
  const viewer = await currentUser(ctx, event);
  const repo = await ctx.repos.visibleByName(viewer, pathParam(event, 'owner'), pathParam(event, 'repo'));
  const access = await ctx.repos.access(viewer, repo);
  if (!atLeast(access, needed)) throw notFound('Not found');
  return { viewer, user: pageUserOf(guard, event, viewer), repo, access };
}

/**
 * Runs a form posted from a repository page by a signed-in viewer: anonymous visitors go to the sign-in page, an
 * expected refusal re-renders `rerender` with the message and its status. Viewers below `needed` get 404 first, so
 * nothing of a page they may not see is ever rendered for them.
 */
export async function repoForm(
  ctx: AppContext,
  guard: RequestForgeryGuard,
  event: H3Event,
  action: (request: RepoPageRequest & { viewer: UserRow; user: PageUser }, form: FormFields) => Promise<Response>,
  rerender: (request: RepoPageRequest, message: string, form: FormFields) => Promise<string> | string,
  needed: AccessLevel = 'read',
): Promise<Response> {
  const form = await readForm(event, ctx.options.maxBodyBytes);
  // The repository first: an invisible one is a 404 before anyone is asked to sign in.
  const request = await repoPageRequest(ctx, guard, event, needed);
  const signedIn = await signedInOrLogin(ctx, event, form);
  if (signedIn instanceof Response) return signedIn;
  const withViewer = { ...request, viewer: signedIn, user: request.user! };
  return formAction(form, () => action(withViewer, form), (message) => rerender(request, message, form));
}

/** The page of a conversation the address asks for (a bad value is the first page). */
export function commentWindow(event: H3Event): PageWindow & { page: number } {
  const asked = Number(queryString(event, 'page'));
  const page = Number.isSafeInteger(asked) && asked >= 1 && asked <= 1_000_000 ? asked : 1;
  return { page, limit: COMMENTS_PER_PAGE, offset: (page - 1) * COMMENTS_PER_PAGE };
}

/**
 * The events one page of a conversation shows between its comments, those the viewer may see: after the previous
 * page's last comment, up to this page's last comment when more pages follow, so each event is on exactly one page.
 * `commentAt(offset)` reads the time of the conversation's comment at that offset.
 */
export async function timelineOfCommentPage(
  ctx: AppContext,
  request: Pick<RepoPageRequest, 'viewer' | 'repo'>,
  number: number,
  window: PageWindow,
  page: { comments: ReadonlyArray<{ created_at: string }>; total: number },
  commentAt: (offset: number) => Promise<string | undefined>,
): Promise<PageTimeline> {
  // A page past the last comment's has nothing to show.
  if (window.offset > 0 && page.comments.length === 0) return { events: [], sources: new Map() };
  const after = window.offset > 0 ? await commentAt(window.offset - 1) : undefined;
  const until = window.offset + page.comments.length < page.total ? page.comments.at(-1)?.created_at : undefined;
  return await ctx.issues.visibleTimeline(request.viewer, await ctx.issues.eventsBetween(request.viewer, request.repo, number, after, until));
}

/** Where a new comment lands: the conversation's last page, at the comment. */
export function lastCommentAnchor(total: number, commentId: number): string {
  const last = Math.max(1, Math.ceil(total / COMMENTS_PER_PAGE));
  return `${last > 1 ? `?page=${last}` : ''}#comment-${commentId}`;
}

/** What a diff or patch download is: plain text, never run as a page of this host (sandboxed, no sniffing). */
const TEXT_DOWNLOAD_HEADERS = {
  'content-type': 'text/plain; charset=utf-8',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'private, max-age=60',
};

/** A diff or patch streamed from git as it writes it (`.diff` / `.patch` addresses of commits, pulls, comparisons). */
export function textDownload(body: Readable): HTTPResponse {
  return new HTTPResponse(body as unknown as BodyInit, { headers: TEXT_DOWNLOAD_HEADERS });
}

/** The reactions a conversation page shows: to the issue or pull request (by number) and to its comments shown, two queries. */
export async function conversationReactions(ctx: AppContext, repo: RepositoryRow, number: number, commentIds: readonly number[]): Promise<ConversationReactions> {
  const [opening, comments] = await Promise.all([ctx.reactions.countsOf(repo, 'issue', [number]), ctx.reactions.countsOf(repo, 'comment', commentIds)]);
  return { opening: opening.get(number), comments };
}
