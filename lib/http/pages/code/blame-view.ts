import type { BlameHunk } from '../../../git/blame.js';
import { html, SafeHtml, type PageUser } from '../html.js';
import { repoPage } from '../repo-layout.js';
import { blameUrl, breadcrumbs, commitUrl, historyUrl, rawUrl, refSwitcher, relativeTime, srcUrl } from './links.js';
import type { FolderContext } from './tree.js';

/** What the blame page shows: runs of lines with their commit, or why there are none. */
export type BlameContent = { kind: 'hunks'; hunks: BlameHunk[]; lines: string[] } | { kind: 'binary' } | { kind: 'large' };

/**
 * The blame of one file: each run of lines with the commit that last changed it (summary, author, when) and a link to
 * the blame before that change; `lines` are the file's lines as safe HTML (highlighted or escaped), by number.
 */
export function blameView(viewer: PageUser | undefined, file: FolderContext, content: BlameContent): string {
  const { repo } = file;
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  let rows = '';
  if (content.kind === 'hunks') {
    for (const hunk of content.hunks) {
      const commit = hunk.commit;
      const previous = commit.previous
        ? html`<a class="blame-prior" href="${blameUrl(repo, { kind: 'commit', ref: commit.previous.sha }, commit.previous.path)}#L${hunk.start}" aria-label="Blame before ${commit.sha.slice(0, 7)}" title="Blame before this change">↶</a>`
        : '';
      const when = relativeTime(new Date(commit.authorTime * 1000).toISOString());
      const info = html`<td class="blame-commit" rowspan="${hunk.lines.length}"><a href="${commitUrl(repo, commit.sha)}">${commit.summary || commit.sha.slice(0, 7)}</a>
<span class="muted">${commit.author}, ${when}</span> ${previous}</td>`;
      hunk.lines.forEach((_line, offset) => {
        const number = hunk.start + offset;
        // The lines are already safe HTML (escaped or highlighted): added as they are.
        rows += `<tr id="L${number}">${offset === 0 ? info.toString() : ''}<td class="num"><a href="#L${number}" class="line-link" data-line="${number}">${number}</a></td><td class="line">${content.lines[number - 1] ?? ''}</td></tr>`;
      });
    }
  }
  const body =
    content.kind === 'hunks'
      ? html`<div class="code-scroll" tabindex="0" role="region" aria-label="Blame of ${name}"><table class="code blame"><tbody>${new SafeHtml(rows)}</tbody></table></div>`
      : html`<p class="download">${content.kind === 'binary' ? 'A binary file has no blame.' : 'This file is too large to blame here.'}</p>`;
  return repoPage(
    viewer,
    repo,
    file.access,
    'code',
    `Blame of ${file.path}`,
    html`<div class="toolbar">${refSwitcher(repo, file.target, file.refs, file.path)}${breadcrumbs(repo, file.target, file.path)}</div>
<section class="file" aria-label="Blame of ${name}"><div class="file-head"><span>Blame</span><span class="spacer"></span>
<a href="${srcUrl(repo, file.target, file.path)}" class="button">Source</a><a href="${rawUrl(repo, file.target, file.path)}" class="button">Raw</a><a href="${historyUrl(repo, file.target, file.path)}" class="button">History</a></div>
${body}</section>`,
  );
}
