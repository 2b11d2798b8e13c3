import type { CommitSummary } from '../../git/diff.js';
import { atLeast, type AccessLevel } from '../../services/permissions.js';
import type { PullComment } from '../../services/pull-comments.js';
import type { BranchComparison, PullSummary } from '../../services/pulls.js';
import type { CombinedStatus } from '../../services/statuses.js';
import type { CheckRunRow } from '../../store/queries/checks.js';
import type { PullRow } from '../../store/queries/pulls.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { errorBox, stateBadge, stateTabs } from './components.js';
import { commentForm, commentPager, conversation, type ConversationReactions, type PageTimeline, editTextForm, markdownBox, stateToggle } from './conversation.js';
import { pager, relativeTime } from './code/links.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { fullName, pathUrl, repoBase, repoPage } from './repo-layout.js';
import { triageSection, type TriageModel } from './triage-view.js';

export interface PullListModel {
  status: 'open' | 'closed';
  counts: { open: number; closed: number };
  pulls: PullRow[];
  /** The combined status of each listed pull request's head commit, by pull request id (absent: none reported). */
  checks: ReadonlyMap<number, string>;
  page: number;
  limit: number;
  total: number;
}

const compareHref = (repo: RepositoryRow, base: string, head: string) => `${repoBase(repo)}/compare/${pathUrl(base)}...${pathUrl(head)}`;

/** `/:owner/:repo/pulls`: open/closed (closed includes merged) tabs with counts, a page of pull requests. */
export function pullListView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: PullListModel): string {
  const base = repoBase(repo);
  const href = (status: string, page = 1) => `${base}/pulls?status=${status}${page > 1 ? `&page=${page}` : ''}`;
  const rows = model.pulls.map(
    (pull) => html`<li class="item"><span class="item-state">${stateBadge(pull.status)}</span>
<a class="item-title" href="${base}/pulls/${pull.number}">${pull.title}</a>
${model.checks.has(pull.id) ? html`<span class="status-${model.checks.get(pull.id)!}">checks: ${model.checks.get(pull.id)!}</span>` : ''}
<span class="muted">#${pull.number} · <code>${pull.head}</code> → <code>${pull.base}</code> · opened ${relativeTime(pull.created_at)} by ${pull.author}</span></li>`,
  );
  return repoPage(
    viewer,
    repo,
    access,
    'pulls',
    'Pull requests',
    html`<div class="list-head">${stateTabs('Pull request state', [
      { label: 'Open', count: model.counts.open, href: href('open'), active: model.status === 'open' },
      { label: 'Closed', count: model.counts.closed, href: href('closed'), active: model.status === 'closed' },
    ])}${viewer ? html`<a class="button" href="${base}/compare">New pull request</a>` : ''}</div>
${rows.length ? html`<ul class="items">${rows}</ul>` : html`<p>No ${model.status} pull requests.</p>`}
${pager((page) => href(model.status, page), model.page, model.page * model.limit < model.total)}`,
  );
}

function commitList(repo: RepositoryRow, commits: readonly CommitSummary[]): SafeHtml {
  if (commits.length === 0) return html`<p class="muted">No commits.</p>`;
  return html`<ol class="commit-list">${commits.map((commit) => {
    const [subject] = commit.message.split('\n');
    return html`<li><a href="${repoBase(repo)}/commit/${commit.sha}">${subject}</a>
<span class="muted">${commit.author_name} · ${relativeTime(commit.authored_at)} · <span class="sha">${commit.sha.slice(0, 10)}</span></span></li>`;
  })}</ol>`;
}

function branchSelect(name: 'base' | 'head', label: string, branches: readonly string[], selected: string): SafeHtml {
  return html`<label>${label} <select name="${name}">${branches.map((branch) => html`<option value="${branch}"${branch === selected ? ' selected' : ''}>${branch}</option>`)}</select></label>`;
}

export interface CompareModel {
  branches: string[];
  base: string;
  head: string;
  /** Absent until two different branches are chosen; `diff` is its files rendered (renderDiff). */
  comparison?: BranchComparison & { diff: SafeHtml };
  error?: string;
  values?: { title?: string; description?: string };
}

