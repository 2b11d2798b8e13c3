import { pager, relativeTime } from './code/links.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { timelineEvent } from './timeline-view.js';
import type { IssueEventRow } from '../../store/queries/issue-events.js';
import type { ReferenceSource } from '../../services/issues.js';

/** One message of an issue's or pull request's conversation: the opening text or a comment. */
export interface ConversationEntry {
  id?: number;
  author: string;
  created_at: string;
  body: string;
  /** Where the edit form posts, for a viewer the services let change this comment (its author or write access). */
  editAction?: string;
  /** The element id links land on (`comment-<id>` unless given: GitHub's commit comments are `commitcomment-<id>`). */
  anchor?: string;
  /** How many reactions of each content it has (GitHub's eight, by name). */
  reactions?: ReadonlyMap<string, number>;
}

/** The reactions of a conversation's page: to its opening text, and to each comment shown by its id. */
export interface ConversationReactions {
  opening: ReadonlyMap<string, number> | undefined;
  comments: ReadonlyMap<number, ReadonlyMap<string, number>>;
}

/** GitHub's reactions as its pages show them. */
const REACTION_EMOJI: ReadonlyArray<readonly [string, string]> = [
  ['+1', '👍'],
  ['-1', '👎'],
  ['laugh', '😄'],
  ['hooray', '🎉'],
  ['confused', '😕'],
  ['heart', '❤️'],
  ['rocket', '🚀'],
  ['eyes', '👀'],
];

/** The reactions of a message, each emoji with its count; nothing when it has none. */
function reactionsLine(counts: ReadonlyMap<string, number> | undefined): SafeHtml | '' {
  const shown = REACTION_EMOJI.filter(([content]) => (counts?.get(content) ?? 0) > 0);
  if (shown.length === 0) return '';
  return html`<p class="reactions" aria-label="Reactions">${shown.map(([content, emoji]) => html`<span class="reaction" title="${content}: ${counts!.get(content)!}">${emoji} ${counts!.get(content)!}</span> `)}</p>`;
}

/**
 * A Markdown text box of `repository` (`owner/name`): the page's script gives it a Preview, rendered by the server as
 * the text will be shown (POST /api/v3/markdown, in the repository's context).
 */
export function markdownBox(label: string, name: string, repository: string, value = '', options: { rows?: number; required?: boolean } = {}): SafeHtml {
  return html`<label>${label} (Markdown) <textarea name="${name}" rows="${options.rows ?? 5}"${options.required ? html` required` : ''} data-preview="${repository}">
${value}</textarea></label>`;
}

function editor(viewer: PageUser, item: ConversationEntry & { editAction: string }, repository: string): SafeHtml {
  return html`<details class="comment-edit"><summary>Edit</summary><form class="card wide" method="post" action="${item.editAction}">${csrfInput(viewer)}
${markdownBox('Comment', 'body', repository, item.body, { required: true })}<button type="submit">Save comment</button></form></details>`;
}

function entry(viewer: PageUser | undefined, item: ConversationEntry, repository: string): SafeHtml {
  const anchor = item.anchor ?? (item.id === undefined ? undefined : `comment-${item.id}`);
  return html`<article class="comment"${anchor === undefined ? '' : html` id="${anchor}"`}>
<header class="comment-head"><a href="/${item.author}"><strong>${item.author}</strong></a> commented ${relativeTime(item.created_at)}</header>
<div class="markdown">${item.body.trim() ? renderMarkdown(item.body, { repository }) : html`<p class="muted">No description provided.</p>`}</div>
${reactionsLine(item.reactions)}${viewer && item.editAction ? editor(viewer, { ...item, editAction: item.editAction }, repository) : ''}</article>`;
}

/** The events a page shows between its comments, and the sources of their cross-references (see timeline-view.ts). */
export interface PageTimeline {
  events: readonly IssueEventRow[];
  sources: ReadonlyMap<string, ReferenceSource>;
}

const NO_EVENTS: PageTimeline = { events: [], sources: new Map() };

/**
 * The conversation of an issue or pull request of `repository` (`owner/name`): each message rendered from Markdown
 * (raw HTML off, link schemes limited, references linked: see markdown.ts), and between them the `events` (labels,
 * assignees, closing, ...) in the order they happened.
 */
export function conversation(viewer: PageUser | undefined, items: readonly ConversationEntry[], repository: string, timeline: PageTimeline = NO_EVENTS): SafeHtml {
  const parts: Array<{ at: string; html: SafeHtml }> = [
    ...items.map((item) => ({ at: item.created_at, html: entry(viewer, item, repository) })),
    ...timeline.events.map((event) => ({ at: event.created_at, html: timelineEvent(event, `/${repository}`, timeline.sources) })),
  ];
  // Stable: at the same moment a message comes before an event (a comment that closes comes before the closing).
  parts.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  return html`<section aria-label="Conversation" class="conversation">${parts.map((part) => part.html)}</section>`;
}

/**
 * The comment form of a signed-in viewer; anonymous viewers are asked to sign in. A locked conversation says so, and
 * takes comments from writers only (`mayWrite`).
 */
export function commentForm(viewer: PageUser | undefined, action: string, repository: string, lock?: { locked: boolean; lock_reason: string | null; mayWrite: boolean }): SafeHtml {
  const locked = lock?.locked === true;
  const notice = locked ? html`<p class="notice locked">This conversation has been locked${lock.lock_reason ? html` as <strong>${lock.lock_reason}</strong>` : ''} and limited to collaborators.</p>` : '';
  if (locked && !lock.mayWrite) return html`${notice}`;
  if (!viewer) return html`<p><a href="/login">Sign in</a> to join this conversation.</p>`;
  return html`${notice}<form class="card wide" method="post" action="${action}">${csrfInput(viewer)}
${markdownBox('Comment', 'body', repository, '', { required: true })}
<button type="submit">Comment</button></form>`;
}

/** The form editing the title and opening text (`textField`: body or description), for the author or a writer. */
export function editTextForm(viewer: PageUser, action: string, repository: string, values: { title: string; text: string; textField: 'body' | 'description' }): SafeHtml {
  return html`<details class="edit-text"><summary>Edit title and description</summary><form method="post" action="${action}/edit" class="card wide">${csrfInput(viewer)}
<label>Title <input name="title" required maxlength="255" value="${values.title}"></label>
${markdownBox('Description', values.textField, repository, values.text, { rows: 6 })}<button type="submit">Save</button></form></details>`;
}

/** The close/reopen button of an issue or pull request (`noun`), for those the services let change it. */
export function stateToggle(viewer: PageUser, action: string, status: string, noun: string): SafeHtml {
  const next = status === 'open' ? 'closed' : 'open';
  return html`<form method="post" action="${action}/state">${csrfInput(viewer)}<input type="hidden" name="status" value="${next}">
<button type="submit">${next === 'closed' ? 'Close' : 'Reopen'} ${noun}</button></form>`;
}

/** Comments shown per conversation page (the routes read the same number). */
export const COMMENTS_PER_PAGE = 100;

/** Links to the other pages of a long conversation. */
export function commentPager(action: string, page: number, total: number): SafeHtml | '' {
  return pager((target) => `${action}?page=${target}`, page, page * COMMENTS_PER_PAGE < total);
}
