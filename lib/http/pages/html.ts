import { CSRF_FIELD } from '../csrf.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Markup that is already safe; everything else interpolated into `html` is escaped. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
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

const STYLE = `body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;border-bottom:1px solid #d0d7de;padding-bottom:.5rem;margin-bottom:1rem}
header .spacer{flex:1}a{color:#0969da}form.card{display:grid;gap:.6rem;max-width:24rem}
label{display:grid;gap:.2rem;font-weight:600}input,select,textarea{font:inherit;padding:.35rem}
button{font:inherit;padding:.4rem .9rem;cursor:pointer}.error{color:#cf222e;border:1px solid #cf222e;padding:.5rem}
.notice{border:1px solid #1a7f37;padding:.5rem}code{background:#f6f8fa;padding:.1rem .3rem;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.3rem;text-align:left}`;

export interface PageUser {
  username: string;
  /** The request-forgery token every form posted by this viewer carries (see csrf.ts). */
  csrf?: string;
}

/** The hidden field with the viewer's request-forgery token; every form of a signed-in viewer has it. */
export function csrfInput(user: PageUser | undefined): SafeHtml | '' {
  return user?.csrf ? html`<input type="hidden" name="${CSRF_FIELD}" value="${user.csrf}">` : '';
}

/** The page frame: title, navigation for the signed-in user, body. */
export function page(title: string, user: PageUser | undefined, body: SafeHtml): string {
  const nav = user
    ? html`<a href="/new">New repository</a><a href="/${user.username}">${user.username}</a>
        <a href="/${user.username}/settings/api-tokens">API tokens</a>
        <form method="post" action="/logout" style="display:inline">${csrfInput(user)}<button type="submit">Sign out</button></form>`
    : html`<a href="/login">Sign in</a><a href="/register">Register</a>`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · repohost</title><style>${new SafeHtml(STYLE)}</style></head>
<body><header><a href="/"><strong>repohost</strong></a><span class="spacer"></span>${nav}</header>
<main>${body}</main></body></html>`.value;
}
