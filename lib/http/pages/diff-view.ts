import type { ChangedFile } from '../../git/diff.js';
import { html, type SafeHtml } from './html.js';

/** A file with more changed lines than this starts collapsed (its `<details>` closed). */
const COLLAPSE_ABOVE_LINES = 400;

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

type DiffRow =
  | { kind: 'hunk'; text: string }
  | { kind: 'add' | 'del' | 'ctx'; text: string; old: number | null; new: number | null }
  | { kind: 'note'; text: string };

/** The rows of a unified patch as git wrote it (hunks only): each line with its old and new line number. */
export function patchRows(patch: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const line of patch.split('\n')) {
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      rows.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('+')) rows.push({ kind: 'add', text: line.slice(1), old: null, new: newLine++ });
    else if (line.startsWith('-')) rows.push({ kind: 'del', text: line.slice(1), old: oldLine++, new: null });
    else if (line.startsWith('\\')) rows.push({ kind: 'note', text: line.slice(2) });
    else rows.push({ kind: 'ctx', text: line.slice(1), old: oldLine++, new: newLine++ });
  }
  return rows;
}

const SIGN = { add: '+', del: '-', ctx: ' ' } as const;
const SPOKEN = { add: 'added', del: 'removed', ctx: '' } as const;

function rowHtml(row: DiffRow): SafeHtml {
  if (row.kind === 'hunk') return html`<tr class="hunk"><td class="num"></td><td class="num"></td><td>${row.text}</td></tr>`;
  if (row.kind === 'note') return html`<tr class="hunk"><td class="num"></td><td class="num"></td><td>${row.text}</td></tr>`;
  const spoken = SPOKEN[row.kind];
  return html`<tr class="${row.kind}"><td class="num">${row.old ?? ''}</td><td class="num">${row.new ?? ''}</td><td>${spoken ? html`<span class="sr-only">${spoken}: </span>` : ''}${SIGN[row.kind]}${row.text}</td></tr>`;
}

function fileTitle(file: ChangedFile): SafeHtml {
  if (file.previous_filename && file.previous_filename !== file.filename) return html`<span>${file.previous_filename} → ${file.filename}</span>`;
  return html`<span>${file.filename}</span>`;
}

function fileBody(file: ChangedFile): SafeHtml {
  if (file.patch === undefined) {
    if (file.patch_omitted) return html`<p class="muted">This diff is too large to show here; download the patch instead.</p>`;
    if (file.status === 'renamed' && file.changes === 0) return html`<p class="muted">File renamed without changes.</p>`;
    return html`<p class="muted">Binary file not shown.</p>`;
  }
  return html`<div class="code-scroll" tabindex="0" role="region" aria-label="Diff of ${file.filename}"><table class="code diff"><caption class="sr-only">Changes to ${file.filename}</caption>
<thead class="sr-only"><tr><th scope="col">Old line</th><th scope="col">New line</th><th scope="col">Line</th></tr></thead>
<tbody>${patchRows(file.patch).map(rowHtml)}</tbody></table></div>`;
}

/** One file's section: name (renames as old → new), status, line counts, and its patch (collapsed when large). */
function fileSection(file: ChangedFile, index: number): SafeHtml {
  const open = file.changes <= COLLAPSE_ABOVE_LINES;
  return html`<details class="diff-file" id="diff-${index + 1}"${open ? ' open' : ''}>
<summary>${fileTitle(file)} <span class="badge">${file.status}</span>
<span class="added">+${file.additions}</span> <span class="removed">−${file.deletions}</span></summary>
${fileBody(file)}</details>`;
}

/** How long one slice of a diff renders before the event loop gets a turn (a 200-file diff takes tens of ms cold). */
const SLICE_MS = 4;

/** Renders each item, giving the event loop a turn whenever a slice has taken SLICE_MS, so other requests go on. */
async function renderInSlices<T>(items: readonly T[], renderOne: (item: T, index: number) => SafeHtml): Promise<SafeHtml[]> {
  const rendered: SafeHtml[] = [];
  let sliceStarted = performance.now();
  for (const [index, item] of items.entries()) {
    rendered.push(renderOne(item, index));
    if (performance.now() - sliceStarted >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
  }
  return rendered;
}

/**
 * Renders per-file unified diffs from git's own output (lib/git/diff.ts `changedFiles`): a summary of the files,
 * then a section per file. Every name and line is escaped by `html`.
 */
export async function renderDiff(files: readonly ChangedFile[]): Promise<SafeHtml> {
  if (files.length === 0) return html`<p class="muted">No changes.</p>`;
  const additions = files.reduce((sum, file) => sum + file.additions, 0);
  const deletions = files.reduce((sum, file) => sum + file.deletions, 0);
  const sections = await renderInSlices(files, fileSection);
  return html`<div class="diff-view"><p>${files.length} ${files.length === 1 ? 'file' : 'files'} changed,
<span class="added">${additions} ${additions === 1 ? 'addition' : 'additions'}</span>, <span class="removed">${deletions} ${deletions === 1 ? 'deletion' : 'deletions'}</span></p>
<ol class="diff-toc">${files.map((file, index) => html`<li><a href="#diff-${index + 1}">${file.filename}</a> <span class="added">+${file.additions}</span> <span class="removed">−${file.deletions}</span></li>`)}</ol>
${sections}</div>`;
}