/** `/:owner/:repo/compare/:base...:head`: pick the branches, see the commits and the diff, then open the pull request. */
export function compareView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: CompareModel): string {
  const { comparison } = model;
  const picker = html`<form class="compare-picker" method="get" action="${repoBase(repo)}/compare">
${branchSelect('base', 'Base', model.branches, model.base)} <span aria-hidden="true">←</span> ${branchSelect('head', 'Compare', model.branches, model.head)}
<button type="submit">Compare</button></form>`;
  let body: SafeHtml;
  if (!comparison) body = html`<p>Choose two different branches to see what would be merged.</p>`;
  else if (comparison.commits.length === 0) body = html`<p><code>${model.head}</code> has no commits that <code>${model.base}</code> lacks: there is nothing to merge.</p>`;
  else {
    const form = viewer
      ? html`<h3>Open a pull request</h3><form class="card wide" method="post" action="${repoBase(repo)}/pulls">${csrfInput(viewer)}
<input type="hidden" name="base" value="${model.base}"><input type="hidden" name="head" value="${model.head}">
<label>Title <input name="title" required maxlength="255" value="${model.values?.title ?? comparison.commits[0]!.message.split('\n')[0]!}"></label>
${markdownBox('Description', 'description', fullName(repo), model.values?.description ?? '', { rows: 6 })}
<button type="submit">Create pull request</button></form>`
      : html`<p><a href="/login">Sign in</a> to open a pull request.</p>`;
    body = html`<p>${comparison.mergeable ? html`<span class="status-success">Able to merge.</span> These branches merge without conflicts.` : html`<span class="status-failure">Cannot merge automatically.</span> These branches have conflicting changes; the pull request can still be opened.`}</p>
${form}
<h3>Commits (${comparison.commits.length})</h3>${commitList(repo, comparison.commits)}
<h3>Files changed (${comparison.files.length})</h3>${comparison.diff}`;
  }
  return repoPage(viewer, repo, access, 'pulls', 'Compare', html`<h2>Compare changes</h2>${errorBox(model.error)}${picker}${body}`);
}

export type PullTab = 'conversation' | 'commits' | 'files';

export interface PullModel {
  pull: PullSummary;
  /** The newest check run of each name on the head commit. */
  checkRuns: CheckRunRow[];
  tab: PullTab;
  comments?: PullComment[];
  /** What happened between those comments (labels, review requests, the merge, ...): on the conversation tab. */
  timeline?: PageTimeline;
  /** The reactions to the pull request and to the comments shown: on the conversation tab. */
  reactions?: ConversationReactions;
  /** The page of the conversation shown. */
  commentPage: number;
  commits?: CommitSummary[];
  /** The files changed, rendered (renderDiff) with their review threads, on the files tab. */
  diff?: SafeHtml;
  /** The form finishing the viewer's review (files tab). */
  reviewBox?: SafeHtml | '';
  /** Who reviewed and how, and whose review is requested (conversation tab). */
  reviews?: SafeHtml | '';
  /** Assignees and milestone (conversation tab). */
  triage?: TriageModel;
  /** How many commits the pull request brought (shown once merged: "merged N commits into base from head"). */
  commitCount?: number;
  checks: CombinedStatus;
  /** Status contexts the base branch's protection requires before merging. */
  requiredContexts: string[];
  /** The required checks head has not passed (PullService.unmetChecks): they block the merge. */
  unmetChecks: ReadonlyArray<{ context: string; state: string }>;
  /** Why the reviews do not allow the merge yet (PullService.unmetReviews), if they do not. */
  unmetReviews: string | undefined;
  /** The author or a collaborator with write access. */
  canChangeState: boolean;
  /** Write access (the merge service's rule). */
  canMerge: boolean;
  /** Whether the viewer may edit a comment by this author (its author, or write access). */
  canEdit: (author: string) => boolean;
  error?: string;
}

