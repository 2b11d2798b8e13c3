import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { H3 } from 'h3';
import { COLLAB_CSS } from './collab-css.js';
import { SITE_CSS } from './site-css.js';
import { SITE_JS } from './site-js.js';

/**
 * Static files of the pages under /assets (a reserved username, so no user page is hidden): the stylesheet, the
 * progressive-enhancement script and highlight.js's theme. Scripts live here, never inline, so the pages' CSP can
 * forbid inline scripts.
 */
const CACHE = 'public, max-age=3600';

let highlightTheme: Promise<string> | undefined;
/** highlight.js's GitHub theme, read once from the installed package. */
function highlightCss(): Promise<string> {
  highlightTheme ??= readFile(createRequire(import.meta.url).resolve('highlight.js/styles/github.css'), 'utf8');
  return highlightTheme;
}

function asset(body: string, type: string): Response {
  return new Response(body, { headers: { 'content-type': type, 'cache-control': CACHE, 'x-content-type-options': 'nosniff' } });
}

export function mountAssetRoutes(app: H3): void {
  app.get('/assets/site.css', () => asset(SITE_CSS + COLLAB_CSS, 'text/css; charset=utf-8'));
  app.get('/assets/site.js', () => asset(SITE_JS, 'text/javascript; charset=utf-8'));
  app.get('/assets/highlight.css', async () => asset(await highlightCss(), 'text/css; charset=utf-8'));
}
