/**
 * The Content-Security-Policy of every HTML page: scripts only from our own /assets (never inline, so markup that
 * slipped through escaping could not run), no plugins, no framing, forms only to this host. Inline `style`
 * attributes stay allowed (they cannot run code). Images may come from elsewhere (README badges).
 */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' http: https:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** The headers of every HTML answer. */
export function htmlHeaders(): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': PAGE_CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };
}

/** An HTML page answer with the security headers. */
export function htmlResponse(markup: string, status = 200): Response {
  return new Response(markup, { status, headers: htmlHeaders() });
}
