import { getRequestHeader, HTTPResponse, type H3Event, type Middleware } from 'h3';
import type { AppContext } from '../context.js';
import { PreparedJson } from '../answer-cache.js';
import { ownValue } from '../own-value.js';

/** GitHub's media types of Markdown bodies: raw (the default), text, html, or all three (full). */
type BodyFormat = 'raw' | 'text' | 'html' | 'full';

// `vnd.github-commitcomment.*` is how GitHub documents the same formats for review and commit comments.
const FORMAT = /application\/vnd\.github(?:\.v3|-commitcomment)?\.(raw|text|html|full)(?:\+json)?(?![a-z.+-])/;

function formatOf(event: H3Event): BodyFormat | undefined {
  return FORMAT.exec(getRequestHeader(event, 'accept') ?? '')?.[1] as BodyFormat | undefined;
}

const ENTITIES: Readonly<Record<string, string>> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The text of rendered HTML: its tags dropped, its entities read, as GitHub's `body_text` gives it. */
function textOf(rendered: string): string {
  return rendered.replace(/<[^>]*>/g, '').replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ownValue(ENTITIES, entity)!).trim();
}

type Shape = Record<string, unknown>;
const isShape = (value: unknown): value is Shape => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The media types of Markdown bodies (`application/vnd.github.html+json`, `.text+json`, `.full+json`; `.v3.html`
 * and so on from Octokit's `mediaType.format`): each object an answer holds with a `body` (an issue, a pull request, a comment, a review, a
 * release; or each of a list of them) gets `body_html` and/or `body_text` instead of, or besides, its `body`, as GitHub
 * answers. Rendered as the pages render it, with this host's links.
 */
export function bodyFormats(ctx: AppContext): Middleware {
  // A prepared answer (see `remembered`) had its bodies formatted when it was made.
  return async (event, next) => {
    const result = await next();
    return result instanceof PreparedJson ? result : await formatBodies(ctx, event, result);
  };
}

/** `result` with its bodies in the formats the request's `Accept` names (see bodyFormats). */
export async function formatBodies(ctx: AppContext, event: H3Event, result: unknown): Promise<unknown> {
  const format = formatOf(event);
  if (!format || format === 'raw' || result instanceof Response || result instanceof HTTPResponse || (!isShape(result) && !Array.isArray(result))) return result;
  // Rendering is loaded on first use, as for the Markdown API.
  const { renderMarkdown } = await import('../http/pages/markdown.js');
  const repository = /^\/api\/v3\/repos\/([^/]+\/[^/]+)/.exec(event.url.pathname)?.[1];
  const withFormats = (item: unknown): unknown => {
    if (!isShape(item) || !('body' in item) || (item.body !== null && typeof item.body !== 'string')) return item;
    const { body, ...rest } = item;
    const html = typeof body === 'string' ? renderMarkdown(body, { repository, origin: ctx.baseUrl() }).toString() : null;
    const text = html === null ? null : textOf(html);
    if (format === 'html') return { ...rest, body_html: html };
    if (format === 'text') return { ...rest, body_text: text };
    return { ...rest, body, body_text: text, body_html: html };
  };
  return Array.isArray(result) ? result.map(withFormats) : withFormats(result);
}
