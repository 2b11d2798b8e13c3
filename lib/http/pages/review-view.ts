import type { ChangedFile } from '../../git/diff.js';
import { suggestionOf } from '../../services/suggestions.js';
import type { ReviewCommentRow, ReviewRow, ThreadResolution } from '../../store/queries/reviews.js';
import { relativeTime } from './code/links.js';
import { markdownBox } from './conversation.js';
import { patchRows, viewQuery, type DiffReview, type DiffSide, type DiffView } from './diff-view.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { renderMarkdown } from './markdown.js';

/**
 * Where a new comment was asked for: on a line (`?comment=3R12`: file 3 of the page, right side, line 12) or on a
 * whole file (`?comment=3F`).
 */
export type LineAsked = { index: number; side: DiffSide; line: number } | { index: number; file: true };

const SIDE_LETTER: Record<DiffSide, string> = { LEFT: 'L', RIGHT: 'R' };

/** `3R12` → file 3, right side, line 12; `3F` → file 3 itself; undefined for anything else. */
export function parseLineAsked(value: string | undefined): LineAsked | undefined {
  const onFile = /^(\d{1,4})F$/.exec(value ?? '');
  if (onFile) return { index: Number(onFile[1]), file: true };
  const match = /^(\d{1,4})([LR])(\d{1,9})$/.exec(value ?? '');
  return match ? { index: Number(match[1]), side: match[2] === 'L' ? 'LEFT' : 'RIGHT', line: Number(match[3]) } : undefined;
}

const lineKey = (index: number, side: DiffSide, line: number) => `${index}${SIDE_LETTER[side]}${line}`;

/** What the files tab's review needs to know of the viewer and the pull request. */
export interface ReviewContext {
  viewer: PageUser | undefined;
  /** `owner/name`, the context of the comments' Markdown. */
  repository: string;
  /** `/owner/repo/pulls/N`. */
  action: string;
  comments: readonly ReviewCommentRow[];
  /** The pull request's head commit: comments made on an older one are outdated. */
  headSha: string;
  asked?: LineAsked;
  /** How the diff is shown, kept by the comment links. */
  view?: DiffView;
  /** The files the viewer has viewed as they are now (folded, with their "Viewed" pressed). */
  viewed?: ReadonlySet<string>;
  /** The lines of the file shown with all its lines (its index) that are part of the diff: only those take comments. */
  commentable?: { index: number; places: ReadonlySet<string> };
  /** Whether the viewer may commit a suggestion to the head branch (write access, an open pull request). */
  canApply: boolean;
  /** Whether the viewer may resolve threads (the pull request's author, or write access). */
  canResolve: boolean;
  /** The resolved threads, by their first comment. */
  resolutions: ReadonlyMap<number, ThreadResolution>;
  pending?: ReviewRow;
}

function commentHtml(context: ReviewContext, comment: ReviewCommentRow): SafeHtml {
  const pending = context.pending !== undefined && comment.review_id === context.pending.id;
  const outdated = comment.commit_id !== context.headSha;
  const apply =
    context.canApply && context.viewer && !pending && !outdated && comment.line !== null && comment.side === 'RIGHT' && suggestionOf(comment.body) !== undefined
      ? html`<form method="post" action="${context.action}/files/comments/${comment.id}/apply" class="inline">${csrfInput(context.viewer)}<button type="submit">Commit suggestion</button></form>`
      : '';
  const range =
    comment.line === null
      ? html` <span class="muted">on the file</span>`
      : comment.start_line !== null && comment.start_line !== comment.line
        ? html` <span class="muted">on lines ${comment.start_line} to ${comment.line}</span>`
        : '';
  return html`<article class="comment review-comment" id="r${comment.id}"><header class="comment-head"><strong>${comment.author}</strong>${range} ${relativeTime(comment.created_at)}${pending ? html` <span class="badge">Pending</span>` : ''}${outdated ? html` <span class="badge">Outdated</span>` : ''}</header>
<div class="markdown">${renderMarkdown(comment.body, { repository: context.repository })}</div>${apply}</article>`;
}

