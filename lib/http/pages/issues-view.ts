import { atLeast, type AccessLevel } from '../../services/permissions.js';
import type { IssueComment, IssueSummary } from '../../services/issues.js';
import type { LabelRow } from '../../store/queries/labels.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { errorBox, labelChip, plural, stateBadge, stateTabs } from './components.js';
import { commentForm, commentPager, conversation, type ConversationReactions, type PageTimeline, editTextForm, markdownBox, stateToggle } from './conversation.js';
import { pager, relativeTime } from './code/links.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { fullName, repoBase, repoPage } from './repo-layout.js';
import { triageSection, type TriageModel } from './triage-view.js';

export interface IssueListModel {
  status: 'open' | 'closed';
  counts: { open: number; closed: number };
  issues: IssueSummary[];
  /** Every label of the repository (the filter choices) and the lower-cased names filtered on. */
  labels: LabelRow[];
  filter: readonly string[];
  /** The search typed (words and qualifiers), '' for none. */
  query: string;
  /** Why the search could not run. */
  error?: string;
  page: number;
  limit: number;
  total: number;
}

function listHref(repo: RepositoryRow, status: string, labels: readonly string[], page = 1, search = ''): string {
  const query = new URLSearchParams({ status });
  if (labels.length > 0) query.set('labels', labels.join(','));
  if (search) query.set('q', search);
  if (page > 1) query.set('page', String(page));
  return `${repoBase(repo)}/issues?${query}`;
}

/** The issue search: words in titles and bodies, and GitHub's qualifiers; the state and labels chosen stay. */
function searchForm(repo: RepositoryRow, model: IssueListModel): SafeHtml {
  return html`<form class="search issue-search" method="get" action="${repoBase(repo)}/issues" role="search"><input type="hidden" name="status" value="${model.status}">${model.filter.length ? html`<input type="hidden" name="labels" value="${model.filter.join(',')}">` : ''}
<label><span class="sr-only">Search issues</span><input type="search" name="q" value="${model.query}" maxlength="200" placeholder="Search: words, author:, assignee:, milestone:, label:" aria-describedby="issue-search-help"></label><button type="submit">Search</button>
<span id="issue-search-help" class="sr-only">Words are looked for in titles and descriptions. author:name, assignee:name, milestone:"title", label:name and no:assignee, no:label or no:milestone narrow the list.</span></form>`;
}

/** `/:owner/:repo/issues`: open/closed tabs with counts, label filters (each a toggle link), a page of issues. */
export function issueListView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: IssueListModel): string {
  const base = repoBase(repo);
  const toggled = (name: string) => (model.filter.includes(name) ? model.filter.filter((other) => other !== name) : [...model.filter, name]);
  const filters = model.labels.length
    ? html`<nav aria-label="Filter by label" class="label-filter"><span>Labels:</span> ${model.labels.map((label) => {
        const on = model.filter.includes(label.name.toLowerCase());
        return html`<a href="${listHref(repo, model.status, toggled(label.name.toLowerCase()), 1, model.query)}"${on ? html` aria-current="true" class="on"` : ''}>${labelChip(label)}</a>`;
      })} <a href="${base}/labels">Manage labels</a> · <a href="${base}/milestones">Milestones</a></nav>`
    : html`<p class="muted">No labels yet. <a href="${base}/labels">Labels</a> · <a href="${base}/milestones">Milestones</a></p>`;
  const rows = model.issues.map(
    (issue) => html`<li class="item"><span class="item-state">${stateBadge(issue.status)}</span>
<a class="item-title" href="${base}/issues/${issue.number}">${issue.title}</a> ${issue.labels.map(labelChip)}
<span class="muted">#${issue.number} opened ${relativeTime(issue.created_at)} by ${issue.author}${issue.comments ? ` · ${plural(issue.comments, 'comment')}` : ''}</span></li>`,
  );
  return repoPage(
    viewer,
    repo,
    access,
    'issues',
    'Issues',
    html`<div class="list-head">${stateTabs('Issue state', [
      { label: 'Open', count: model.counts.open, href: listHref(repo, 'open', model.filter, 1, model.query), active: model.status === 'open' },
      { label: 'Closed', count: model.counts.closed, href: listHref(repo, 'closed', model.filter, 1, model.query), active: model.status === 'closed' },
    ])}${searchForm(repo, model)}${viewer ? html`<a class="button" href="${base}/issues/new">New issue</a>` : ''}</div>
${errorBox(model.error)}${filters}
${rows.length ? html`<ul class="items">${rows}</ul>` : html`<p>No ${model.status} issues${model.query ? ' match this search' : model.filter.length ? ' with these labels' : ''}.</p>`}
${pager((page) => listHref(repo, model.status, model.filter, page, model.query), model.page, model.page * model.limit < model.total)}`,
  );
}

