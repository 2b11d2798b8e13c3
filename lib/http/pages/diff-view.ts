import type { ChangedFile, DiffPage, PatchBudget } from '../../git/diff.js';
import { HIGHLIGHT_TIME_LIMIT_MS, type PatchHighlight } from '../../highlight/index.js';
import { html, SafeHtml } from './html.js';

/** A file with more changed lines than this starts collapsed (its `<details>` closed). */
const COLLAPSE_ABOVE_LINES = 400;

/**
 * What one page shows of a diff (commit, pull request files, compare), GitHub's documented diff limits: at most 300
 * files, at most 20,000 lines or 1 MB of patch text in all (a file past that is listed without its patch), and a
 * file's own patch up to 256 KiB (GitHub: 500 KB). The rest is in the full diff, downloaded as text.
 */
export const PAGE_DIFF_LIMITS: { maxFiles: number; maxPatchBytes: number; budget: PatchBudget } = {
  maxFiles: 300,
  maxPatchBytes: 256 * 1024,
  budget: { bytes: 1024 * 1024, lines: 20_000 },
};

/** Where the whole diff of what a page shows can be downloaded (text/plain, streamed from git). */
export interface FullDiffLinks {
  diff: string;
  patch?: string;
}

/** Unified (one column, GitHub's default) or split (old and new side by side). */
export type DiffLayout = 'unified' | 'split';

/** How a page shows a diff: its layout (`?diff=split`) and whether changes of white space alone are hidden (`?w=1`). */
export interface DiffView {
  layout: DiffLayout;
  hideWhitespace: boolean;
  /** The file (its index on the page) shown with all its lines (`?expand=`), not only around its changes. */
  expanded?: number;
}

/** The view a page shows, and the address of the page in another view (for the toggles). */
export interface LayoutChoice {
  view: DiffView;
  href: (view: DiffView) => string;
}

/** The side of a diff a line is on: the old file's (removed lines) or the new file's (added and context lines). */
export type DiffSide = 'LEFT' | 'RIGHT';

/**
 * Review on a pull request's diff (the files tab): what sits under a line (its threads, or the form to comment on
 * it), and, for those who may comment, the link each line number becomes. Files are named by their index on the page.
 */
export interface DiffReview {
  below(file: ChangedFile, index: number, side: DiffSide, line: number): SafeHtml | undefined;
  /** What sits on a whole file, above its lines (threads on the file, the form to comment on it), if anything. */
  onFile?(file: ChangedFile, index: number): SafeHtml | undefined;
  /** Where a comment on the whole file is asked for, for those who may comment. */
  fileCommentHref?(index: number): string;
  /** Undefined for a line that may not be commented on (one shown only because all lines of its file are). */
  commentHref?(index: number, side: DiffSide, line: number): string | undefined;
  /** A file's own controls, above its lines (the viewer's "Viewed"), and whether it starts folded. */
  fileHead?(file: ChangedFile, index: number): { tools: SafeHtml; folded: boolean; badge?: string };
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

type DiffRow =
  | { kind: 'hunk'; text: string }
  /** `shown`: the line highlighted (safe HTML from the highlighter), else its text is escaped. */
  | { kind: 'add' | 'del' | 'ctx'; text: string; old: number | null; new: number | null; shown?: SafeHtml }
  | { kind: 'note'; text: string };

/**
 * The rows of a unified patch as git wrote it (hunks only): each line with its old and new line number, and with
 * `highlight` its highlighted form (a removed line from the old side, an added or context line from the new side).
 */
export function patchRows(patch: string, highlight?: PatchHighlight): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let oldAt = 0;
  let newAt = 0;
  const shown = (side: readonly string[] | undefined, at: number) => (side?.[at] === undefined ? undefined : new SafeHtml(side[at]!));
  for (const line of patch.split('\n')) {
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      rows.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('+')) rows.push({ kind: 'add', text: line.slice(1), old: null, new: newLine++, shown: shown(highlight?.new, newAt++) });
    else if (line.startsWith('-')) rows.push({ kind: 'del', text: line.slice(1), old: oldLine++, new: null, shown: shown(highlight?.old, oldAt++) });
    else if (line.startsWith('\\')) rows.push({ kind: 'note', text: line.slice(2) });
    else {
      oldAt++;
      rows.push({ kind: 'ctx', text: line.slice(1), old: oldLine++, new: newLine++, shown: shown(highlight?.new, newAt++) });
    }
  }
  return rows;
}