/**
 * Threads under one line: each first comment with its replies, and a reply box (once the thread is submitted). A
 * resolved thread is folded away under who resolved it; the author or a writer resolves and unresolves.
 */
function threadsHtml(context: ReviewContext, thread: readonly ReviewCommentRow[], replies: ReadonlyMap<number, ReviewCommentRow[]>): SafeHtml {
  return html`${thread.map((first) => {
    const submitted = first.review_id !== context.pending?.id;
    const resolution = context.resolutions.get(first.id);
    const toggle =
      context.viewer && context.canResolve && submitted
        ? html`<form method="post" action="${context.action}/files/comments/${first.id}/resolve" class="inline">${csrfInput(context.viewer)}<input type="hidden" name="resolved" value="${resolution ? '0' : '1'}"><button type="submit">${resolution ? 'Unresolve conversation' : 'Resolve conversation'}</button></form>`
        : '';
    const body = html`${commentHtml(context, first)}${(replies.get(first.id) ?? []).map((reply) => commentHtml(context, reply))}
${context.viewer && submitted ? html`<form method="post" action="${context.action}/files/comments" class="card wide reply">${csrfInput(context.viewer)}<input type="hidden" name="in_reply_to" value="${first.id}">
${markdownBox('Reply', 'body', context.repository, '', { rows: 2, required: true })}<button type="submit">Reply</button></form>` : ''}${toggle}`;
    return resolution
      ? html`<details class="review-thread resolved" id="t${first.id}"><summary>Conversation resolved by <strong>${resolution.resolved_by ?? 'ghost'}</strong> ${relativeTime(resolution.resolved_at)}</summary>${body}</details>`
      : html`<div class="review-thread">${body}</div>`;
  })}`;
}

/** Most earlier lines a comment's range may start at (GitHub's multi-line comments stay within one hunk). */
const MAX_RANGE_STARTS = 30;

/** The lines on `side` of the hunk holding `line` that come before it, nearest last: where a range ending at `line` may start. */
function rangeStarts(patch: string | undefined, side: DiffSide, line: number): number[] {
  let earlier: number[] = [];
  for (const row of patchRows(patch ?? '')) {
    if (row.kind === 'hunk') earlier = [];
    if (row.kind !== 'add' && row.kind !== 'del' && row.kind !== 'ctx') continue;
    const place = row.kind === 'del' ? { side: 'LEFT', line: row.old! } : { side: 'RIGHT', line: row.new! };
    if (place.side !== side) continue;
    if (place.line === line) return earlier.slice(-MAX_RANGE_STARTS);
    earlier.push(place.line);
  }
  return [];
}

/**
 * The form to comment on one line, or on a range of the hunk ending at it: a single comment, or one kept in the
 * viewer's review until it is submitted.
 */
function lineForm(context: ReviewContext, file: ChangedFile, index: number, side: DiffSide, line: number): SafeHtml {
  const starts = rangeStarts(file.patch, side, line);
  return html`<form method="post" action="${context.action}/files/comments" class="card wide line-comment" id="c${lineKey(index, side, line)}">${csrfInput(context.viewer)}
<input type="hidden" name="path" value="${file.filename}"><input type="hidden" name="side" value="${side}"><input type="hidden" name="line" value="${line}">
${starts.length ? html`<label>From <select name="start_line"><option value="">line ${line} only</option>${starts.map((start) => html`<option value="${start}">line ${start} to ${line}</option>`)}</select></label>` : ''}
${markdownBox(`Comment on ${side === 'LEFT' ? 'old' : 'new'} line ${line} of ${file.filename}`, 'body', context.repository, '', { rows: 4, required: true })}
${commentButtons(context)}</form>`;
}

/** The form to comment on a whole file (GitHub's "Comment on this file"). */
function fileForm(context: ReviewContext, file: ChangedFile, index: number): SafeHtml {
  return html`<form method="post" action="${context.action}/files/comments" class="card wide line-comment" id="c${index}F">${csrfInput(context.viewer)}
<input type="hidden" name="path" value="${file.filename}"><input type="hidden" name="subject_type" value="file">
${markdownBox(`Comment on ${file.filename}`, 'body', context.repository, '', { rows: 4, required: true })}
${commentButtons(context)}</form>`;
}

