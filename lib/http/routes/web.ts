import { deleteCookie, getCookie, getRequestHeader, setCookie, type H3, type H3Event } from 'h3';
import type { AppContext } from '../../context.js';
import { isRepoHostError, notFound, unauthorized } from '../../errors.js';
import { FIRST_HUNDRED } from '../../store/queries/page-window.js';
import type { UserRow } from '../../store/queries/users.js';
import { clientAddress, cookieAttributes, currentUser, SESSION_COOKIE } from '../auth.js';
import { PRE_SESSION_COOKIE, type RequestForgeryGuard } from '../csrf.js';
import { htmlResponse } from '../html-response.js';
import { retryAfterOf } from '../retry-after.js';
import type { PageUser } from '../pages/html.js';
import { apiTokensView, homeView, loginView, newRepositoryView, registerView } from '../pages/views.js';
import { pathParam, queryString, readForm, type FormFields } from '../validate.js';
import { unreadOf } from '../notification-count.js';

const SESSION_MAX_AGE = 30 * 86_400;

// Cookies set on the event (setCookie) are merged by h3 into whatever Response a handler returns.
export function redirectTo(location: string): Response {
  return new Response(null, { status: 303, headers: { location } });
}

const wantsNoRedirect = (form: FormFields) => form.no_redirect === '1' || form.no_redirect === 1 || form.no_redirect === true;

/**
 * Runs a form action. With `no_redirect=1` (scripts) errors propagate as JSON; otherwise (browsers) an expected
 * error re-renders the form with its message and status.
 */
export async function formAction(form: FormFields, action: () => Promise<Response>, renderError: (message: string) => string | Promise<string>): Promise<Response> {
  try {
    return await action();
  } catch (error) {
    if (wantsNoRedirect(form) || !isRepoHostError(error)) throw error;
    const response = htmlResponse(await renderError(error.message), error.status);
    // A throttled sign-in says when to try again, on the page as on the API.
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) response.headers.set('retry-after', String(retryAfter));
    return response;
  }
}

function startSessionCookie(ctx: AppContext, event: H3Event, token: string): void {
  setCookie(event, SESSION_COOKIE, token, { ...cookieAttributes(ctx), maxAge: SESSION_MAX_AGE });
  // The session now carries the forms' tokens: the pre-session cookie of the sign-in form has done its job.
  if (getCookie(event, PRE_SESSION_COOKIE) !== undefined) deleteCookie(event, PRE_SESSION_COOKIE, cookieAttributes(ctx));
}

/** Signs the user in: a session cookie and either `200` (no_redirect=1) or a redirect home. */
async function signIn(ctx: AppContext, event: H3Event, user: UserRow, form: FormFields): Promise<Response> {
  startSessionCookie(ctx, event, await ctx.credentials.startSession(user.id));
  if (wantsNoRedirect(form)) {
    return Response.json({ success: true, user: ctx.users.summary(user) });
  }
  return redirectTo('/');
}

/** The signed-in user, or a redirect to the login page (for a form posted with `no_redirect=1`, a 401). */
export async function signedInOrLogin(ctx: AppContext, event: H3Event, form?: FormFields): Promise<UserRow | Response> {
  const user = await currentUser(ctx, event);
  if (user) return user;
  if (form && wantsNoRedirect(form)) throw unauthorized('Unauthorized');
  return redirectTo('/login');
}

/** Whether a request says where it came from as browsers do (the request-forgery guard's test, see csrf.ts). */
const fromBrowser = (event: H3Event) => ['origin', 'sec-fetch-site', 'referer'].some((name) => getRequestHeader(event, name) !== undefined);

/** Settings pages exist only for their own user: anyone else is told there is nothing here. */
function assertOwnSettings(event: H3Event, user: UserRow): void {
  if (user.username.toLowerCase() !== pathParam(event, 'username').toLowerCase()) throw notFound('Not found');
}

