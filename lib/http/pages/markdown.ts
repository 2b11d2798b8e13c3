import MarkdownIt from 'markdown-it';
import { REFERENCE } from '../../services/references.js';
import { SafeHtml } from './html.js';

/** Link schemes a rendered link or image may use; anything else (javascript:, data:, vbscript:, file:) is dropped. */
const ALLOWED_SCHEME = /^(https?:|mailto:)/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Markdown from users and repositories (READMEs, issue bodies, comments). markdown-it with raw HTML off: every `<`
 * the author wrote comes out escaped, and links keep only http, https, mailto and relative targets.
 */
const renderer = new MarkdownIt({ html: false, linkify: true, typographer: false });
renderer.validateLink = (url: string): boolean => {
  // Browsers ignore control characters and white space inside a scheme ("java\tscript:"): judge the URL as they do.
  const squeezed = url.replace(/[\u0000-\u0020\u007f]+/g, '');
  return !HAS_SCHEME.test(squeezed) || ALLOWED_SCHEME.test(squeezed);
};
/**
 * Where relative links and images of a repository's Markdown lead: `pages` for links (the code browser), `raw` for
 * images (the raw bytes), both folder URLs ending in `/`.
 */
export interface RelativeBase {
  pages: string;
  raw: string;
}

/** Where a text is shown: what renderMarkdown hands its rules through markdown-it's env. */
export interface MarkdownContext {
  /** Relative links and images of a repository's file resolve against these. */
  base?: RelativeBase;
  /** `owner/name` of the repository the text belongs to: `#12` links to its issue or pull request 12. */
  repository?: string;
  /** Plain Markdown, as a file outside any conversation (GitHub's `markdown` mode): references stay text. */
  plain?: boolean;
  /** The host's base URL, for HTML shown elsewhere (the Markdown API): references link to it, not to this site's root. */
  origin?: string;
}

const baseOf = (env: unknown): RelativeBase | undefined => (env as MarkdownContext | undefined)?.base;

/** A link relative to the document (not `#anchor`, not `/rooted`, no scheme) resolved against a folder URL. */
function resolveRelative(url: string, folder: string | undefined): string {
  if (!folder || url === '' || url.startsWith('#') || url.startsWith('/') || HAS_SCHEME.test(url)) return url;
  const resolved = new URL(url, `http://repository${folder}`);
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

// Links written by others open without handing them this page (window.opener) or the referrer.
const defaultLinkOpen = renderer.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
renderer.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const token = tokens[index]!;
  const href = String(token.attrGet('href') ?? '');
  // References (see below) lead to this host, also when written out in full for the Markdown API.
  if (HAS_SCHEME.test(href) && !(token.meta as { reference?: boolean } | null)?.reference) token.attrSet('rel', 'nofollow noopener noreferrer');
  else token.attrSet('href', resolveRelative(href, baseOf(env)?.pages));
  return defaultLinkOpen(tokens, index, options, env, self);
};
const defaultImage = renderer.renderer.rules.image!;
renderer.renderer.rules.image = (tokens, index, options, env, self) => {
  const token = tokens[index]!;
  token.attrSet('src', resolveRelative(String(token.attrGet('src') ?? ''), baseOf(env)?.raw));
  return defaultImage(tokens, index, options, env, self);
};

/** Prefix of the ids headings get, as GitHub's: text from a repository can never take the id of the page's own parts. */
export const HEADING_ID_PREFIX = 'user-content-';

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens (`## API: Endpoints` is `api-endpoints`). */
function slugOf(text: string): string {
  return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

// Every heading gets an id from its text (repeats numbered `-1`, `-2` as GitHub does), so `docs/api.md#endpoints`
// reaches it; the page's script scrolls `#endpoints` to `user-content-endpoints`.
renderer.core.ruler.push('heading_ids', (state) => {
  const seen = new Map<string, number>();
  state.tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const slug = slugOf(state.tokens[index + 1]?.children?.map((child) => child.content).join('') ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    token.attrSet('id', `${HEADING_ID_PREFIX}${count ? `${slug}-${count}` : slug}`);
  });
});

/** What one reference in a text links to (undefined: it stays text), and its class. */
function referenceLink(match: RegExpExecArray, repository: string | undefined, origin: string): { href: string; kind: string } | undefined {
  const [, , owner, name, crossNumber, number, user] = match;
  if (crossNumber) return { href: `${origin}/${owner}/${name}/issues/${crossNumber}`, kind: 'issue-link' };
  if (number) return repository ? { href: `${origin}/${repository}/issues/${number}`, kind: 'issue-link' } : undefined;
  return { href: `${origin}/${user}`, kind: 'user-mention' };
}

// References become links, except inside links and code (code spans and blocks are tokens of their own).
renderer.core.ruler.push('references', (state) => {
  const { repository, plain, origin = '' } = (state.env as MarkdownContext | undefined) ?? {};
  if (plain) return;
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    let insideLink = 0;
    block.children = block.children.flatMap((child) => {
      if (child.type === 'link_open') insideLink++;
      if (child.type === 'link_close') insideLink--;
      if (child.type !== 'text' || insideLink > 0) return [child];
      const pieces = [];
      let from = 0;
      for (const match of child.content.matchAll(REFERENCE)) {
        const link = referenceLink(match, repository, origin);
        if (!link) continue;
        const start = match.index + match[1]!.length;
        const end = match.index + match[0].length;
        if (start > from) pieces.push(Object.assign(new state.Token('text', '', 0), { content: child.content.slice(from, start) }));
        const open = new state.Token('link_open', 'a', 1);
        open.attrs = [['href', link.href], ['class', link.kind]];
        open.meta = { reference: true };
        pieces.push(open, Object.assign(new state.Token('text', '', 0), { content: child.content.slice(start, end) }), new state.Token('link_close', 'a', -1));
        from = end;
      }
      if (from === 0) return [child];
      if (from < child.content.length) pieces.push(Object.assign(new state.Token('text', '', 0), { content: child.content.slice(from) }));
      return pieces;
    });
  }
});

/** Markdown source longer than this is shown as plain text: rendering cost stays bounded. */
export const MAX_MARKDOWN_BYTES = 512 * 1024;

/**
 * Renders untrusted Markdown to safe HTML; relative links resolve against `context.base` (a repository's files), and
 * references link (`#12` only in a repository's context).
 */
export function renderMarkdown(source: string, context: MarkdownContext = {}): SafeHtml {
  if (Buffer.byteLength(source, 'utf8') > MAX_MARKDOWN_BYTES) return new SafeHtml(`<pre>${renderer.utils.escapeHtml(source)}</pre>`);
  return new SafeHtml(renderer.render(source, { ...context } satisfies MarkdownContext));
}
