import type { RefPath } from '../../../git/browse.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { csrfInput, html, type PageUser, type SafeHtml } from '../html.js';
import { pathUrl, repoBase } from '../repo-layout.js';

/** The part of a code URL naming what is browsed: `branch/<name>`, `tag/<name>` or `commit/<id>`. */
export type RefTarget = Pick<RefPath, 'kind' | 'ref'>;

const refSegment = (target: RefTarget) => `${target.kind}/${pathUrl(target.ref)}`;
const withPath = (url: string, path: string) => (path ? `${url}/${pathUrl(path)}` : url);

export const srcUrl = (repo: RepositoryRow, target: RefTarget, path = '') => withPath(`${repoBase(repo)}/src/${refSegment(target)}`, path);
export const rawUrl = (repo: RepositoryRow, target: RefTarget, path: string) => withPath(`${repoBase(repo)}/raw/${refSegment(target)}`, path);
export const blameUrl = (repo: RepositoryRow, target: RefTarget, path: string) => withPath(`${repoBase(repo)}/blame/${refSegment(target)}`, path);
export const historyUrl = (repo: RepositoryRow, target: RefTarget, path = '') => withPath(`${repoBase(repo)}/commits/${refSegment(target)}`, path);
// The browser editor's pages (Gitea's paths): only branches are committed to.
export const editUrl = (repo: RepositoryRow, branch: string, path: string) => `${repoBase(repo)}/_edit/${pathUrl(branch)}/${pathUrl(path)}`;
export const newFileUrl = (repo: RepositoryRow, branch: string, folder: string) => withPath(`${repoBase(repo)}/_new/${pathUrl(branch)}`, folder);
export const deleteUrl = (repo: RepositoryRow, branch: string, path: string) => `${repoBase(repo)}/_delete/${pathUrl(branch)}/${pathUrl(path)}`;
export const uploadUrl = (repo: RepositoryRow, branch: string, folder: string) => withPath(`${repoBase(repo)}/_upload/${pathUrl(branch)}`, folder);
export const commitUrl = (repo: RepositoryRow, sha: string) => `${repoBase(repo)}/commit/${sha}`;

const UNITS: Array<[number, string]> = [
  [365 * 86_400, 'year'],
  [30 * 86_400, 'month'],
  [7 * 86_400, 'week'],
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
];

/** "3 days ago" in a `<time>` whose title (shown on hover) and datetime hold the exact time. */
export function relativeTime(iso: string, now = Date.now()): SafeHtml | '' {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return '';
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  const unit = UNITS.find(([size]) => seconds >= size);
  const text = unit ? `${Math.floor(seconds / unit[0])} ${unit[1]}${Math.floor(seconds / unit[0]) === 1 ? '' : 's'} ago` : 'just now';
  const exact = new Date(at).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
  return html`<time datetime="${new Date(at).toISOString()}" title="${exact}">${text}</time>`;
}

/** Breadcrumbs of `path`: the repository name, then each folder as a link, the last part as plain text. */
export function breadcrumbs(repo: RepositoryRow, target: RefTarget, path: string): SafeHtml {
  const parts = path ? path.split('/') : [];
  const crumbs = parts.map((part, index) =>
    index === parts.length - 1 ? html` / <strong>${part}</strong>` : html` / <a href="${srcUrl(repo, target, parts.slice(0, index + 1).join('/'))}">${part}</a>`,
  );
  return html`<nav aria-label="Breadcrumbs" class="breadcrumbs"><a href="${srcUrl(repo, target)}">${repo.name}</a>${crumbs}</nav>`;
}

/** Most branches and tags a switcher lists. */
const SWITCHER_LIMIT = 100;

/** Who may make a branch or tag from the switcher, and the commit it starts at. */
export interface RefCreator {
  viewer: PageUser;
  commit: string;
}

/** The switcher's form: a name, and a branch or a tag made at `creator.commit`. */
function refCreateForm(repo: RepositoryRow, creator: RefCreator): SafeHtml {
  return html`<form method="post" action="${repoBase(repo)}/branches/_new" class="ref-create">${csrfInput(creator.viewer)}<input type="hidden" name="from" value="${creator.commit}">
<label>New branch or tag <input name="name" required maxlength="250" autocomplete="off"></label>
<span class="actions"><button type="submit" name="kind" value="branch">Create branch</button><button type="submit" name="kind" value="tag">Create tag</button></span></form>`;
}

/**
 * The branch/tag switcher: a `<details>` disclosure (keyboard-usable without script) listing branches and tags,
 * each a link to the same path on that ref, and for writers the form making a new one.
 */
export function refSwitcher(repo: RepositoryRow, current: RefTarget, refs: { branches: string[]; tags: string[] }, path = '', creator?: RefCreator): SafeHtml {
  const label = current.kind === 'commit' ? current.ref.slice(0, 10) : current.ref;
  const item = (kind: 'branch' | 'tag', name: string) =>
    html`<li><a href="${srcUrl(repo, { kind, ref: name }, path)}"${kind === current.kind && name === current.ref ? html` aria-current="true"` : ''}>${name}</a></li>`;
  return html`<details class="switcher"><summary><span class="sr-only">Switch branch or tag, current: </span>${current.kind === 'tag' ? 'Tag' : current.kind === 'commit' ? 'Commit' : 'Branch'}: ${label}</summary>
<div class="menu-items"><h2>Branches</h2><ul>${refs.branches.slice(0, SWITCHER_LIMIT).map((name) => item('branch', name))}</ul>
${refs.tags.length ? html`<h2>Tags</h2><ul>${refs.tags.slice(0, SWITCHER_LIMIT).map((name) => item('tag', name))}</ul>` : ''}${creator ? refCreateForm(repo, creator) : ''}</div></details>`;
}

/** Previous/next page links for a paged list (page numbers from 1). */
export function pager(url: (page: number) => string, page: number, hasNext: boolean, labels: [string, string] = ['← Previous', 'Next →']): SafeHtml | '' {
  if (page <= 1 && !hasNext) return '';
  return html`<nav class="pager" aria-label="Pages">${page > 1 ? html`<a href="${url(page - 1)}" rel="prev">${labels[0]}</a>` : ''}
${hasNext ? html`<a href="${url(page + 1)}" rel="next">${labels[1]}</a>` : ''}</nav>`;
}