export function mountWebRoutes(app: H3, ctx: AppContext, guard: RequestForgeryGuard): void {
  /** What pages know of their viewer: the name, and the token its forms must carry. */
  function pageUser(event: H3Event, user: UserRow): PageUser;
  function pageUser(event: H3Event, user: UserRow | undefined): PageUser | undefined;
  function pageUser(event: H3Event, user: UserRow | undefined): PageUser | undefined {
    return user && { username: user.username, csrf: guard.tokenOf(event), unread: unreadOf(event) };
  }

  app.get('/', async (event) => {
    // octokit.rb asks the host's root for GitHub's root document (its `root` resolves "/" against the API's address).
    if (/application\/vnd\.github/.test(getRequestHeader(event, 'accept') ?? '')) {
      const { rootDocument } = await import('../../github-api/meta.js');
      return Response.json(rootDocument(`${ctx.baseUrl()}/api/v3`, ctx.baseUrl()));
    }
    const user = await currentUser(ctx, event);
    return htmlResponse(homeView(pageUser(event, user), user ? (await ctx.repos.listOfOwner(user, user, FIRST_HUNDRED)).items : []));
  });

  // Sign-up and sign-in forms carry a token even before there is a session (csrf.ts: the pre-session cookie).
  app.get('/register', async (event) => htmlResponse(registerView(pageUser(event, await currentUser(ctx, event)), guard.signInFormToken(event))));
  app.post('/register', async (event) => {
    guard.guardSignInForm(event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return formAction(
      form,
      async () => {
        const user = await ctx.users.register({ username: form.username, password: form.password, email: form.email, fullName: form.full_name });
        return signIn(ctx, event, user, form);
      },
      (message) => registerView(undefined, guard.signInFormToken(event), message, { username: String(form.username ?? ''), email: String(form.email ?? '') }),
    );
  });

  app.get('/login', async (event) => htmlResponse(loginView(pageUser(event, await currentUser(ctx, event)), guard.signInFormToken(event))));
  app.post('/login', async (event) => {
    guard.guardSignInForm(event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return formAction(
      form,
      async () => {
        const username = typeof form.username === 'string' ? form.username : '';
        const password = typeof form.password === 'string' ? form.password : '';
        const user = username && password ? await ctx.users.authenticate(username, password, clientAddress(event)) : undefined;
        if (!user) throw unauthorized('Wrong username or password');
        return signIn(ctx, event, user, form);
      },
      (message) => loginView(undefined, guard.signInFormToken(event), message, String(form.username ?? '')),
    );
  });

  app.post('/logout', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const session = getCookie(event, SESSION_COOKIE);
    if (session) await ctx.credentials.endSession(session);
    // The clearing cookie carries the same attributes as the session cookie it replaces.
    deleteCookie(event, SESSION_COOKIE, cookieAttributes(ctx));
    if (wantsNoRedirect(form)) return Response.json({ success: true });
    return redirectTo('/');
  });

  app.get('/new', async (event) => {
    const user = await signedInOrLogin(ctx, event);
    return user instanceof Response ? user : htmlResponse(newRepositoryView(pageUser(event, user)));
  });
  app.post('/new', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const user = await signedInOrLogin(ctx, event, form);
    if (user instanceof Response) return user;
    return formAction(
      form,
      async () => {
        const repo = await ctx.repos.create(user, { name: form.name, description: form.description, visibility: form.repo_visibility, cloneUrl: form.clone_url });
        if (wantsNoRedirect(form)) return new Response('ok', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
        return redirectTo(`/${repo.owner_name}/${repo.name}`);
      },
      (message) => newRepositoryView(pageUser(event, user), message, { name: String(form.name ?? ''), description: String(form.description ?? '') }),
    );
  });

  app.get('/:username/settings/api-tokens', async (event) => {
    const user = await signedInOrLogin(ctx, event);
    if (user instanceof Response) return user;
    assertOwnSettings(event, user);
    return htmlResponse(apiTokensView(pageUser(event, user), (await ctx.credentials.apiTokens(user.id, FIRST_HUNDRED)).items, queryString(event, 'new_token'), undefined, queryString(event, 'revoked') ? 'The token was revoked.' : undefined));
  });
  app.post('/:username/settings/api-tokens', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const user = await signedInOrLogin(ctx, event, form);
    if (user instanceof Response) return user;
    assertOwnSettings(event, user);
    return formAction(
      form,
      async () => {
        const { token } = await ctx.credentials.createApiToken(user.id, form.name);
        // A browser (it says where the form came from, so the request-forgery guard made it carry its token): the
        // answer itself shows the token once, never in a URL (history, logs, Referer). Clients that send none of
        // those headers (the spec's, harnesses) get the spec's redirect with `new_token=` as before.
        if (fromBrowser(event)) {
          const response = htmlResponse(apiTokensView(pageUser(event, user), (await ctx.credentials.apiTokens(user.id, FIRST_HUNDRED)).items, token));
          response.headers.set('cache-control', 'no-store');
          return response;
        }
        // The plain token travels once, in the redirect; the page shows it and it is never stored.
        return redirectTo(`/${user.username}/settings/api-tokens?new_token=${token}`);
      },
      async (message) => apiTokensView(pageUser(event, user), (await ctx.credentials.apiTokens(user.id, FIRST_HUNDRED)).items, undefined, message),
    );
  });
}
