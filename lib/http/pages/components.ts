import type { LabelRow } from '../../store/queries/labels.js';
import { html, type SafeHtml } from './html.js';

/** A form's failure, announced to screen readers. */
export const errorBox = (error?: string): SafeHtml | '' => (error ? html`<p class="error" role="alert">${error}</p>` : '');

/** A success note after a form did what it said. */
export const noticeBox = (notice?: string): SafeHtml | '' => (notice ? html`<p class="notice" role="status">${notice}</p>` : '');

const UNITS: Array<[number, string]> = [
  [365 * 86_400, 'year'],
  [30 * 86_400, 'month'],
  [86_400, 'day'],
  [3600, 'hour'],
  [60, 'minute'],
];

/** A stored ISO time as "3 days ago", the exact time on hover and in `datetime`. */
export function timeAgo(iso: string | null | undefined): SafeHtml | '' {
  if (!iso) return '';
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  const unit = UNITS.find(([size]) => seconds >= size);
  const text = unit ? `${plural(Math.floor(seconds / unit[0]), unit[1])} ago` : 'just now';
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
}

/** A label as a coloured chip; the colour is six validated hex digits (labels.ts), the text is escaped. */
export function labelChip(label: Pick<LabelRow, 'name' | 'color' | 'description'>): SafeHtml {
  // Dark text on light colours, light text on dark ones (ITU-R BT.601 luma).
  const [r, g, b] = [0, 2, 4].map((at) => parseInt(label.color.slice(at, at + 2), 16)) as [number, number, number];
  const ink = r * 0.299 + g * 0.587 + b * 0.114 > 150 ? '#1f2328' : '#ffffff';
  return html`<span class="label" style="background:#${label.color};color:${ink}" title="${label.description}">${label.name}</span>`;
}

export interface StateTab {
  label: string;
  count: number;
  href: string;
  active: boolean;
}

/** Open/closed switches of a list, with their counts. */
export function stateTabs(label: string, tabs: readonly StateTab[]): SafeHtml {
  return html`<nav aria-label="${label}"><ul class="state-tabs">${tabs.map(
    (tab) => html`<li><a href="${tab.href}"${tab.active ? html` aria-current="page"` : ''}>${tab.label} <span class="count">${tab.count}</span></a></li>`,
  )}</ul></nav>`;
}

/** Previous/next links of a paginated list; `hrefOf` builds a page's address (its other query parameters kept). */
export function pager(page: number, limit: number, total: number, hrefOf: (page: number) => string): SafeHtml | '' {
  const last = Math.max(1, Math.ceil(total / limit));
  if (last === 1) return '';
  return html`<nav aria-label="Pages" class="pager">
${page > 1 ? html`<a href="${hrefOf(page - 1)}" rel="prev">Previous</a>` : ''}
<span>Page ${page} of ${last}</span>
${page < last ? html`<a href="${hrefOf(page + 1)}" rel="next">Next</a>` : ''}</nav>`;
}

/** "1 comment", "3 comments". */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A state badge: open, closed or merged. */
export function stateBadge(state: string): SafeHtml {
  return html`<span class="state state-${state}">${state.charAt(0).toUpperCase()}${state.slice(1)}</span>`;
}
