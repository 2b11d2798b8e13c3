import type { AheadBehind, CommitInfo } from '../../../git/browse.js';
import type { AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { html, type PageUser } from '../html.js';
import { pathUrl, repoBase, repoPage } from '../repo-layout.js';
import { commitUrl, historyUrl, pager, relativeTime, srcUrl } from './links.js';

export interface BranchRowView {
  name: string;
  sha: string;
  commit: CommitInfo | undefined;
  /** Against the default branch; undefined for the default branch itself. */
  aheadBehind?: AheadBehind;
}

/** The branches: each with its last commit, ahead/behind the default branch and a "New pull request" link. */
export function branchesView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, rows: BranchRowView[], page: number, hasNext: boolean): string {
  const base = repoBase(repo);
  const row = (branch: BranchRowView) => html`<tr><td class="name"><a href="${srcUrl(repo, { kind: 'branch', ref: branch.name })}">${branch.name}</a>
${branch.aheadBehind ? '' : html` <span class="badge">default</span>`}</td>
<td>${branch.commit ? html`<a href="${commitUrl(repo, branch.sha)}">${branch.commit.subject}</a> <span class="muted">${relativeTime(branch.commit.committed_at)}</span>` : ''}</td>
<td>${branch.aheadBehind ? html`<span title="commits ahead of ${repo.default_branch}">${branch.aheadBehind.ahead} ahead</span> · <span title="commits behind ${repo.default_branch}">${branch.aheadBehind.behind} behind</span>` : ''}</td>
<td>${branch.aheadBehind ? html`<a href="${base}/compare/${pathUrl(repo.default_branch)}...${pathUrl(branch.name)}">New pull request</a>` : html`<a href="${historyUrl(repo, { kind: 'branch', ref: branch.name })}">History</a>`}</td></tr>`;
  return repoPage(
    viewer,
    repo,
    access,
    'branches',
    'Branches',
    html`<h2>Branches</h2><p><a href="${base}/tags">Tags</a></p>
${rows.length
  ? html`<table class="branches"><thead><tr><th scope="col">Branch</th><th scope="col">Last commit</th><th scope="col">Against ${repo.default_branch}</th><th scope="col">Actions</th></tr></thead><tbody>${rows.map(row)}</tbody></table>`
  : html`<p>No branches yet.</p>`}
${pager((target) => `${base}/branches?page=${target}`, page, hasNext)}`,
  );
}

/** The tags, newest name last, each with the commit it names. */
export function tagsView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, tags: Array<{ name: string; commit: CommitInfo | undefined }>, page: number, hasNext: boolean): string {
  const base = repoBase(repo);
  return repoPage(
    viewer,
    repo,
    access,
    'branches',
    'Tags',
    html`<h2>Tags</h2><p><a href="${base}/branches">Branches</a> · <a href="${base}/releases">Releases</a></p>
${tags.length
  ? html`<ul class="commit-list">${tags.map(
      (tag) => html`<li><a href="${srcUrl(repo, { kind: 'tag', ref: tag.name })}"><strong>${tag.name}</strong></a>
${tag.commit ? html` · <a href="${commitUrl(repo, tag.commit.sha)}">${tag.commit.subject}</a> <span class="muted">${relativeTime(tag.commit.committed_at)}</span>` : ''}</li>`,
    )}</ul>`
  : html`<p>No tags yet.</p>`}
${pager((target) => `${base}/tags?page=${target}`, page, hasNext)}`,
  );
}
