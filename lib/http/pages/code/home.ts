import { csrfInput, html, type PageUser, type SafeHtml } from '../html.js';
import { pathUrl, repoBase, repoPage } from '../repo-layout.js';
import { refSwitcher } from './links.js';
import { listingTable, refCreator, type FolderContext, type ListedEntry, type ListingPage } from './tree.js';

export interface HomeDetails {
  cloneUrl: string;
  /** The SSH clone URL; '' when the host does not serve SSH. */
  sshUrl: string;
  social: { stars: number; watchers: number; starred: boolean; watching: boolean };
  /** The repository's topics (GitHub's), in their order. */
  topics: readonly string[];
  /** The default branch's root listing; undefined for an empty repository. */
  listing?: { folder: FolderContext; entries: ListedEntry[]; paging?: ListingPage };
  readme: SafeHtml | '';
}

/** Star and watch toggles: forms (with the request-forgery token) for signed-in viewers, counts for everyone. */
function socialButtons(viewer: PageUser | undefined, base: string, social: HomeDetails['social']): SafeHtml {
  if (!viewer) {
    return html`<span class="social"><span class="button">★ Stars <strong>${social.stars}</strong></span> <span class="button">Watchers <strong>${social.watchers}</strong></span></span>`;
  }
  return html`<span class="social"><form method="post" action="${base}/action/star" class="inline">${csrfInput(viewer)}<button type="submit" aria-pressed="${social.starred ? 'true' : 'false'}">${social.starred ? '★ Unstar' : '☆ Star'} <strong>${social.stars}</strong></button></form>
<form method="post" action="${base}/action/watch" class="inline">${csrfInput(viewer)}<button type="submit" aria-pressed="${social.watching ? 'true' : 'false'}">${social.watching ? 'Unwatch' : 'Watch'} <strong>${social.watchers}</strong></button></form></span>`;
}

function emptyHint(cloneUrl: string, branch: string): SafeHtml {
  return html`<section aria-labelledby="empty-title"><h2 id="empty-title">This repository is empty</h2>
<p>Push a first commit from the command line:</p>
<pre><code>git init
git add .
git commit -m "First commit"
git branch -M ${branch}
git remote add origin ${cloneUrl}
git push -u origin ${branch}</code></pre>
<p>Or push an existing repository: <code>git push ${cloneUrl} ${branch}</code></p></section>`;
}

/** The repository home: description, topics, clone URL with a copy button, star/watch, the root listing and README. */
export function homeView(viewer: PageUser | undefined, folder: Pick<FolderContext, 'repo' | 'access'>, details: HomeDetails): string {
  const { repo } = folder;
  const listing = details.listing;
  return repoPage(
    viewer,
    repo,
    folder.access,
    'code',
    '',
    html`${repo.description ? html`<p class="description">${repo.description}</p>` : ''}${details.topics.length > 0 ? html`<ul class="topics" aria-label="Topics">${details.topics.map((topic) => html`<li>${topic}</li>`)}</ul>` : ''}
<div class="toolbar"><div class="clone"><span class="muted">Clone</span> <code id="clone-url">${details.cloneUrl}</code>
<button type="button" data-copy="clone-url">Copy</button>${details.sshUrl ? html` <span class="muted">SSH</span> <code id="ssh-url">${details.sshUrl}</code>
<button type="button" data-copy="ssh-url">Copy</button>` : ''}</div><span class="spacer"></span>${listing ? html`<form class="search inline" method="get" action="${repoBase(repo)}/search" role="search"><label><span class="sr-only">Search code</span><input type="search" name="q" placeholder="Search code" minlength="2" maxlength="200" required></label></form>` : ''}${listing ? html`<span class="downloads"><a class="button" href="${repoBase(repo)}/archive/${pathUrl(repo.default_branch)}.zip" download>Download ZIP</a> <a class="button" href="${repoBase(repo)}/archive/${pathUrl(repo.default_branch)}.tar.gz" download aria-label="Download tar.gz">tar.gz</a></span> ` : ''}${socialButtons(viewer, repoBase(repo), details.social)}</div>
${listing
  ? html`<div class="toolbar">${refSwitcher(repo, listing.folder.target, listing.folder.refs, '', refCreator(viewer, listing.folder))}</div>${listingTable(listing.folder, listing.entries, listing.paging)}${details.readme}`
  : emptyHint(details.cloneUrl, repo.default_branch)}`,
  );
}