function commentButtons(context: ReviewContext): SafeHtml {
  return html`<div class="actions"><button type="submit" name="mode" value="single">Add single comment</button><button type="submit" name="mode" value="review">${context.pending ? 'Add review comment' : 'Start a review'}</button></div>`;
}

/** A file's "Viewed" switch for the signed-in viewer: a viewed file starts folded, until its changes change. */
function viewedToggle(context: ReviewContext, file: ChangedFile, index: number): { tools: SafeHtml; folded: boolean; badge?: string } {
  const viewed = context.viewed?.has(file.filename) ?? false;
  const tools = html`<form method="post" action="${context.action}/files/viewed" class="file-viewed">${csrfInput(context.viewer)}<input type="hidden" name="path" value="${file.filename}"><input type="hidden" name="index" value="${index}"><input type="hidden" name="viewed" value="${viewed ? '0' : '1'}">
<button type="submit" aria-pressed="${viewed ? 'true' : 'false'}">${viewed ? 'Viewed ✓' : 'Mark as viewed'}</button></form>`;
  return viewed ? { tools, folded: true, badge: 'Viewed' } : { tools, folded: false };
}

/**
 * The review on a pull request's diff: threads on whole files above their lines, threads under their lines, and the
 * form on the line asked for.
 */
export function diffReview(context: ReviewContext, fileIndex: ReadonlyMap<string, number>): DiffReview {
  const threads = new Map<string, ReviewCommentRow[]>();
  const fileThreads = new Map<number, ReviewCommentRow[]>();
  const replies = new Map<number, ReviewCommentRow[]>();
  for (const comment of context.comments) {
    if (comment.in_reply_to_id !== null) {
      replies.set(comment.in_reply_to_id, [...(replies.get(comment.in_reply_to_id) ?? []), comment]);
      continue;
    }
    const index = fileIndex.get(comment.path);
    if (index === undefined) continue;
    if (comment.line === null) {
      fileThreads.set(index, [...(fileThreads.get(index) ?? []), comment]);
      continue;
    }
    const key = lineKey(index, comment.side, comment.line);
    threads.set(key, [...(threads.get(key) ?? []), comment]);
  }
  return {
    onFile(file, index) {
      const thread = fileThreads.get(index);
      const asked = context.viewer && context.asked && 'file' in context.asked && context.asked.index === index;
      if (!thread && !asked) return undefined;
      return html`<div class="file-comments">${thread ? threadsHtml(context, thread, replies) : ''}${asked ? fileForm(context, file, index) : ''}</div>`;
    },
    below(file, index, side, line) {
      const thread = threads.get(lineKey(index, side, line));
      const asked = context.asked && context.viewer && 'line' in context.asked && lineKey(context.asked.index, context.asked.side, context.asked.line) === lineKey(index, side, line);
      if (!thread && !asked) return undefined;
      return html`${thread ? threadsHtml(context, thread, replies) : ''}${asked ? lineForm(context, file, index, side, line) : ''}`;
    },
    fileHead: context.viewer ? (file, index) => viewedToggle(context, file, index) : undefined,
    fileCommentHref: context.viewer ? (index) => `?comment=${index}F${context.view && viewQuery(context.view) ? `&${viewQuery(context.view)}` : ''}#c${index}F` : undefined,
    commentHref: context.viewer
      ? (index, side, line) =>
          context.commentable?.index === index && !context.commentable.places.has(`${side}:${line}`)
            ? undefined
            : `?comment=${lineKey(index, side, line)}${context.view && viewQuery(context.view) ? `&${viewQuery(context.view)}` : ''}#c${lineKey(index, side, line)}`
      : undefined,
  };
}

