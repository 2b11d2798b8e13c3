import { CSRF_FIELD } from '../csrf.js';
import { ownValue } from '../../own-value.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Markup that is already safe; everything else interpolated into `html` is escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ownValue(ESCAPES, char)!);
}

type Interpolation = string | number | SafeHtml | undefined | null | false | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Tagged template that escapes every interpolated value unless it is `SafeHtml`. */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += render(value) + strings[index + 1]!;
  });
  return new SafeHtml(out);
}

export interface PageUser {
  username: string;
  /** Unread notifications, when counted for this page (see notification-count.ts). */
  unread?: number;
  /** The request-forgery token every form posted by this viewer carries (see csrf.ts). */
  csrf?: string;
}

/** The hidden field with the viewer's request-forgery token; every form of a signed-in viewer has it. */
export function csrfInput(user: PageUser | undefined): SafeHtml | '' {
  return csrfField(user?.csrf);
}

/** The hidden field with a request-forgery token, when the request has a session cookie to derive one from. */
export function csrfField(token: string | undefined): SafeHtml | '' {
  return token ? html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">` : '';
}

/** The link to the viewer's notifications, with how many are unread. */
function inboxLink(user: PageUser): SafeHtml {
  const unread = user.unread ?? 0;
  return unread > 0
    ? html`<a href="/notifications" class="inbox unread" aria-label="Notifications, ${unread} unread">Notifications <span class="count">${unread > 99 ? '99+' : unread}</span></a>`
    : html`<a href="/notifications" class="inbox">Notifications</a>`;
}

/** The signed-in viewer's menu: a `<details>` disclosure, so it opens with Enter/Space and needs no script. */
function userMenu(user: PageUser): SafeHtml {
  return html`<details class="menu"><summary aria-label="Menu of ${user.username}">${user.username}</summary>
<ul class="menu-items">
<li><a href="/${user.username}">Your profile</a></li>
<li><a href="/new">New repository</a></li>
<li><a href="/explore">Explore</a></li>
<li><a href="/user/settings">Account settings</a></li>
<li><a href="/${user.username}/settings/api-tokens">API tokens</a></li>
<li><form method="post" action="/logout">${csrfInput(user)}<button type="submit">Sign out</button></form></li>
</ul></details>`;
}

/**
 * The page frame: title, header with the viewer's menu, body. Styles and scripts come from /assets (see
 * lib/http/assets): the Content-Security-Policy of every HTML answer (html-response.ts) forbids inline scripts.
 */
export function page(title: string, user: PageUser | undefined, body: SafeHtml): string {
  const nav = user
    ? html`<a href="/explore" class="wide-only">Explore</a><a href="/new" class="wide-only">New repository</a>${inboxLink(user)}${userMenu(user)}`
    : html`<a href="/explore">Explore</a><a href="/login">Sign in</a><a href="/register">Register</a>`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · repohost</title><link rel="stylesheet" href="/assets/highlight.css"><link rel="stylesheet" href="/assets/site.css"><script src="/assets/site.js" defer></script></head>
<body><a class="skip-link" href="#content">Skip to content</a><header class="top"><a href="/" class="brand"><strong>repohost</strong></a><span class="spacer"></span><nav aria-label="Site">${nav}</nav></header>
<main id="content" tabindex="-1">${body}</main></body></html>`.value;
}
