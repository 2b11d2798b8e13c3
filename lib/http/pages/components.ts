import type { LabelRow } from '../../store/queries/labels.js';
import { html, type SafeHtml } from './html.js';

/** A form's failure, announced to screen readers. */
export const errorBox = (error?: string): SafeHtml | '' => (error ? html`<p class="error" role="alert">${error}</p>` : '');

/** A success note after a form did what it said. */
export const noticeBox = (notice?: string): SafeHtml | '' => (notice ? html`<p class="notice" role="status">${notice}</p>` : '');

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

/** "1 comment", "3 comments". */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** A state badge: open, closed or merged. */
export function stateBadge(state: string): SafeHtml {
  return html`<span class="state state-${state}">${state.charAt(0).toUpperCase()}${state.slice(1)}</span>`;
}
