import { html, SafeHtml, type PageUser } from '../html.js';
import { repoPage } from '../repo-layout.js';
import { blameUrl, breadcrumbs, deleteUrl, editUrl, historyUrl, rawUrl, refSwitcher, srcUrl } from './links.js';
import { canEdit, refCreator, type FolderContext } from './tree.js';

/** What a file page shows: its lines, its rendered Markdown, an image, or only a download link. */
export type BlobContent =
  | { kind: 'text'; lines: SafeHtml }
  | { kind: 'markdown'; rendered: SafeHtml }
  | { kind: 'markdown-source'; lines: SafeHtml }
  | { kind: 'image' }
  | { kind: 'binary' }
  | { kind: 'large' };

/** The numbered, linkable lines of a text file (`#L10`; the script highlights ranges like `#L10-L20`). */
export function numberedLines(lines: readonly string[]): SafeHtml {
  // Each line is already safe HTML (escaped or highlighted, see highlight.ts); joined once, not re-escaped.
  let rows = '';
  lines.forEach((line, index) => {
    const number = index + 1;
    rows += `<tr id="L${number}"><td class="num"><a href="#L${number}" class="line-link" data-line="${number}">${number}</a></td><td class="line">${line}</td></tr>`;
  });
  return html`<div class="code-scroll" tabindex="0" role="region" aria-label="File contents"><table class="code"><tbody>${new SafeHtml(rows)}</tbody></table></div>`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function body(content: BlobContent, raw: string, name: string): SafeHtml {
  switch (content.kind) {
    case 'text':
    case 'markdown-source':
      return content.lines;
    case 'markdown':
      return html`<div class="markdown readme">${content.rendered}</div>`;
    case 'image':
      return html`<img class="preview" src="${raw}" alt="${name}">`;
    case 'binary':
      return html`<p class="download">This is a binary file. <a href="${raw}" download>Download ${name}</a></p>`;
    case 'large':
      return html`<p class="download">This file is too large to show here. <a href="${raw}" download>Download ${name}</a></p>`;
  }
}

/** Edit and Delete for those who may commit here; text files only are edited in the browser. */
function editButtons(file: FolderContext, content: BlobContent, lfs: boolean): SafeHtml | '' {
  if (!canEdit(file)) return '';
  const editable = !lfs && (content.kind === 'text' || content.kind === 'markdown' || content.kind === 'markdown-source');
  return html`${editable ? html`<a href="${editUrl(file.repo, file.target.ref, file.path)}" class="button">Edit</a>` : ''}<a href="${deleteUrl(file.repo, file.target.ref, file.path)}" class="button">Delete</a>`;
}

/** The page of one file: switcher, breadcrumbs, a header with its size and links (raw, history, Markdown toggle). */
/** `lfs`: the file is stored with Git LFS (size and content are the object's, not its pointer's). */
export function blobView(viewer: PageUser | undefined, file: FolderContext, size: number, content: BlobContent, lfs = false): string {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  const raw = rawUrl(file.repo, file.target, file.path);
  const here = srcUrl(file.repo, file.target, file.path);
  const markdownToggle =
    content.kind === 'markdown'
      ? html`<a href="${here}?display=source" class="button">Source</a>`
      : content.kind === 'markdown-source'
        ? html`<a href="${here}" class="button">Rendered</a>`
        : '';
  return repoPage(
    viewer,
    file.repo,
    file.access,
    'code',
    file.path,
    html`<div class="toolbar">${refSwitcher(file.repo, file.target, file.refs, file.path, refCreator(viewer, file))}${breadcrumbs(file.repo, file.target, file.path)}</div>
<section class="file" aria-label="${name}"><div class="file-head"><span>${formatSize(size)}</span>${lfs ? html`<span class="badge">Stored with Git LFS</span>` : ''}<span class="spacer"></span>${markdownToggle}
<a href="${raw}" class="button">Raw</a>${lfs ? '' : html`<a href="${blameUrl(file.repo, file.target, file.path)}" class="button">Blame</a>`}<a href="${historyUrl(file.repo, file.target, file.path)}" class="button">History</a>${editButtons(file, content, lfs)}</div>
${body(content, raw, name)}</section>`,
  );
}