/** The places (`LEFT:12`, `RIGHT:3`) of a patch's lines: where review comments may go. */
export function patchPlaces(patch: string): Set<string> {
  const places = new Set<string>();
  for (const row of patchRows(patch)) {
    if (row.kind === 'add' || row.kind === 'del' || row.kind === 'ctx') {
      const place = placeOf(row);
      places.add(`${place.side}:${place.line}`);
    }
  }
  return places;
}

const SIGN = { add: '+', del: '-', ctx: ' ' } as const;
const SPOKEN = { add: 'added', del: 'removed', ctx: '' } as const;

/** Where a row sits for review: removed lines on the left by their old number, the others on the right by their new. */
function placeOf(row: { kind: 'add' | 'del' | 'ctx'; old: number | null; new: number | null }): { side: DiffSide; line: number } {
  return row.kind === 'del' ? { side: 'LEFT', line: row.old! } : { side: 'RIGHT', line: row.new! };
}

/** A line number cell: a link to comment on the line where the viewer may. */
function numberCell(value: number | null, href: string | undefined, side: DiffSide): SafeHtml {
  if (value === null) return html`<td class="num"></td>`;
  if (!href) return html`<td class="num">${value}</td>`;
  return html`<td class="num"><a href="${href}" class="comment-link" aria-label="Comment on ${side === 'LEFT' ? 'old' : 'new'} line ${value}">${value}</a></td>`;
}

function rowHtml(row: DiffRow, file: ChangedFile, index: number, review: DiffReview | undefined): SafeHtml {
  if (row.kind === 'hunk') return html`<tr class="hunk"><td class="num"></td><td class="num"></td><td>${row.text}</td></tr>`;
  if (row.kind === 'note') return html`<tr class="hunk"><td class="num"></td><td class="num"></td><td>${row.text}</td></tr>`;
  const spoken = SPOKEN[row.kind];
  const { side, line } = placeOf(row);
  const href = review?.commentHref?.(index, side, line);
  const below = review?.below(file, index, side, line);
  return html`<tr class="${row.kind}">${numberCell(row.old, side === 'LEFT' ? href : undefined, 'LEFT')}${numberCell(row.new, side === 'RIGHT' ? href : undefined, 'RIGHT')}<td>${spoken ? html`<span class="sr-only">${spoken}: </span>` : ''}${SIGN[row.kind]}${row.shown ?? row.text}</td></tr>${below ? html`<tr class="review-row"><td colspan="3">${below}</td></tr>` : ''}`;
}

type LineRow = Extract<DiffRow, { kind: 'add' | 'del' | 'ctx' }>;

/** One row of a split diff: the old line on the left, the new one on the right (either may be missing). */
interface SplitRow {
  left?: LineRow;
  right?: LineRow;
}

/** Pairs a hunk's removed lines with the added lines that follow them, line by line; context lines sit on both sides. */
function splitRows(rows: readonly DiffRow[]): Array<SplitRow | Extract<DiffRow, { kind: 'hunk' | 'note' }>> {
  const out: Array<SplitRow | Extract<DiffRow, { kind: 'hunk' | 'note' }>> = [];
  let removed: LineRow[] = [];
  let added: LineRow[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) out.push({ left: removed[i], right: added[i] });
    removed = [];
    added = [];
  };
  for (const row of rows) {
    if (row.kind === 'hunk' || row.kind === 'note') {
      flush();
      out.push(row);
    } else if (row.kind === 'del') {
      if (added.length > 0) flush();
      removed.push(row);
    } else if (row.kind === 'add') added.push(row);
    else {
      flush();
      out.push({ left: row, right: row });
    }
  }
  flush();
  return out;
}

/** One side of a split row: its number (a comment link where the viewer may comment) and its text. */
function splitSide(row: LineRow | undefined, side: DiffSide, index: number, review: DiffReview | undefined): SafeHtml {
  if (!row) return html`<td class="num empty"></td><td class="empty"></td>`;
  const line = side === 'LEFT' ? row.old! : row.new!;
  // A context line is commented on its new side, as in the unified layout: its old number is not a link.
  const href = side === 'RIGHT' || row.kind === 'del' ? review?.commentHref?.(index, side, line) : undefined;
  const spoken = SPOKEN[row.kind];
  return html`${numberCell(line, href, side)}<td class="${row.kind}">${spoken ? html`<span class="sr-only">${spoken}: </span>` : ''}${SIGN[row.kind]}${row.shown ?? row.text}</td>`;
}

