import { H3, HTTPError, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError, RepositoryMoved } from '../errors.js';
import { retryAfterOf } from './retry-after.js';
import { cookieAttributes, currentUser } from './auth.js';
import { RequestForgeryGuard } from './csrf.js';
import { compression } from './compression.js';
import { htmlHeaders } from './html-response.js';
import { mountAvatarRoutes } from './routes/api/avatar.js';
import { mountBranchProtectionRoutes } from './routes/api/branch-protections.js';
import { mountCiRoutes } from './routes/api/ci.js';
import { mountCollaboratorRoutes } from './routes/api/collaborators.js';
import { mountKeyRoutes } from './routes/api/keys.js';
import { mountLfsRoutes } from '../lfs/routes.js';
import { mountIssueRoutes } from './routes/api/issues.js';
import { mountLabelRoutes } from './routes/api/labels.js';
import { mountPullRoutes } from './routes/api/pulls.js';
import { mountRepoRoutes } from './routes/api/repos.js';
import { mountStatusRoutes } from './routes/api/statuses.js';
import { mountHookRoutes } from './routes/api/hooks.js';
import { mountTreeRoutes } from './routes/api/tree.js';
import { mountUserRoutes } from './routes/api/users.js';
import { mountGitRoutes } from './routes/git.js';
import { RESERVED_USERNAMES } from '../services/names.js';

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

/** The GitHub-compatible API's paths, uploads included (github-api/http.ts, not imported: it loads on demand). */
const isGitHubApiPath = (path: string) => /^\/api\/(?:v3|uploads)(?:\/|$)/.test(path);
/** Paths only the routes mounted at once answer: the spec API, avatars and git smart HTTP. */
const EAGER_PREFIX = /^\/(?:api\/v1|avatars)\//;
const GIT_PATH = /^\/([^/]+)\/[^/]+\/(?:info\/refs|git-upload-pack|git-receive-pack)$/;
/**
 * The longest request target (path and query) answered; a longer one is 414, as GitHub answers URLs over 8,191
 * bytes. Lists copy their query into two `Link` URLs: an unbounded query made headers no client could read.
 */
const MAX_REQUEST_TARGET_BYTES = 8191;

/** Builds the h3 app of one host: JSON API, web forms and pages, git smart HTTP. */
export function createApp(ctx: AppContext, log: (message: string) => void): H3 {
  const forgery = new RequestForgeryGuard(() => cookieAttributes(ctx));
  let lazyMounted: Promise<void> | undefined;
  let lazyDone = false;
  // Loaded when a request first needs them (issue 23): the GitHub-compatible API, the web pages and forms with their
  // assets (markdown-it and the page views). A host that only serves git and the spec API never loads them
  // (test/package/lazy-modules.test.ts). They are mounted on this same app, in the order they were mounted in before,
  // so routes answer exactly as if they had been there from the start.
  const mountLazy = () =>
    (lazyMounted ??= (async () => {
      const [github, web, code, editor, issues, milestones, pulls, releases, settings, account, notifications, notificationCount, assets] = await Promise.all([
        import('../github-api/index.js'),
        import('./routes/web.js'),
        import('./routes/pages/code.js'),
        import('./routes/pages/editor.js'),
        import('./routes/pages/issues.js'),
        import('./routes/pages/milestones.js'),
        import('./routes/pages/pulls.js'),
        import('./routes/pages/releases.js'),
        import('./routes/pages/settings.js'),
        import('./routes/pages/account.js'),
        import('./routes/pages/notifications.js'),
        import('./notification-count.js'),
        import('./assets/index.js'),
      ]);
      github.mountGitHubApi(app, ctx, log);
      assets.mountAssetRoutes(app);
      notificationCount.mountNotificationCount(app, ctx);
      web.mountWebRoutes(app, ctx, forgery);
      code.mountCodePages(app, ctx, forgery);
      editor.mountEditorPages(app, ctx, forgery);
      issues.mountIssuePages(app, ctx, forgery);
      milestones.mountMilestonePages(app, ctx, forgery);
      pulls.mountPullPages(app, ctx, forgery);
      releases.mountReleasePages(app, ctx, forgery);
      settings.mountSettingsPages(app, ctx, forgery);
      account.mountAccountPages(app, ctx, forgery);
      notifications.mountNotificationPages(app, ctx, forgery);
      lazyDone = true;
    })().catch((error: unknown) => {
      lazyMounted = undefined;
      throw error;
    }));
  /**
   * Whether a request is answered by the routes mounted at once, whatever the lazy ones would add: a spec API,
   * avatar or git path that one of them matches. h3's router prefers static segments to parameters, and no lazy route
   * starts with `/api/v1/` or `/avatars/`; a lazy route can only beat a git route (`/:owner/:repo/info/refs`) through a
   * static first segment, which is a reserved user name, so git paths under those load the lazy groups first.
   */
  const answeredEagerly = (event: H3Event) => {
    const path = event.url.pathname;
    const git = GIT_PATH.exec(path);
    if (!EAGER_PREFIX.test(path) && !(git && !RESERVED_USERNAMES.has(git[1]!.toLowerCase()))) return false;
    return app['~findRoute'](event) !== undefined;
  };
  const app = new H3({
    // h3 would print every thrown service error (a 404 is one) with its stack; onError logs the real failures.
    silent: true,
    // Before the route is looked up: mounts the lazy groups when this request may be theirs.
    onRequest: (event) => {
      if (event.url.pathname.length + event.url.search.length > MAX_REQUEST_TARGET_BYTES) throw new HTTPError({ status: 414, message: 'URI Too Long' });
      if (lazyDone || answeredEagerly(event)) return;
      return mountLazy();
    },
    onError: async (error, event) => {
      // /api/v3 speaks GitHub's error shape, also for what fails before its routes run.
      if (isGitHubApiPath(event.url.pathname)) return (await import('../github-api/http.js')).githubErrorResponse(error, event, log);
      const moved = error.cause instanceof RepositoryMoved ? error.cause : undefined;
      if (moved) {
        // A renamed repository's former name: the same page or endpoint under its new name.
        const status = RepositoryMoved.statusFor(event.req.method);
        return Response.json({ success: false, message: moved.message }, { status, headers: { location: moved.locationFor(event.url), 'cache-control': 'no-store' } });
      }
      const { status, body } = errorResponse(error);
      // Expected refusals (a RepoHostError, 503s for a busy host included) are answers, not failures to log.
      if (status >= 500 && !isRepoHostError(error.cause)) log(`repohost: ${event.req.method} ${event.url.pathname} failed: ${(error.cause as Error)?.stack ?? error.stack}`);
      // After a 413 the rest of the body is unread: close the connection instead of reading it for keep-alive.
      const headers: Record<string, string> = status === 413 ? { 'cache-control': 'no-store', connection: 'close' } : { 'cache-control': 'no-store' };
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      if (wantsHtml(event)) {
        const { errorView, notFoundView } = await import('./pages/views.js');
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
  mountKeyRoutes(app, ctx);
  mountPullRoutes(app, ctx);
  mountTreeRoutes(app, ctx);
  mountAvatarRoutes(app, ctx);
  mountCiRoutes(app, ctx);
  mountStatusRoutes(app, ctx);
  mountBranchProtectionRoutes(app, ctx);
  mountHookRoutes(app, ctx);
  mountLfsRoutes(app, ctx);
  mountGitRoutes(app, ctx);
  // The GitHub API, the assets and the pages: see mountLazy above.
  return app;
}
