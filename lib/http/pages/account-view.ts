import type { SessionSummary } from '../../services/credentials.js';
import type { SshKeyRow } from '../../services/ssh-keys.js';
import { errorBox, noticeBox } from './components.js';
import { relativeTime } from './code/links.js';
import { csrfInput, html, page, type PageUser } from './html.js';

export interface AccountModel {
  avatar: string;
  sessions: SessionSummary[];
  sshKeys: SshKeyRow[];
  error?: string;
  notice?: string;
}

/** `/user/settings`: avatar upload, password change, SSH keys, the sessions with revoke, and a link to the API tokens page. */
export function accountView(viewer: PageUser, model: AccountModel): string {
  const sessions = model.sessions.map(
    (session) => html`<tr><td>Signed in ${relativeTime(session.created_at)}${session.current ? html` <strong class="badge">This browser</strong>` : ''}</td>
<td>expires ${session.expires_at.slice(0, 10)}</td>
<td><form method="post" action="/user/settings/sessions/${session.id}/revoke" class="inline">${csrfInput(viewer)}<button type="submit">${session.current ? 'Sign out here' : 'Revoke'}</button></form></td></tr>`,
  );
  const keys = model.sshKeys.map(
    (key) => html`<li><strong>${key.title}</strong> <span class="muted">added ${relativeTime(key.created_at) || key.created_at}</span><br><code>${key.fingerprint}</code>
<form method="post" action="/user/settings/keys/${key.id}/delete" class="inline">${csrfInput(viewer)}<button type="submit" class="danger" aria-label="Remove ${key.title}">Remove</button></form></li>`,
  );
  return page(
    'Account settings',
    viewer,
    html`<h1>Account settings</h1>${errorBox(model.error)}${noticeBox(model.notice)}
<section aria-labelledby="avatar-heading"><h2 id="avatar-heading">Avatar</h2>
<div class="profile"><img id="avatar" src="${model.avatar}" alt="Your avatar" width="96" height="96">
<form class="card" method="post" action="/user/settings/avatar" enctype="multipart/form-data">${csrfInput(viewer)}
<label>Image (PNG, JPEG, GIF or WebP) <input type="file" name="file" accept="image/png,image/jpeg,image/gif,image/webp" required></label>
<button type="submit">Upload avatar</button></form></div></section>
<section aria-labelledby="password-heading"><h2 id="password-heading">Password</h2>
<form class="card" method="post" action="/user/settings/password">${csrfInput(viewer)}
<input type="text" name="username" value="${viewer.username}" autocomplete="username" hidden>
<label>Current password <input type="password" name="current_password" autocomplete="current-password" required></label>
<label>New password <input type="password" name="new_password" autocomplete="new-password" required minlength="6"></label>
<button type="submit">Change password</button>
<p class="muted">Every other session is signed out.</p></form></section>
<section aria-labelledby="keys-heading"><h2 id="keys-heading">SSH keys</h2>
${keys.length ? html`<ul class="keys">${keys}</ul>` : html`<p>No SSH keys yet.</p>`}
<form class="card" method="post" action="/user/settings/keys">${csrfInput(viewer)}
<label>Title <input name="title" maxlength="255" placeholder="Laptop"></label>
<label>Key <textarea name="key" rows="4" required placeholder="ssh-ed25519 AAAA… (the contents of ~/.ssh/id_ed25519.pub)"></textarea></label>
<button type="submit">Add SSH key</button></form></section>
<section aria-labelledby="sessions-heading"><h2 id="sessions-heading">Sessions</h2>
<table><thead><tr><th>Session</th><th>Expiry</th><th>Revoke</th></tr></thead><tbody>${sessions}</tbody></table></section>
<section aria-labelledby="tokens-heading"><h2 id="tokens-heading">API tokens</h2>
<p><a href="/${viewer.username}/settings/api-tokens">Manage your API tokens</a></p></section>`,
  );
}