function splitRowHtml(row: SplitRow | Extract<DiffRow, { kind: 'hunk' | 'note' }>, file: ChangedFile, index: number, review: DiffReview | undefined): SafeHtml {
  if ('kind' in row) return html`<tr class="hunk"><td class="num"></td><td colspan="3">${row.text}</td></tr>`;
  // Threads sit under the line they belong to: a context line's on its new side, as in the unified layout.
  const places: Array<{ side: DiffSide; line: number }> = [];
  if (row.left && row.left.kind === 'del') places.push({ side: 'LEFT', line: row.left.old! });
  if (row.right) places.push({ side: 'RIGHT', line: row.right.new! });
  const below = places.map((place) => review?.below(file, index, place.side, place.line)).filter((part): part is SafeHtml => part !== undefined);
  return html`<tr>${splitSide(row.left, 'LEFT', index, review)}${splitSide(row.right, 'RIGHT', index, review)}</tr>${below.length ? html`<tr class="review-row"><td colspan="4">${below}</td></tr>` : ''}`;
}

function fileTitle(file: ChangedFile): SafeHtml {
  if (file.previous_filename && file.previous_filename !== file.filename) return html`<span>${file.previous_filename} → ${file.filename}</span>`;
  return html`<span>${file.filename}</span>`;
}

/** The way to the whole diff, where the page has one. */
function downloadLinks(links: FullDiffLinks | undefined): SafeHtml | '' {
  if (!links) return '';
  return html`<a href="${links.diff}">Download the full diff</a>${links.patch ? html` or <a href="${links.patch}">the patch</a>` : ''}.`;
}

function fileBody(file: ChangedFile, index: number, shown: boolean, links: FullDiffLinks | undefined, review: DiffReview | undefined, choice: LayoutChoice | undefined, highlight: PatchHighlight | undefined): SafeHtml {
  // What a diff that hides white space has of a file whose changes are all white space.
  if (file.patch === '') return html`<p class="muted">Only white space changed.</p>`;
  if (file.patch === undefined || !shown) {
    if (file.patch_omitted || file.patch !== undefined) return html`<p class="muted">This diff is too large to show here. ${downloadLinks(links)}</p>`;
    if (file.status === 'renamed' && file.changes === 0) return html`<p class="muted">File renamed without changes.</p>`;
    return html`<p class="muted">Binary file not shown.</p>`;
  }
  return html`${expandLink(file, index, choice)}${patchTable({ ...file, patch: file.patch }, index, review, choice?.view.layout ?? 'unified', highlight)}`;
}

function patchTable(file: ChangedFile & { patch: string }, index: number, review: DiffReview | undefined, layout: DiffLayout, highlight: PatchHighlight | undefined): SafeHtml {
  if (layout === 'split') {
    return html`<div class="code-scroll" tabindex="0" role="region" aria-label="Diff of ${file.filename}"><table class="code diff split"><caption class="sr-only">Changes to ${file.filename}, old and new side by side</caption>
<thead class="sr-only"><tr><th scope="col">Old line number</th><th scope="col">Old line</th><th scope="col">New line number</th><th scope="col">New line</th></tr></thead>
<tbody>${splitRows(patchRows(file.patch, highlight)).map((row) => splitRowHtml(row, file, index, review))}</tbody></table></div>`;
  }
  return html`<div class="code-scroll" tabindex="0" role="region" aria-label="Diff of ${file.filename}"><table class="code diff"><caption class="sr-only">Changes to ${file.filename}</caption>
<thead class="sr-only"><tr><th scope="col">Old line</th><th scope="col">New line</th><th scope="col">Line</th></tr></thead>
<tbody>${patchRows(file.patch, highlight).map((row) => rowHtml(row, file, index, review))}</tbody></table></div>`;
}

function fileCommentLink(review: DiffReview | undefined, index: number): SafeHtml | '' {
  const href = review?.fileCommentHref?.(index);
  return href ? html`<a class="file-comment-link" href="${href}">Comment on this file</a>` : '';
}

