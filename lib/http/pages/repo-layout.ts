import { atLeast, type AccessLevel } from '../../services/permissions.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { html, page, type PageUser, type SafeHtml } from './html.js';

/** The tabs of a repository's pages. */
export type RepoTab = 'code' | 'issues' | 'pulls' | 'commits' | 'branches' | 'settings';

/** `/<owner>/<name>`: the base of every repository page link (names are path-safe, see lib/git/names.ts). */
export const repoBase = (repo: RepositoryRow) => `/${repo.owner_name}/${repo.name}`;
/** `owner/name`: the context of a repository's Markdown (its `#12` references). */
export const fullName = (repo: RepositoryRow) => `${repo.owner_name}/${repo.name}`;

/** A branch or path put into a URL path: each segment encoded, the slashes kept. */
export const pathUrl = (path: string) => path.split('/').map(encodeURIComponent).join('/');

function tabs(repo: RepositoryRow, access: AccessLevel, active: RepoTab): SafeHtml {
  const base = repoBase(repo);
  const items: Array<[RepoTab, string, string]> = [
    ['code', 'Code', base],
    ['issues', 'Issues', `${base}/issues`],
    ['pulls', 'Pull requests', `${base}/pulls`],
    ['commits', 'Commits', `${base}/commits/branch/${pathUrl(repo.default_branch)}`],
    ['branches', 'Branches', `${base}/branches`],
  ];
  // Settings change the repository: only its admins see the tab (the pages check again, see permissions.ts).
  if (atLeast(access, 'admin')) items.push(['settings', 'Settings', `${base}/settings`]);
  return html`<nav aria-label="Repository"><ul class="tabs">${items.map(
    ([tab, label, href]) => html`<li><a href="${href}"${tab === active ? html` aria-current="page"` : ''}>${label}</a></li>`,
  )}</ul></nav>`;
}

/**
 * The frame of every repository page: owner/name heading with a private badge, the tab navigation (the active tab
 * marked with aria-current), then `body`. `access` is the viewer's level from lib/services/permissions.ts.
 */
export function repoPage(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, activeTab: RepoTab, title: string, body: SafeHtml): string {
  const name = `${repo.owner_name}/${repo.name}`;
  return page(
    title ? `${title} · ${name}` : name,
    viewer,
    html`<div class="repo-head"><h1><a href="/${repo.owner_name}">${repo.owner_name}</a> / <a href="${repoBase(repo)}">${repo.name}</a>
${repo.is_private ? html` <span class="badge">Private</span>` : ''}</h1></div>
${tabs(repo, access, activeTab)}${body}`,
  );
}
