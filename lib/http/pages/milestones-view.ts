import type { Conversation } from '../../services/issues.js';
import type { AccessLevel } from '../../services/permissions.js';
import type { MilestoneRow } from '../../store/queries/milestones.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { pager, relativeTime } from './code/links.js';
import { errorBox, stateBadge, stateTabs } from './components.js';
import { markdownBox } from './conversation.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { fullName, repoBase, repoPage } from './repo-layout.js';
import { milestoneUrl } from './triage-view.js';

type State = 'open' | 'closed';

/** How far a milestone is: its closed share of all its issues and pull requests. */
function progress(milestone: MilestoneRow): SafeHtml {
  const total = milestone.open_issues + milestone.closed_issues;
  const percent = total === 0 ? 0 : Math.round((milestone.closed_issues / total) * 100);
  return html`<div class="milestone-progress"><progress max="${Math.max(total, 1)}" value="${milestone.closed_issues}" aria-label="${milestone.title}: ${percent}% complete"></progress>
<span class="muted">${percent}% complete · ${milestone.open_issues} open · ${milestone.closed_issues} closed</span></div>`;
}

function dueDate(milestone: MilestoneRow): SafeHtml | '' {
  if (!milestone.due_on) return '';
  const day = milestone.due_on.slice(0, 10);
  const late = milestone.state === 'open' && Date.parse(milestone.due_on) < Date.now();
  return html` <span class="${late ? 'status-failure' : 'muted'}">${late ? 'Past due' : 'Due'} by <time datetime="${milestone.due_on}">${day}</time></span>`;
}

/** A writer's buttons on one milestone: close or reopen, and delete. */
function manageButtons(viewer: PageUser, repo: RepositoryRow, milestone: MilestoneRow): SafeHtml {
  const action = milestoneUrl(repo, milestone);
  const next = milestone.state === 'open' ? 'closed' : 'open';
  return html`<span class="actions"><form method="post" action="${action}/state" class="inline">${csrfInput(viewer)}<input type="hidden" name="state" value="${next}"><button type="submit">${next === 'closed' ? 'Close' : 'Reopen'}</button></form>
<form method="post" action="${action}/delete" class="inline" data-confirm="Delete the milestone ${milestone.title}? Its issues and pull requests stay, without it.">${csrfInput(viewer)}<button type="submit" class="danger">Delete</button></form></span>`;
}

export interface MilestoneListModel {
  state: State;
  counts: Record<State, number>;
  milestones: readonly MilestoneRow[];
  /** Write access: create, close, reopen and delete. */
  canManage: boolean;
  error?: string;
  values?: { title?: string; description?: string; due_on?: string };
}

/** `/:owner/:repo/milestones`: open and closed milestones with their progress, and for writers a new one. */
export function milestonesView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: MilestoneListModel): string {
  const base = repoBase(repo);
  const rows = model.milestones.map(
    (milestone) => html`<li class="item milestone"><a class="item-title" href="${milestoneUrl(repo, milestone)}">${milestone.title}</a>${dueDate(milestone)}
${milestone.description ? html`<div class="markdown">${renderMarkdown(milestone.description, { repository: fullName(repo) })}</div>` : ''}${progress(milestone)}${viewer && model.canManage ? manageButtons(viewer, repo, milestone) : ''}</li>`,
  );
  const form =
    viewer && model.canManage
      ? html`<details class="new-milestone"${model.error ? html` open` : ''}><summary>New milestone</summary><form method="post" action="${base}/milestones" class="card wide">${csrfInput(viewer)}
<label>Title <input name="title" required maxlength="255" value="${model.values?.title ?? ''}"></label>
<label>Due date (optional) <input type="date" name="due_on" value="${model.values?.due_on ?? ''}"></label>
${markdownBox('Description', 'description', fullName(repo), model.values?.description ?? '', { rows: 3 })}
<button type="submit">Create milestone</button></form></details>`
      : '';
  return repoPage(
    viewer,
    repo,
    access,
    'issues',
    'Milestones',
    html`<h2>Milestones</h2><div class="list-head">${stateTabs('Milestone state', [
      { label: 'Open', count: model.counts.open, href: `${base}/milestones?state=open`, active: model.state === 'open' },
      { label: 'Closed', count: model.counts.closed, href: `${base}/milestones?state=closed`, active: model.state === 'closed' },
    ])}</div>${errorBox(model.error)}${form}
${rows.length ? html`<ul class="items">${rows}</ul>` : html`<p>No ${model.state} milestones.</p>`}`,
  );
}

export interface MilestoneModel {
  milestone: MilestoneRow;
  state: State;
  items: readonly Conversation[];
  counts: Record<State, number>;
  canManage: boolean;
  /** The page of the list shown, its length, and how many there are in the state shown. */
  page: number;
  limit: number;
  total: number;
}

/** `/:owner/:repo/milestone/:number`: its progress and its issues and pull requests, open or closed. */
export function milestoneView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: MilestoneModel): string {
  const { milestone } = model;
  const here = milestoneUrl(repo, milestone);
  const rows = model.items.map((item) => {
    const row = item.kind === 'issue' ? item.issue : item.pull;
    const kind = item.kind === 'issue' ? 'issues' : 'pulls';
    return html`<li class="item"><span class="item-state">${stateBadge(row.status)}</span> <a class="item-title" href="${repoBase(repo)}/${kind}/${row.number}">${row.title}</a>
<span class="muted">#${row.number}${item.kind === 'pull' ? ' (pull request)' : ''} opened ${relativeTime(row.created_at)} by ${row.author}</span></li>`;
  });
  return repoPage(
    viewer,
    repo,
    access,
    'issues',
    milestone.title,
    html`<h2 class="item-heading">${milestone.title} ${stateBadge(milestone.state)}</h2><p>${dueDate(milestone)} <a href="${repoBase(repo)}/milestones">All milestones</a></p>
${milestone.description ? html`<div class="markdown">${renderMarkdown(milestone.description, { repository: fullName(repo) })}</div>` : ''}${progress(milestone)}${viewer && model.canManage ? manageButtons(viewer, repo, milestone) : ''}
<div class="list-head">${stateTabs('Issue state', [
      { label: 'Open', count: model.counts.open, href: `${here}?state=open`, active: model.state === 'open' },
      { label: 'Closed', count: model.counts.closed, href: `${here}?state=closed`, active: model.state === 'closed' },
    ])}</div>
${rows.length ? html`<ul class="items">${rows}</ul>` : html`<p>No ${model.state} issues or pull requests in this milestone.</p>`}
${pager((page) => `${here}?state=${model.state}&page=${page}`, model.page, model.page * model.limit < model.total)}`,
  );
}
