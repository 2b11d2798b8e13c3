import type { AccessLevel } from '../../services/permissions.js';
import type { Release } from '../../services/releases.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { pager, relativeTime } from './code/links.js';
import { html, type PageUser, type SafeHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { fullName, pathUrl, repoBase, repoPage } from './repo-layout.js';

const releaseUrl = (repo: RepositoryRow, tag: string) => `${repoBase(repo)}/releases/tag/${pathUrl(tag)}`;

/** One release: its name, badges, notes rendered as Markdown (untrusted: sanitised), its assets and source archives. */
function releaseBlock(repo: RepositoryRow, release: Release, heading: 'h2' | 'h3'): SafeHtml {
  const title = release.name || release.tag_name;
  const badges = html`${release.draft ? html` <span class="badge">Draft</span>` : ''}${release.prerelease ? html` <span class="badge">Pre-release</span>` : ''}`;
  const name = heading === 'h2' ? html`<h2>${title}${badges}</h2>` : html`<h3><a href="${releaseUrl(repo, release.tag_name)}">${title}</a>${badges}</h3>`;
  const when = release.published_at ?? release.created_at;
  const assets = release.assets.map(
    (asset) => html`<li><a href="${repoBase(repo)}/releases/download/${pathUrl(release.tag_name)}/${encodeURIComponent(asset.name)}" download>${asset.name}</a> <span class="muted">${asset.size} bytes</span></li>`,
  );
  // A draft has no tag yet: no source to download.
  const sources = release.draft
    ? ''
    : html`<li><a href="${repoBase(repo)}/archive/${pathUrl(release.tag_name)}.zip" download>Source code (zip)</a></li><li><a href="${repoBase(repo)}/archive/${pathUrl(release.tag_name)}.tar.gz" download>Source code (tar.gz)</a></li>`;
  return html`<article class="release">${name}
<p class="muted">${release.tag_name} · ${release.author} ${relativeTime(when)}</p>
${release.body ? html`<div class="markdown">${renderMarkdown(release.body, { repository: fullName(repo) })}</div>` : ''}
${release.assets.length || !release.draft ? html`<h4>Assets</h4><ul class="assets">${assets}${sources}</ul>` : ''}</article>`;
}

export function releasesView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, releases: readonly Release[], page: number, hasNext: boolean): string {
  return repoPage(
    viewer,
    repo,
    access,
    'code',
    'Releases',
    html`<h2>Releases</h2>
${releases.length ? releases.map((release) => releaseBlock(repo, release, 'h3')) : html`<p>No releases yet.</p>`}
${pager((target) => `${repoBase(repo)}/releases?page=${target}`, page, hasNext)}`,
  );
}

export function releaseView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, release: Release): string {
  return repoPage(viewer, repo, access, 'code', release.name || release.tag_name, html`<p><a href="${repoBase(repo)}/releases">All releases</a></p>${releaseBlock(repo, release, 'h2')}`);
}
