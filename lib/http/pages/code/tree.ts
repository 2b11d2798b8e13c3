import type { CommitInfo, TreeObject } from '../../../git/browse.js';
import type { FileEntry } from '../../../git/tree-listing.js';
import type { AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { html, SafeHtml, type PageUser } from '../html.js';
import { repoPage } from '../repo-layout.js';
import { breadcrumbs, commitUrl, historyUrl, refSwitcher, relativeTime, srcUrl, type RefTarget } from './links.js';

/** A folder entry with its kind (folder, file or submodule). */
export interface ListedEntry extends FileEntry {
  kind: TreeObject['type'];
}

/** Everything a folder view shows besides the entries. */
export interface FolderContext {
  repo: RepositoryRow;
  access: AccessLevel;
  target: RefTarget;
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
export function sortEntries(entries: ListedEntry[]): ListedEntry[] {
  const rank = (entry: ListedEntry) => (entry.kind === 'blob' ? 1 : 0);
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

/** The listing table of a folder, with each entry's last commit. */
export function listingTable(folder: FolderContext, entries: ListedEntry[]): SafeHtml {
  const parent = folder.path.includes('/') ? folder.path.slice(0, folder.path.lastIndexOf('/')) : '';
  return html`${latestLine(folder)}<table class="listing"><caption class="sr-only">Files in ${folder.path || folder.repo.name}</caption>
<thead class="sr-only"><tr><th scope="col">Name</th><th scope="col">Last commit</th><th scope="col">When</th></tr></thead><tbody>
${folder.path ? html`<tr><td class="name" colspan="3"><a href="${srcUrl(folder.repo, folder.target, parent)}">..</a></td></tr>` : ''}
${entries.map((entry) => entryRow(folder, entry))}</tbody></table>`;
}

/** The page of a folder: switcher, breadcrumbs, listing, and the folder's README when it has one. */
export function folderView(viewer: PageUser | undefined, folder: FolderContext, entries: ListedEntry[], readme: SafeHtml | ''): string {
  return repoPage(
    viewer,
    folder.repo,
    folder.access,
    'code',
    folder.path || folder.target.ref,
    html`<div class="toolbar">${refSwitcher(folder.repo, folder.target, folder.refs, folder.path)}${breadcrumbs(folder.repo, folder.target, folder.path)}</div>
${listingTable(folder, entries)}${readme}`,
  );
}
