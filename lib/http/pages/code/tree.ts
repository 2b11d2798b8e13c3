import type { CommitInfo, TreeObject } from '../../../git/browse.js';
import type { FileEntry } from '../../../git/tree-listing.js';
import { atLeast, type AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { html, SafeHtml, type PageUser } from '../html.js';
import { repoPage } from '../repo-layout.js';
import { breadcrumbs, commitUrl, historyUrl, newFileUrl, uploadUrl, pager, refSwitcher, relativeTime, srcUrl, type RefCreator, type RefTarget } from './links.js';

/** A folder entry with its kind (folder, file or submodule); the size is not shown (nor always read). */
export interface ListedEntry extends Omit<FileEntry, 'size'> {
  kind: TreeObject['type'];
}

/** Entries one folder page lists (GitHub shows a folder's first 1,000); the rest are on the next pages. */
export const FOLDER_PAGE_SIZE = 1000;

/** Where a listing is among the pages of a large folder. */
export interface ListingPage {
  page: number;
  pages: number;
  /** Entries of the whole folder. */
  total: number;
  url: (page: number) => string;
}

/** Everything a folder view shows besides the entries. */
export interface FolderContext {
  repo: RepositoryRow;
  access: AccessLevel;
  target: RefTarget;
  /** The commit the page shows (new branches and tags start there). */
  commit: string;
  path: string;
  refs: { branches: string[]; tags: string[] };
  /** The newest commit of the folder's history. */
  latest: CommitInfo | undefined;
}

const KIND_LABEL = { tree: 'Folder', blob: 'File', commit: 'Submodule' } as const;
// Drawn inline (no icon font, no emoji font needed); the label is spoken instead.
const ICON_PATH = {
  tree: 'M1.75 2h4.5l1.5 1.5h6.5c.4 0 .75.35.75.75v8.5c0 .4-.35.75-.75.75H1.75A.75.75 0 0 1 1 12.75v-10C1 2.35 1.35 2 1.75 2Z',
  blob: 'M3.75 1h6l3.5 3.5v9.75c0 .4-.35.75-.75.75H3.75a.75.75 0 0 1-.75-.75V1.75c0-.4.35-.75.75-.75Zm5.75 1v3h3Z',
  commit: 'M2 2h12v12H2Zm2 2v8h8V4Z',
} as const;
const icon = (kind: ListedEntry['kind']) =>
  new SafeHtml(`<svg class="kind" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false"><path fill="currentColor" d="${ICON_PATH[kind]}"/></svg>`);

/** Folders first, then files, each by name (as forges list them). */
export function sortEntries<T extends Pick<ListedEntry, 'name' | 'kind'>>(entries: T[]): T[] {
  const rank = (entry: T) => (entry.kind === 'blob' ? 1 : 0);
  return entries.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function entryRow(folder: FolderContext, entry: ListedEntry): SafeHtml {
  const path = folder.path ? `${folder.path}/${entry.name}` : entry.name;
  const name =
    entry.kind === 'commit'
      ? html`<span>${entry.name}</span>`
      : html`<a href="${srcUrl(folder.repo, folder.target, path)}">${entry.name}</a>`;
  return html`<tr><td class="name">${icon(entry.kind)}<span class="sr-only">${KIND_LABEL[entry.kind]}: </span> ${name}</td>
<td class="msg">${entry.last_hash ? html`<a href="${commitUrl(folder.repo, entry.last_hash)}">${entry.last_msg}</a>` : ''}</td>
<td class="when">${relativeTime(entry.last_time)}</td></tr>`;
}

/** The newest commit line above a listing, and the link to the history of this folder. */
function latestLine(folder: FolderContext): SafeHtml | '' {
  const latest = folder.latest;
  if (!latest) return '';
  return html`<p class="latest"><strong>${latest.author_name}</strong> <a href="${commitUrl(folder.repo, latest.sha)}">${latest.subject}</a>
<span class="muted">${latest.sha.slice(0, 10)}</span> · ${relativeTime(latest.committed_at)} ·
<a href="${historyUrl(folder.repo, folder.target, folder.path)}">History</a></p>`;
}

const number = (n: number) => n.toLocaleString('en-US');

/** Which entries of a large folder this page lists, and the links to the other pages. */
function pageNote(paging: ListingPage | undefined, shown: number): { above: SafeHtml | ''; below: SafeHtml | '' } {
  if (!paging || paging.pages <= 1) return { above: '', below: '' };
  const first = (paging.page - 1) * FOLDER_PAGE_SIZE + 1;
  const note = html`<p class="notice" role="status">This folder has ${number(paging.total)} entries: ${number(first)} to ${number(first + shown - 1)} are listed here (page ${paging.page} of ${paging.pages}).</p>`;
  return { above: note, below: pager(paging.url, paging.page, paging.page < paging.pages, ['← Previous entries', 'Next entries →']) };
}

/** The listing table of a folder, with each entry's last commit; one page of it when the folder is large. */
export function listingTable(folder: FolderContext, entries: ListedEntry[], paging?: ListingPage): SafeHtml {
  const parent = folder.path.includes('/') ? folder.path.slice(0, folder.path.lastIndexOf('/')) : '';
  const { above, below } = pageNote(paging, entries.length);
  return html`${latestLine(folder)}${above}<table class="listing"><caption class="sr-only">Files in ${folder.path || folder.repo.name}</caption>
<thead class="sr-only"><tr><th scope="col">Name</th><th scope="col">Last commit</th><th scope="col">When</th></tr></thead><tbody>
${folder.path ? html`<tr><td class="name" colspan="3"><a href="${srcUrl(folder.repo, folder.target, parent)}">..</a></td></tr>` : ''}
${entries.map((entry) => entryRow(folder, entry))}</tbody></table>${below}`;
}

/** The switcher's form making a branch or tag at what the page shows, for writers. */
export function refCreator(viewer: PageUser | undefined, place: FolderContext): RefCreator | undefined {
  return viewer && atLeast(place.access, 'write') ? { viewer, commit: place.commit } : undefined;
}

/** Whether the viewer may commit from the browser here: writers, on a branch. */
export function canEdit(place: FolderContext): boolean {
  return place.target.kind === 'branch' && atLeast(place.access, 'write');
}

/** The page of a folder: switcher, breadcrumbs, listing (a page of it when large), and the folder's README. */
export function folderView(viewer: PageUser | undefined, folder: FolderContext, entries: ListedEntry[], readme: SafeHtml | '', paging?: ListingPage): string {
  return repoPage(
    viewer,
    folder.repo,
    folder.access,
    'code',
    folder.path || folder.target.ref,
    html`<div class="toolbar">${refSwitcher(folder.repo, folder.target, folder.refs, folder.path, refCreator(viewer, folder))}${breadcrumbs(folder.repo, folder.target, folder.path)}<span class="spacer"></span>${canEdit(folder) ? html`<a class="button" href="${newFileUrl(folder.repo, folder.target.ref, folder.path)}">Add file</a><a class="button" href="${uploadUrl(folder.repo, folder.target.ref, folder.path)}">Upload files</a>` : ''}</div>
${listingTable(folder, entries, paging)}${readme}`,
  );
}
