import MarkdownIt from 'markdown-it';
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
  // eslint-disable-next-line no-control-regex
  const squeezed = url.replace(/[\u0000-\u0020\u007f]+/g, '');
  return !HAS_SCHEME.test(squeezed) || ALLOWED_SCHEME.test(squeezed);
};
// Links written by others open without handing them this page (window.opener) or the referrer.
const defaultLinkOpen = renderer.renderer.rules.link_open ?? ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
renderer.renderer.rules.link_open = (tokens, index, options, env, self) => {
  const token = tokens[index]!;
  const href = String(token.attrGet('href') ?? '');
  if (HAS_SCHEME.test(href)) token.attrSet('rel', 'nofollow noopener noreferrer');
  return defaultLinkOpen(tokens, index, options, env, self);
};

/** Markdown source longer than this is shown as plain text: rendering cost stays bounded. */
export const MAX_MARKDOWN_BYTES = 512 * 1024;

/** Renders untrusted Markdown to safe HTML. */
export function renderMarkdown(source: string): SafeHtml {
  if (Buffer.byteLength(source, 'utf8') > MAX_MARKDOWN_BYTES) return new SafeHtml(`<pre>${renderer.utils.escapeHtml(source)}</pre>`);
  return new SafeHtml(renderer.render(source));
}