/** One file's section: name (renames as old → new), status, line counts, and its patch (collapsed when large). */
function fileSection(file: ChangedFile, index: number, shown: boolean, links: FullDiffLinks | undefined, review: DiffReview | undefined, choice: LayoutChoice | undefined, highlight: PatchHighlight | undefined): SafeHtml {
  const head = review?.fileHead?.(file, index);
  const open = file.changes <= COLLAPSE_ABOVE_LINES && !head?.folded;
  return html`<details class="diff-file" id="diff-${index + 1}"${open ? ' open' : ''}>
<summary>${fileTitle(file)} <span class="badge">${file.status}</span>
<span class="added">+${file.additions}</span> <span class="removed">−${file.deletions}</span>${head?.badge ? html` <span class="badge">${head.badge}</span>` : ''}</summary>
${head?.tools ?? ''}${fileCommentLink(review, index)}${review?.onFile?.(file, index) ?? ''}${fileBody(file, index, shown, links, review, choice, highlight)}</details>`;
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

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

/** Which patches fit the page's budget, in order (a patch that does not fit is left out, later smaller ones may fit). */
function withinBudget(files: readonly ChangedFile[], budget: PatchBudget): boolean[] {
  let { bytes, lines } = budget;
  return files.map((file) => {
    if (file.patch === undefined) return false;
    const size = Buffer.byteLength(file.patch);
    const count = lineCount(file.patch);
    if (size > bytes || count > lines) return false;
    bytes -= size;
    lines -= count;
    return true;
  });
}

/** Unified or split, white space shown or hidden: the view shown, and links to the others. */
function layoutToggle(choice: LayoutChoice): SafeHtml {
  const option = (view: DiffView, label: string) => {
    const current = view.layout === choice.view.layout && view.hideWhitespace === choice.view.hideWhitespace;
    return current ? html`<strong aria-current="true">${label}</strong>` : html`<a href="${choice.href(view)}">${label}</a>`;
  };
  const { layout, hideWhitespace } = choice.view;
  return html`<p class="diff-layout"><span class="muted">View:</span> ${option({ layout: 'unified', hideWhitespace }, 'Unified')} · ${option({ layout: 'split', hideWhitespace }, 'Split')}
<span class="muted view-part">White space:</span> ${option({ layout, hideWhitespace: false }, 'Shown')} · ${option({ layout, hideWhitespace: true }, 'Hidden')}</p>`;
}

/** The view a page's address asks for: `diff=split` for the split layout, `w=1` to hide changes of white space alone. */
export function diffViewOf(layout: string | undefined, whitespace: string | undefined, expand?: string): DiffView {
  const expanded = /^\d{1,4}$/.test(expand ?? '') ? Number(expand) : undefined;
  return { layout: layout === 'split' ? 'split' : 'unified', hideWhitespace: whitespace === '1', ...(expanded === undefined ? {} : { expanded }) };
}

/** The query (without `?`) that asks for `view`: '' for the default. */
export function viewQuery(view: DiffView): string {
  return [view.layout === 'split' ? 'diff=split' : '', view.hideWhitespace ? 'w=1' : '', view.expanded === undefined ? '' : `expand=${view.expanded}`].filter(Boolean).join('&');
}

/** Lines of context git gives around changes (its default, which these diffs use). */
const CONTEXT_LINES = 3;

/**
 * Whether a patch already shows every line of the file: one hunk, from the first line, ending with fewer lines of
 * context than git gives (so the file ended there).
 */
export function showsWholeFile(patch: string): boolean {
  const hunks = patch.match(/^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/gm) ?? [];
  if (hunks.length !== 1) return false;
  const [, oldStart, newStart] = /^@@ -(\d+)(?:,\d+)? \+(\d+)/.exec(hunks[0]!)!;
  if (Number(oldStart) > 1 || Number(newStart) > 1) return false;
  const lines = patch.split('\n').filter((line) => line !== '' && !line.startsWith('\\'));
  let trailing = 0;
  for (let at = lines.length - 1; at >= 0 && lines[at]!.startsWith(' '); at--) trailing++;
  return trailing < CONTEXT_LINES;
}

/** "Show all lines" of a file, or back to its changes only, where the page can (a modified or renamed file's patch). */
function expandLink(file: ChangedFile, index: number, choice: LayoutChoice | undefined): SafeHtml | '' {
  if (!choice || (file.status !== 'modified' && file.status !== 'renamed')) return '';
  const expanded = choice.view.expanded === index;
  // Nothing more to show: the patch already holds every line.
  if (!expanded && showsWholeFile(file.patch ?? '')) return '';
  const { expanded: _, ...rest } = choice.view;
  const href = `${choice.href(expanded ? rest : { ...rest, expanded: index })}#diff-${index + 1}`;
  return html`<p class="diff-expand"><a href="${href}">${expanded ? 'Show the changes only' : 'Show all lines'}</a></p>`;
}

/** Highlights a file's patch (the host's highlighter, cached by patch). */
export type DiffHighlighting = (file: ChangedFile & { patch: string }) => Promise<PatchHighlight | undefined>;

/** Diffs highlighted by the host's highlighter. */
export const highlighting = (ctx: { highlighter: { patch(fileName: string, patch: string): Promise<PatchHighlight | undefined> } }): DiffHighlighting => (file) => ctx.highlighter.patch(file.filename, file.patch);

/**
 * Diffs up to this many characters of patches wait for their highlighting (bounded by the highlighter's own limit),
 * so a first view is coloured; larger ones are shown plain at once while it is done, and coloured from then on.
 */
const WAIT_FOR_HIGHLIGHT_CHARS = 64 * 1024;

/** The highlighted patches of the files shown, those ready in time (see WAIT_FOR_HIGHLIGHT_CHARS). */
async function highlightsOf(files: readonly ChangedFile[], highlight: DiffHighlighting): Promise<Map<ChangedFile, PatchHighlight>> {
  const ready = new Map<ChangedFile, PatchHighlight>();
  const withPatch = files.filter((file): file is ChangedFile & { patch: string } => !!file.patch);
  const all = Promise.all(withPatch.map(async (file) => {
    const found = await highlight(file).catch(() => undefined);
    if (found) ready.set(file, found);
  }));
  const chars = withPatch.reduce((sum, file) => sum + file.patch.length, 0);
  let timer: NodeJS.Timeout | undefined;
  // Patches already highlighted (cached) are in `ready` after one turn even without a wait.
  const wait = new Promise<void>((resolve) => (timer = setTimeout(resolve, chars <= WAIT_FOR_HIGHLIGHT_CHARS ? HIGHLIGHT_TIME_LIMIT_MS : 0)));
  try {
    await Promise.race([all, wait]);
  } finally {
    clearTimeout(timer);
  }
  return ready;
}

const count = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;

/**
 * Renders per-file unified diffs from git's own output (lib/git/diff.ts): a summary of the files, then a section per
 * file, within PAGE_DIFF_LIMITS: past them a note says how much is shown and links to the full diff (`links`).
 * `diff` is a page of a diff (its `total` counts every file) or all of its files. Every name and line is escaped.
 * `review` puts threads and comment forms under lines (a pull request's files tab); `choice` lays the lines out
 * unified or split, with a toggle between the two.
 */
export async function renderDiff(diff: readonly ChangedFile[] | DiffPage, links?: FullDiffLinks, review?: DiffReview, choice?: LayoutChoice, highlight?: DiffHighlighting): Promise<SafeHtml> {
  const all = 'files' in diff ? diff.files : diff;
  const total = 'files' in diff ? Math.max(diff.total, all.length) : all.length;
  if (total === 0) return html`<p class="muted">No changes.</p>`;
  const files = all.slice(0, PAGE_DIFF_LIMITS.maxFiles);
  const additions = files.reduce((sum, file) => sum + file.additions, 0);
  const deletions = files.reduce((sum, file) => sum + file.deletions, 0);
  const shown = withinBudget(files, PAGE_DIFF_LIMITS.budget);
  const highlights = highlight ? await highlightsOf(files.filter((_, index) => shown[index]), highlight) : new Map<ChangedFile, PatchHighlight>();
  const sections = await renderInSlices(files, (file, index) => fileSection(file, index, shown[index]!, links, review, choice, highlights.get(file)));
  const changes = html`<span class="added">${count(additions, 'addition')}</span>, <span class="removed">${count(deletions, 'deletion')}</span>`;
  const summary =
    files.length === total
      ? html`<p>${count(total, 'file')} changed, ${changes}</p>`
      : html`<p>${count(total, 'file')} changed; the first ${files.length.toLocaleString('en-US')} are shown, with ${changes}.</p>
<p class="notice" role="status">This diff is too large to show in full: only its first ${count(files.length, 'file')} are listed here. ${downloadLinks(links)}</p>`;
  return html`<div class="diff-view">${choice ? layoutToggle(choice) : ''}${summary}
<ol class="diff-toc">${files.map((file, index) => html`<li><a href="#diff-${index + 1}">${file.filename}</a> <span class="added">+${file.additions}</span> <span class="removed">−${file.deletions}</span></li>`)}</ol>
${sections}</div>`;
}
