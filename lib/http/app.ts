import { H3, HTTPError, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError } from '../errors.js';
import { retryAfterOf } from './retry-after.js';
import { currentUser } from './auth.js';
import { RequestForgeryGuard } from './csrf.js';
import { compression } from './compression.js';
import { htmlHeaders } from './html-response.js';
import { errorView, notFoundView } from './pages/views.js';
import { mountAssetRoutes } from './assets/index.js';
import { mountAvatarRoutes } from './routes/api/avatar.js';
import { mountBranchProtectionRoutes } from './routes/api/branch-protections.js';
import { mountCiRoutes } from './routes/api/ci.js';
import { mountCollaboratorRoutes } from './routes/api/collaborators.js';
import { mountIssueRoutes } from './routes/api/issues.js';
import { mountLabelRoutes } from './routes/api/labels.js';
import { mountPullRoutes } from './routes/api/pulls.js';
import { mountRepoRoutes } from './routes/api/repos.js';
import { mountStatusRoutes } from './routes/api/statuses.js';
import { mountHookRoutes } from './routes/api/hooks.js';
import { mountTreeRoutes } from './routes/api/tree.js';
import { mountUserRoutes } from './routes/api/users.js';
import { githubErrorResponse, isGitHubApiPath } from '../github/api/http.js';
import { mountGitHubApi } from '../github/api/index.js';
import { mountGitRoutes } from './routes/git.js';
import { mountCodePages } from './routes/pages/code.js';
import { mountWebRoutes } from './routes/web.js';
import { mountIssuePages } from './routes/pages/issues.js';
import { mountPullPages } from './routes/pages/pulls.js';
import { mountSettingsPages } from './routes/pages/settings.js';
import { mountAccountPages } from './routes/pages/account.js';

export interface ErrorBody {
  success: false;
  message: string;
}

/** The one place where failures become HTTP responses: `{ success: false, message }` with the mapped status. */
export function errorResponse(error: unknown): { status: number; body: ErrorBody } {
  const cause = isRepoHostError(error) ? error : error instanceof HTTPError && isRepoHostError(error.cause) ? error.cause : undefined;
  if (cause) return { status: cause.status, body: { success: false, message: cause.message } };
  if (error instanceof HTTPError && !error.unhandled && error.status < 500) {
    // h3's own client errors: unknown route (404), wrong method (405), malformed body (400).
    const message = error.status === 404 ? 'Not found' : error.message || 'Bad request';
    return { status: error.status, body: { success: false, message } };
  }
  return { status: 500, body: { success: false, message: 'Internal server error' } };
}

/** A browser's request for a page or a form post (the API and git always answer as they do for scripts). */
function wantsHtml(event: H3Event): boolean {
  return !event.url.pathname.startsWith('/api/') && (event.req.headers.get('accept') ?? '').includes('text/html');
}

/** Builds the h3 app of one host: JSON API, web forms and pages, git smart HTTP. */
export function createApp(ctx: AppContext, log: (message: string) => void): H3 {
  const forgery = new RequestForgeryGuard();
  const app = new H3({
    // h3 would print every thrown service error (a 404 is one) with its stack; onError logs the real failures.
    silent: true,
    onError: async (error, event) => {
      // /api/v3 speaks GitHub's error shape, also for what fails before its routes run.
      if (isGitHubApiPath(event)) return githubErrorResponse(error, event, log);
      const { status, body } = errorResponse(error);
      // Expected refusals (a RepoHostError, 503s for a busy host included) are answers, not failures to log.
      if (status >= 500 && !isRepoHostError(error.cause)) log(`repohost: ${event.req.method} ${event.url.pathname} failed: ${(error.cause as Error)?.stack ?? error.stack}`);
      // After a 413 the rest of the body is unread: close the connection instead of reading it for keep-alive.
      const headers: Record<string, string> = status === 413 ? { 'cache-control': 'no-store', connection: 'close' } : { 'cache-control': 'no-store' };
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      if (wantsHtml(event)) {
        const viewer = await currentUser(ctx, event).catch(() => undefined);
        const pageUser = viewer && { username: viewer.username, csrf: forgery.tokenOf(event) };
        // A private repository's 404 and an unknown one's are the same page.
        const view = status === 404 ? notFoundView(pageUser) : errorView(pageUser, status, body.message);
        return new Response(view, { status, headers: { ...htmlHeaders(), ...headers } });
      }
      return Response.json(body, { status, headers });
    },
  });
  // Outermost: what every other layer answers is compressed here, in this one place (compression.ts).
  app.use(compression());
  app.use(forgery.middleware());
  // No answer leaves before every write it may have read is on disk; one that read a write whose flush failed is
  // answered 503 instead (store.ts: settled).
  app.use(async (_event, next) => {
    await ctx.store.ready();
    const failuresBefore = ctx.store.failures();
    const result = await next();
    await ctx.store.settled(failuresBefore);
    return result;
  });
  mountUserRoutes(app, ctx);
  mountRepoRoutes(app, ctx);
  mountIssueRoutes(app, ctx);
  mountLabelRoutes(app, ctx);
  mountCollaboratorRoutes(app, ctx);
  mountPullRoutes(app, ctx);
  mountTreeRoutes(app, ctx);
  mountAvatarRoutes(app, ctx);
  mountCiRoutes(app, ctx);
  mountStatusRoutes(app, ctx);
  mountBranchProtectionRoutes(app, ctx);
  mountHookRoutes(app, ctx);
  mountGitHubApi(app, ctx, log);
  mountGitRoutes(app, ctx);
  mountAssetRoutes(app);
  mountWebRoutes(app, ctx, forgery);
  mountCodePages(app, ctx, forgery);
  mountIssuePages(app, ctx, forgery);
  mountPullPages(app, ctx, forgery);
  mountSettingsPages(app, ctx, forgery);
  mountAccountPages(app, ctx, forgery);
  return app;
}