/** The form that finishes a review: a summary and Comment, Approve or Request changes (the author may only comment). */
export function reviewBox(context: ReviewContext, isAuthor: boolean, pendingComments: number): SafeHtml | '' {
  if (!context.viewer) return '';
  const choice = (value: string, label: string, checked = false) => html`<label class="check"><input type="radio" name="event" value="${value}"${checked ? html` checked` : ''}> ${label}</label>`;
  return html`<details class="review-box"${context.pending ? html` open` : ''}><summary>Review changes${pendingComments ? html` <span class="badge">${pendingComments} pending</span>` : ''}</summary>
<form method="post" action="${context.action}/reviews" class="card wide">${csrfInput(context.viewer)}
${markdownBox('Summary', 'body', context.repository, context.pending?.body ?? '', { rows: 4 })}
<fieldset><legend>Your review</legend>${choice('COMMENT', 'Comment', true)}${isAuthor ? '' : html`${choice('APPROVE', 'Approve')}${choice('REQUEST_CHANGES', 'Request changes')}`}</fieldset>
<button type="submit">Submit review</button></form></details>`;
}

const VERDICT: Record<string, string> = { APPROVED: 'approved these changes', CHANGES_REQUESTED: 'requested changes', COMMENTED: 'reviewed', DISMISSED: 'reviewed (dismissed)', PENDING: 'has a review pending' };

/** Whose review the author or a writer may request: every account that may be assigned but the author. */
export interface ReviewerChoice {
  viewer: PageUser;
  candidates: readonly string[];
}

function reviewerForm(action: string, requested: readonly string[], choice: ReviewerChoice): SafeHtml {
  return html`<details class="reviewer-edit"><summary>Request reviews</summary><form method="post" action="${action}/reviewers" class="card wide">${csrfInput(choice.viewer)}
<fieldset><legend>Reviewers</legend>${[...new Set([...choice.candidates, ...requested])].map(
    (name) => html`<label class="check"><input type="checkbox" name="reviewer.${name}" value="1"${requested.includes(name) ? html` checked` : ''}> ${name}</label>`,
  )}</fieldset><button type="submit">Save</button></form></details>`;
}

/** Dismissing an approval or a request for changes, with a message (writers: `dismisser`). */
function dismissForm(action: string, review: ReviewRow, dismisser: PageUser): SafeHtml {
  return html`<details class="dismiss-review"><summary>Dismiss review</summary><form method="post" action="${action}/reviews/${review.id}/dismiss" class="card wide">${csrfInput(dismisser)}
<label>Why it no longer applies <input name="message" required maxlength="1000"></label><button type="submit">Dismiss review</button></form></details>`;
}

/**
 * The reviews on the conversation tab: who decided what, with their summaries, and the requested reviewers, which the
 * author or a writer changes (`choice`); a writer (`dismisser`) may dismiss approvals and requests for changes.
 */
export function reviewSummaries(
  context: Pick<ReviewContext, 'repository' | 'action'>,
  reviews: readonly ReviewRow[],
  commentsPerReview: ReadonlyMap<number, number>,
  requested: readonly string[],
  choice?: ReviewerChoice,
  dismisser?: PageUser,
): SafeHtml | '' {
  const shown = reviews.filter((review) => review.state !== 'COMMENTED' || review.body || (commentsPerReview.get(review.id) ?? 0) > 0);
  if (shown.length === 0 && requested.length === 0 && !choice) return '';
  return html`<section aria-label="Reviews" class="reviews" id="reviews"><h3>Reviews</h3>
${requested.length ? html`<p>Review requested from ${requested.map((name, index) => html`${index ? ', ' : ''}<strong>${name}</strong>`)}</p>` : ''}${choice ? reviewerForm(context.action, requested, choice) : ''}
${shown.length ? html`<ul class="items">${shown.map((review) => {
    const lines = commentsPerReview.get(review.id) ?? 0;
    return html`<li class="item review-${review.state.toLowerCase()}" id="review-${review.id}"><strong>${review.author}</strong> ${VERDICT[review.state] ?? 'reviewed'} ${relativeTime(review.submitted_at ?? review.created_at)}${lines ? html` · <a href="${context.action}/files">${lines} line comment${lines === 1 ? '' : 's'}</a>` : ''}
${review.body ? html`<div class="markdown">${renderMarkdown(review.body, { repository: context.repository })}</div>` : ''}${dismisser && (review.state === 'APPROVED' || review.state === 'CHANGES_REQUESTED') ? dismissForm(context.action, review, dismisser) : ''}</li>`;
  })}</ul>` : ''}</section>`;
}