function pullTabs(repo: RepositoryRow, pull: PullSummary, active: PullTab): SafeHtml {
  const base = `${repoBase(repo)}/pulls/${pull.number}`;
  const items: Array<[PullTab, string, string]> = [
    ['conversation', 'Conversation', base],
    ['commits', 'Commits', `${base}/commits`],
    ['files', 'Files changed', `${base}/files`],
  ];
  return html`<nav aria-label="Pull request"><ul class="tabs">${items.map(
    ([tab, label, href]) => html`<li><a href="${href}"${tab === active ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

/** The colour class of a check run's state: passing conclusions, failing ones, or not finished. */
function runClass(run: CheckRunRow): 'success' | 'failure' | 'pending' {
  if (run.status !== 'completed') return 'pending';
  return ['success', 'neutral', 'skipped'].includes(run.conclusion ?? '') ? 'success' : 'failure';
}

/** Statuses and check runs of the head commit (the newest run of each name), required ones marked, missing ones listed. */
function checksSection(model: PullModel): SafeHtml {
  const { checks, checkRuns, requiredContexts } = model;
  const reported = new Set([...checks.statuses.map((status) => status.context), ...checkRuns.map((run) => run.name)]);
  const missing = requiredContexts.filter((context) => !reported.has(context));
  if (checks.total_count === 0 && checkRuns.length === 0 && requiredContexts.length === 0) return html`<p class="muted">No status checks reported for the head commit.</p>`;
  const summary = checks.total_count > 0 ? html`: <strong class="status-${checks.state}">${checks.state}</strong>` : '';
  return html`<section aria-label="Checks" class="checks"><p>Checks on <code>${checks.sha.slice(0, 10)}</code>${summary}</p>
<ul>${checks.statuses.map(
    (status) => html`<li><span class="status-${status.state}">${status.state}</span> <strong>${status.context}</strong>${requiredContexts.includes(status.context) ? ' (required)' : ''}
${status.description ? html` — ${status.description}` : ''}${status.target_url ? html` <a href="${status.target_url}" rel="nofollow noopener noreferrer">Details</a>` : ''}</li>`,
  )}${checkRuns.map(
    (run) => html`<li><span class="status-${runClass(run)}">${run.conclusion ?? run.status.replace('_', ' ')}</span> <strong>${run.name}</strong>${requiredContexts.includes(run.name) ? ' (required)' : ''}
${run.output_title ? html` — ${run.output_title}` : ''}${run.details_url ? html` <a href="${run.details_url}" rel="nofollow noopener noreferrer">Details</a>` : ''}</li>`,
  )}${missing.map((context) => html`<li><span class="status-pending">missing</span> <strong>${context}</strong> (required)</li>`)}</ul></section>`;
}

const METHODS: Array<[string, string]> = [
  ['merge', 'Create a merge commit'],
  ['squash', 'Squash and merge'],
  ['rebase', 'Rebase and merge'],
  ['fast-forward', 'Fast-forward only'],
];

/** The merge box: state, checks, and for those who may merge the methods with an editable message. */
function mergeBox(viewer: PageUser | undefined, repo: RepositoryRow, model: PullModel): SafeHtml {
  const { pull } = model;
  if (pull.status === 'merged') {
    return html`<section class="merge-box" aria-label="Merge"><p>${stateBadge('merged')} <strong>${pull.merged_by ?? 'someone'}</strong> merged <code>${pull.head}</code> into <code>${pull.base}</code> ${relativeTime(pull.merged_at ?? '')}
${pull.merge_commit_sha ? html` as <a href="${repoBase(repo)}/commit/${pull.merge_commit_sha}"><code>${pull.merge_commit_sha.slice(0, 10)}</code></a>` : ''}.</p></section>`;
  }
  if (pull.status === 'closed') return html`<section class="merge-box" aria-label="Merge"><p>This pull request is closed${pull.closed_at ? html` (${relativeTime(pull.closed_at)})` : ''}.</p></section>`;
  const state =
    pull.mergeable === true
      ? html`<p class="status-success">This branch has no conflicts with the base branch.</p>`
      : html`<p class="status-failure">This branch cannot be merged automatically: it conflicts with <code>${pull.base}</code> (or one of the branches is gone). Resolve the conflicts by merging <code>${pull.base}</code> into <code>${pull.head}</code> and pushing.</p>`;
  const required = model.requiredContexts.length
    ? html`<p>The base branch requires these checks to pass before merging: ${model.requiredContexts.map((context, index) => html`${index ? ', ' : ''}<code>${context}</code>`)}.</p>`
    : '';
  if (!viewer || !model.canMerge) {
    return html`<section class="merge-box" aria-label="Merge">${state}${required}<p class="muted">Only collaborators with write access can merge this pull request.</p></section>`;
  }
  // The merge service's rules (lib/services/pulls.ts): no conflicts, every required check a success, the reviews asked for.
  const unmet = model.unmetChecks;
  const blockers: SafeHtml[] = [];
  if (pull.mergeable !== true) blockers.push(html`the branch has conflicts with <code>${pull.base}</code> that must be resolved`);
  if (unmet.length) {
    blockers.push(html`required ${unmet.length === 1 ? 'check' : 'checks'} ${unmet.map(({ context, state }, index) => html`${index ? ', ' : ''}<code>${context}</code> (${state})`)} must pass`);
  }
  if (model.unmetReviews) blockers.push(html`${model.unmetReviews}`);
  const blocked = blockers.length > 0;
  const why = blocked ? html`<p class="status-failure" id="merge-blocked"><strong>Merging is blocked:</strong> ${blockers.map((reason, index) => html`${index ? '; ' : ''}${reason}`)}.</p>` : '';
  return html`<section class="merge-box" id="merge-box" aria-label="Merge">${state}${required}${why}
<form method="post" action="${repoBase(repo)}/pulls/${pull.number}/merge" class="card wide">${csrfInput(viewer)}
<input type="hidden" name="head_sha" value="${pull.head_sha}">
<fieldset><legend>Merge method</legend>${METHODS.map(
    ([value, label], index) => html`<label class="check"><input type="radio" name="method" value="${value}"${index === 0 ? ' checked' : ''}> ${label}</label>`,
  )}</fieldset>
<label>Commit title (merge and squash) <input name="title" maxlength="255" placeholder="Merge pull request #${pull.number} from ${repo.owner_name}/${pull.head}"></label>
<label>Commit message <textarea name="message" rows="3">${pull.title}</textarea></label>
<label class="check"><input type="checkbox" name="delete_branch" value="true"> Delete the branch <code>${pull.head}</code> after merging</label>
<button type="submit"${blocked ? html` disabled aria-describedby="merge-blocked"` : ''}>Merge pull request</button></form></section>`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * GitHub's line under the title: "alice wants to merge head into base" while open, "bob merged 2 commits into base
 * from head" once merged. Links hold only their words (never the spaces around them, which would be underlined).
 */
function pullSentence(repo: RepositoryRow, pull: PullSummary, commitCount: number | undefined): SafeHtml {
  const branch = (name: string) => html`<a href="${repoBase(repo)}/src/branch/${pathUrl(name)}"><code>${name}</code></a>`;
  if (pull.status === 'merged') {
    const commits = commitCount === undefined ? 'commits' : count(commitCount, 'commit');
    return html`<strong>${pull.merged_by ?? pull.author}</strong> merged ${commits} into ${branch(pull.base)} from ${branch(pull.head)} · ${relativeTime(pull.merged_at ?? pull.created_at)}`;
  }
  // GitHub says the same of a closed pull request.
  return html`<strong>${pull.author}</strong> wants to merge <a href="${compareHref(repo, pull.base, pull.head)}"><code>${pull.head}</code></a> into ${branch(pull.base)} · ${relativeTime(pull.created_at)}`;
}

/** `/:owner/:repo/pulls/:number[/commits|/files]`: the pull request with its tabs, checks and merge box. */
export function pullView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: PullModel): string {
  const { pull } = model;
  const action = `${repoBase(repo)}/pulls/${pull.number}`;
  const state = pull.status === 'merged' ? 'merged' : pull.status;
  let content: SafeHtml;
  if (model.tab === 'commits') content = commitList(repo, model.commits ?? []);
  else if (model.tab === 'files') content = html`${model.reviewBox ?? ''}${model.diff ?? ''}`;
  else {
    const stateForm = viewer && model.canChangeState && pull.status !== 'merged' ? stateToggle(viewer, action, pull.status, 'pull request') : '';
    const editText = viewer && model.canChangeState ? editTextForm(viewer, action, fullName(repo), { title: pull.title, text: pull.description, textField: 'description' }) : '';
    content = html`${conversation(viewer, [{ author: pull.author, created_at: pull.created_at, body: pull.description, reactions: model.reactions?.opening }, ...(model.comments ?? []).map((comment) => ({ ...comment, body: comment.text, reactions: model.reactions?.comments.get(comment.id), editAction: model.canEdit(comment.author) ? `${action}/comments/${comment.id}` : undefined }))], fullName(repo), model.timeline)}
${commentPager(action, model.commentPage, pull.comments)}
${model.triage ? triageSection(viewer, repo, action, model.triage) : ''}${model.reviews ?? ''}${checksSection(model)}${mergeBox(viewer, repo, model)}
${commentForm(viewer, `${action}/comments`, fullName(repo), { ...pull, mayWrite: atLeast(access, 'write') })}${stateForm}${editText}`;
  }
  return repoPage(
    viewer,
    repo,
    access,
    'pulls',
    `${pull.title} #${pull.number}`,
    html`<h2 class="item-heading"><span class="title">${pull.title}</span> <span class="muted">#${pull.number}</span></h2>
<p>${stateBadge(state)} ${pullSentence(repo, pull, model.commitCount)}</p>
${errorBox(model.error)}${pullTabs(repo, pull, model.tab)}${content}`,
  );
}
