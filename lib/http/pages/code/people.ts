import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { html, page, type PageUser, type SafeHtml } from '../html.js';
import { repoBase } from '../repo-layout.js';
import { pager, relativeTime } from './links.js';

/** A list of repositories with their badges, descriptions and last update. */
export function repoList(repos: RepositoryRow[], empty: string): SafeHtml {
  if (repos.length === 0) return html`<p>${empty}</p>`;
  return html`<ul class="repos">${repos.map(
    (repo) => html`<li><a href="${repoBase(repo)}"><strong>${repo.owner_name}/${repo.name}</strong></a>${repo.is_private ? html` <span class="badge">Private</span>` : ''}
${repo.description ? html`<br><span>${repo.description}</span>` : ''}<br><span class="muted">Updated ${relativeTime(repo.updated_at)}</span></li>`,
  )}</ul>`;
}

/** A user's profile: avatar, name, and the repositories the viewer may see. */
export function profileView(viewer: PageUser | undefined, owner: { username: string; full_name: string; avatar: string }, repos: RepositoryRow[], pageNumber: number, hasNext: boolean): string {
  return page(
    owner.username,
    viewer,
    html`<div class="profile"><img src="${owner.avatar}" alt="Avatar of ${owner.username}" width="96" height="96">
<div><h1>${owner.username}</h1>${owner.full_name ? html`<p>${owner.full_name}</p>` : ''}</div></div>
<h2>Repositories</h2>${repoList(repos, 'No repositories yet.')}
${pager((target) => `/${owner.username}?page=${target}`, pageNumber, hasNext)}`,
  );
}

/** Public repositories, newest first, searchable by name. */
export function exploreView(viewer: PageUser | undefined, search: string, repos: RepositoryRow[], pageNumber: number, hasNext: boolean): string {
  const query = search ? `q=${encodeURIComponent(search)}&` : '';
  return page(
    'Explore',
    viewer,
    html`<h1>Explore repositories</h1>
<form method="get" action="/explore" class="toolbar" role="search"><label for="explore-q" class="sr-only">Search repositories by name</label>
<input id="explore-q" name="q" type="search" value="${search}" placeholder="Search by name"><button type="submit">Search</button></form>
${repoList(repos, search ? 'No public repository matches.' : 'No public repositories yet.')}
${pager((target) => `/explore?${query}page=${target}`, pageNumber, hasNext)}`,
  );
}
