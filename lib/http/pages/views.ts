import type { ApiTokenRow } from '../../store/queries/credentials.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { repoList } from './code/people.js';
import { errorBox } from './components.js';
import { relativeTime } from './code/links.js';
import { csrfField, csrfInput, html, page, type PageUser } from './html.js';

/**
 * The sign-up and sign-in forms carry the request-forgery token of the session cookie the browser sent, if any: a
 * cookie whose session ended (signed out elsewhere, password changed) still makes the guard ask for one.
 */
export function registerView(user: PageUser | undefined, csrf: string | undefined, error?: string, values: { username?: string; email?: string } = {}): string {
  return page(
    'Register',
    user,
    html`<h1>Create an account</h1>${errorBox(error)}
<form class="card" method="post" action="/register">${csrfField(csrf)}
<label>Username <input name="username" autocomplete="username" required value="${values.username ?? ''}"></label>
<label>Email <input name="email" type="email" autocomplete="email" required value="${values.email ?? ''}"></label>
<label>Password <input name="password" type="password" autocomplete="new-password" required minlength="6"></label>
<button type="submit">Register</button></form>
<p>Already have an account? <a href="/login">Sign in</a>.</p>`,
  );
}

export function loginView(user: PageUser | undefined, csrf: string | undefined, error?: string, username = ''): string {
  return page(
    'Sign in',
    user,
    html`<h1>Sign in</h1>${errorBox(error)}
<form class="card" method="post" action="/login">${csrfField(csrf)}
<label>Username <input name="username" autocomplete="username" required value="${username}"></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>
<p>New here? <a href="/register">Create an account</a>.</p>`,
  );
}

export function newRepositoryView(user: PageUser, error?: string, values: { name?: string; description?: string } = {}): string {
  return page(
    'New repository',
    user,
    html`<h1>New repository</h1>${errorBox(error)}
<form class="card" method="post" action="/new">${csrfInput(user)}
<label>Name <input name="name" required value="${values.name ?? ''}"></label>
<label>Description <input name="description" value="${values.description ?? ''}"></label>
<label>Import from URL (optional) <input name="clone_url" placeholder="https://example.com/project.git"></label>
<label>Visibility <select name="repo_visibility"><option value="public">Public</option><option value="private">Private</option></select></label>
<button type="submit">Create repository</button></form>`,
  );
}

export function apiTokensView(user: PageUser, tokens: ApiTokenRow[], newToken?: string, error?: string, notice?: string): string {
  const fresh = newToken
    ? html`<div class="notice" role="status"><p>Your new token (copy it now, it will not be shown again):</p>
<p><code id="new-token">${newToken}</code></p></div>`
    : '';
  const rows = tokens.map((token) => html`<tr><td>${token.name}</td><td><code>…${token.last_eight}</code></td><td>${relativeTime(token.created_at) || token.created_at}</td>
<td><form class="inline" method="post" action="/${user.username}/settings/api-tokens/${token.id}/revoke">${csrfInput(user)}<button type="submit" class="danger" aria-label="Revoke ${token.name}">Revoke</button></form></td></tr>`);
  return page(
    'API tokens',
    user,
    html`<h1>API tokens</h1>${errorBox(error)}${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}${fresh}
<form class="card" method="post" action="/${user.username}/settings/api-tokens">${csrfInput(user)}
<label>Token name <input name="name" required></label><button type="submit">Generate token</button></form>
<h2>Your tokens</h2>
${tokens.length ? html`<table><thead><tr><th>Name</th><th>Ends with</th><th>Created</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>No tokens yet.</p>`}`,
  );
}

export function homeView(user: PageUser | undefined, repos: RepositoryRow[]): string {
  if (!user) {
    return page('Home', user, html`<h1>repohost</h1><p>A small git forge. <a href="/register">Register</a> or <a href="/login">sign in</a>.</p>`);
  }
  return page('Home', user, html`<h1>Signed in as ${user.username}</h1><h2>Your repositories</h2>${repoList(repos, 'No repositories yet.')}<p><a href="/new">New repository</a></p>`);
}

export function notFoundView(viewer: PageUser | undefined): string {
  return page('Not found', viewer, html`<h1>Not found</h1><p>There is nothing here, or you may not see it.</p>`);
}

/** Any other failed browser request: the status and the message the API would give, in a page. */
export function errorView(viewer: PageUser | undefined, status: number, message: string): string {
  const title = status >= 500 ? 'Something went wrong' : 'That did not work';
  return page(title, viewer, html`<h1>${title}</h1>${errorBox(message)}<p class="muted">Error ${status}. <a href="/">Go to the start page</a>.</p>`);
}
