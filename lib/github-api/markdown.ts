import { getRequestHeader, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { readLimitedText } from '../http/validate.js';
import { readJson, unprocessable } from './http.js';
import { V3 } from './lookup.js';

/** What `context` may name: `owner/name`. */
const REPOSITORY = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\/[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The HTML of Markdown as GitHub answers it. */
async function htmlOf(ctx: AppContext, text: string, mode: 'markdown' | 'gfm', repository?: string): Promise<Response> {
  // Rendering is loaded on first use: hosts that never render Markdown never load markdown-it.
  const { renderMarkdown } = await import('../http/pages/markdown.js');
  // References link to this host in full, as GitHub's do: the HTML is shown elsewhere.
  const rendered = renderMarkdown(text, mode === 'gfm' ? { repository, origin: ctx.baseUrl() } : { plain: true });
  // The HTML is shown elsewhere (a preview, a bot's comment): on this host's origin it is inert, never a page.
  const headers = { 'content-type': 'text/html;charset=utf-8', 'content-security-policy': "default-src 'none'; sandbox", 'x-content-type-options': 'nosniff' };
  return new Response(rendered.toString(), { headers });
}

function contentTypeOf(event: H3Event): string {
  return (getRequestHeader(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * GitHub's Markdown API: `POST /markdown` (`text`, `mode` markdown or gfm, `context` the repository of gfm's `#12`
 * references) and `POST /markdown/raw` (the body is the text, in plain Markdown mode), both answering HTML rendered
 * as the pages render it. Nothing is read from the repository named, so no one needs access to it.
 */
export function mountMarkdown(app: H3, ctx: AppContext): void {
  app.post(`${V3}/markdown`, async (event) => {
    const body = await readJson(ctx, event);
    if (typeof body.text !== 'string') throw unprocessable('Invalid request.\n\n"text" wasn\'t supplied.');
    const mode = body.mode ?? 'markdown';
    if (mode !== 'markdown' && mode !== 'gfm') throw unprocessable('Invalid request.\n\nFor \'properties/mode\', "' + String(mode) + '" is not a possible value.');
    const context = body.context;
    if (context !== undefined && (typeof context !== 'string' || !REPOSITORY.test(context))) throw unprocessable('Invalid request.\n\n"context" must be a repository as owner/name.');
    return await htmlOf(ctx, body.text, mode, context);
  });

  app.post(`${V3}/markdown/raw`, async (event) => {
    const type = contentTypeOf(event);
    if (type !== 'text/plain' && type !== 'text/x-markdown') throw unprocessable('Invalid request.\n\nSend the Markdown as text/plain or text/x-markdown.');
    return await htmlOf(ctx, await readLimitedText(event, ctx.options.maxBodyBytes), 'markdown');
  });
}