/** `/:owner/:repo/issues/new`. */
export function newIssueView(viewer: PageUser, repo: RepositoryRow, access: AccessLevel, error?: string, values: { title?: string; body?: string } = {}): string {
  return repoPage(
    viewer,
    repo,
    access,
    'issues',
    'New issue',
    html`<h2>New issue</h2>${errorBox(error)}
<form class="card wide" method="post" action="${repoBase(repo)}/issues/new">${csrfInput(viewer)}
<label>Title <input name="title" required maxlength="255" value="${values.title ?? ''}"></label>
${markdownBox('Description', 'body', fullName(repo), values.body ?? '', { rows: 8 })}
<button type="submit">Open issue</button></form>`,
  );
}

export interface IssueModel {
  issue: IssueSummary;
  comments: IssueComment[];
  /** What happened between those comments (labels, assignees, closing, ...). */
  timeline: PageTimeline;
  /** The page of the conversation shown (COMMENTS_PER_PAGE comments each). */
  commentPage: number;
  labels: LabelRow[];
  /** The author or a collaborator with write access: close and reopen. */
  canChangeState: boolean;
  /** Write access: labels. */
  canLabel: boolean;
  /** Whether the viewer may edit a comment by this author (its author, or write access). */
  canEdit: (author: string) => boolean;
  triage: TriageModel;
  /** The reactions to the issue and to the comments shown. */
  reactions: ConversationReactions;
}

function labelEditor(viewer: PageUser, repo: RepositoryRow, model: IssueModel): SafeHtml {
  if (model.labels.length === 0) return html`<p class="muted">This repository has no labels yet: <a href="${repoBase(repo)}/labels">create some</a>.</p>`;
  const on = new Set(model.issue.labels.map((label) => label.id));
  return html`<form method="post" action="${repoBase(repo)}/issues/${model.issue.number}/labels" class="label-editor">${csrfInput(viewer)}
<fieldset><legend>Labels</legend>${model.labels.map(
    (label) => html`<label class="check"><input type="checkbox" name="label_${label.id}" value="${label.name}"${on.has(label.id) ? ' checked' : ''}> ${labelChip(label)}</label>`,
  )}</fieldset><button type="submit">Save labels</button></form>`;
}

/** `/:owner/:repo/issues/:number`: the conversation, the comment form, close/reopen and labels for those allowed. */
export function issueView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: IssueModel, error?: string): string {
  const { issue } = model;
  const action = `${repoBase(repo)}/issues/${issue.number}`;
  const stateForm = viewer && model.canChangeState ? stateToggle(viewer, action, issue.status, 'issue') : '';
  return repoPage(
    viewer,
    repo,
    access,
    'issues',
    `${issue.title} #${issue.number}`,
    html`<h2 class="item-heading"><span class="title">${issue.title}</span> <span class="muted">#${issue.number}</span></h2>
<p>${stateBadge(issue.status)} <strong>${issue.author}</strong> opened this issue ${relativeTime(issue.created_at)} · ${plural(issue.comments, 'comment')}
${issue.status === 'closed' && issue.closed_by ? html` · closed by ${issue.closed_by} ${relativeTime(issue.closed_at ?? '')}` : ''}</p>
<p class="issue-labels">${issue.labels.length ? issue.labels.map(labelChip) : html`<span class="muted">No labels</span>`}</p>
${triageSection(viewer, repo, action, model.triage)}
${errorBox(error)}
${conversation(viewer, [{ author: issue.author, created_at: issue.created_at, body: issue.body, reactions: model.reactions.opening }, ...model.comments.map((comment) => ({ ...comment, reactions: model.reactions.comments.get(comment.id), editAction: model.canEdit(comment.author) ? `${action}/comments/${comment.id}` : undefined }))], fullName(repo), model.timeline)}
${commentPager(action, model.commentPage, issue.comments)}
${commentForm(viewer, `${action}/comments`, fullName(repo), { ...issue, mayWrite: atLeast(access, 'write') })}
${stateForm}${viewer && model.canChangeState ? editTextForm(viewer, action, fullName(repo), { title: issue.title, text: issue.body, textField: 'body' }) : ''}
${viewer && model.canLabel ? labelEditor(viewer, repo, model) : ''}`,
  );
}

/** `/:owner/:repo/labels`: the repository's labels; those with write access create and delete them. */
export function labelsView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, labels: LabelRow[], canManage: boolean, error?: string): string {
  const base = repoBase(repo);
  const rows = labels.map(
    (label) => html`<li class="item">${labelChip(label)} <span class="muted">${label.description}</span>
${viewer && canManage ? html`<form method="post" action="${base}/labels/${label.id}/delete" class="inline">${csrfInput(viewer)}<button type="submit" aria-label="Delete label ${label.name}">Delete</button></form>` : ''}</li>`,
  );
  const form =
    viewer && canManage
      ? html`<h2>New label</h2><form class="card" method="post" action="${base}/labels">${csrfInput(viewer)}
<label>Name <input name="name" required maxlength="50"></label>
<label>Colour <input name="color" type="color" value="#0969da"></label>
<label>Description <input name="description" maxlength="200"></label>
<button type="submit">Create label</button></form>`
      : '';
  return repoPage(
    viewer,
    repo,
    access,
    'issues',
    'Labels',
    html`<h2>Labels</h2>${errorBox(error)}${rows.length ? html`<ul class="items">${rows}</ul>` : html`<p>No labels yet.</p>`}${form}`,
  );
}
