import type { CommitInfo } from '../../../git/browse.js';
import type { CombinedStatus } from '../../../services/statuses.js';
import type { AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { html, type PageUser, type SafeHtml } from '../html.js';
import { commentForm, conversation, type ConversationEntry } from '../conversation.js';
import { repoPage } from '../repo-layout.js';
import { breadcrumbs, commitUrl, pager, refSwitcher, relativeTime, srcUrl, type RefTarget } from './links.js';

export interface HistoryContext {
  repo: RepositoryRow;
  access: AccessLevel;
  target: RefTarget;
  path: string;
  refs: { branches: string[]; tags: string[] };
}

function commitItem(repo: RepositoryRow, target: RefTarget, commit: CommitInfo): SafeHtml {
  return html`<li><a href="${commitUrl(repo, commit.sha)}"><strong>${commit.subject}</strong></a><br>
<span class="muted">${commit.author_name} committed ${relativeTime(commit.committed_at)}</span> ·
<a class="sha" href="${commitUrl(repo, commit.sha)}" aria-label="Commit ${commit.sha.slice(0, 10)}">${commit.sha.slice(0, 10)}</a> ·
<a href="${srcUrl(repo, { kind: 'commit', ref: commit.sha })}">Browse files</a></li>`;
}

/** A page of history of a branch (or of one path on it), newest first, with newer/older links. */
export function historyView(viewer: PageUser | undefined, context: HistoryContext, commits: CommitInfo[], page: number, hasNext: boolean, pageUrl: (page: number) => string): string {
  const { repo, target, path } = context;
  return repoPage(
    viewer,
    repo,
    context.access,
    'commits',
    path ? `History of ${path}` : `Commits on ${target.ref}`,
    html`<div class="toolbar">${refSwitcher(repo, target, context.refs)}${path ? breadcrumbs(repo, target, path) : ''}</div>
<h2>${path ? html`History of <code>${path}</code>` : html`Commits on <code>${target.ref}</code>`}</h2>
${commits.length ? html`<ol class="commit-list">${commits.map((commit) => commitItem(repo, target, commit))}</ol>` : html`<p>No commits.</p>`}
${pager(pageUrl, page, hasNext, ['← Newer', 'Older →'])}`,
  );
}

const STATUS_WORD = { success: 'All checks passed', failure: 'Some checks failed', pending: 'Checks pending', error: 'Some checks failed' } as const;

function statusBox(status: CombinedStatus): SafeHtml | '' {
  if (status.total_count === 0) return '';
  return html`<section class="checks" aria-label="Commit status"><p class="status-${status.state === 'error' ? 'failure' : status.state}"><strong>${STATUS_WORD[status.state]}</strong> (${status.total_count})</p>
<ul>${status.statuses.map(
    (check) => html`<li><span class="status-${check.state === 'error' ? 'failure' : check.state}">${check.state}</span> <strong>${check.context}</strong> ${check.description ?? ''}
${check.target_url ? html`<a href="${check.target_url}" rel="nofollow noopener noreferrer">Details</a>` : ''}</li>`,
  )}</ul></section>`;
}

/**
 * A commit: message, author, parents (links), combined status, what it changed (rendered by diff-view.ts), and its
 * comments (the oldest `comments.shown`, of `comments.total`) with the form to add one.
 */
export function commitView(
  viewer: PageUser | undefined,
  repo: RepositoryRow,
  access: AccessLevel,
  commit: CommitInfo,
  status: CombinedStatus,
  diff: SafeHtml,
  comments: { shown: readonly ConversationEntry[]; total: number },
): string {
  const repository = `${repo.owner_name}/${repo.name}`;
  const rest = commit.message.slice(commit.subject.length).replace(/^\n+/, '');
  return repoPage(
    viewer,
    repo,
    access,
    'commits',
    commit.subject || commit.sha.slice(0, 10),
    html`<section class="commit-head"><h2>${commit.subject}</h2>${rest ? html`<pre class="message">${rest}</pre>` : ''}
<p><strong>${commit.author_name}</strong> authored ${relativeTime(commit.authored_at)}${commit.committer_name !== commit.author_name ? html` · <strong>${commit.committer_name}</strong> committed ${relativeTime(commit.committed_at)}` : ''}</p>
<p>Commit <code>${commit.sha}</code> · ${commit.parents.length ? html`${commit.parents.length === 1 ? 'parent' : 'parents'} ${commit.parents.map((parent, index) => html`${index ? ', ' : ''}<a href="${commitUrl(repo, parent)}"><code>${parent.slice(0, 10)}</code></a>`)}` : 'no parents (root commit)'}
· <a href="${srcUrl(repo, { kind: 'commit', ref: commit.sha })}">Browse files</a></p></section>
${statusBox(status)}${diff}
<section class="commit-comments" aria-label="Comments"><h3>${comments.total === 1 ? '1 comment' : `${comments.total} comments`}</h3>
${conversation(viewer, comments.shown, repository)}${comments.total > comments.shown.length ? html`<p class="muted">Showing the first ${comments.shown.length}.</p>` : ''}
${commentForm(viewer, `${commitUrl(repo, commit.sha)}/comments`, repository)}</section>`,
  );
}
