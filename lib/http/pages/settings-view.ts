import { SUBSCRIBABLE_EVENTS } from '../../events/types.js';
import type { AccessLevel } from '../../services/permissions.js';
import type { BranchProtection } from '../../services/branch-protection.js';
import type { Collaborator } from '../../services/collaborators.js';
import type { SshKeyRow } from '../../services/ssh-keys.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import type { Delivery, Hook } from '../../webhooks/index.js';
import { errorBox, noticeBox } from './components.js';
import { relativeTime } from './code/links.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { repoBase, repoPage } from './repo-layout.js';

export type SettingsSection = 'options' | 'collaborators' | 'keys' | 'hooks' | 'branches';

/** What every settings page shows besides its section: who asks, where, and the outcome of the last form. */
export interface SettingsFrame {
  viewer: PageUser;
  repo: RepositoryRow;
  access: AccessLevel;
  error?: string;
  notice?: string;
}

const SECTIONS: Array<[SettingsSection, string, string]> = [
  ['options', 'Options', ''],
  ['collaborators', 'Collaborators', '/collaborators'],
  ['keys', 'Deploy keys', '/keys'],
  ['hooks', 'Webhooks', '/hooks'],
  ['branches', 'Branch protection', '/branches'],
];

function settingsPage(frame: SettingsFrame, section: SettingsSection, title: string, body: SafeHtml): string {
  const base = `${repoBase(frame.repo)}/settings`;
  return repoPage(
    frame.viewer,
    frame.repo,
    frame.access,
    'settings',
    title,
    html`<div class="settings"><nav aria-label="Settings"><ul class="settings-nav">${SECTIONS.map(
      ([id, label, path]) => html`<li><a href="${base}${path}"${id === section ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav><div class="settings-body"><h2>${title}</h2>${errorBox(frame.error)}${noticeBox(frame.notice)}${body}</div></div>`,
  );
}

/** `/:owner/:repo/settings`: description and visibility, default branch, rename, delete (typing the full name to confirm). */
export function optionsView(frame: SettingsFrame): string {
  const { repo, viewer } = frame;
  const base = `${repoBase(repo)}/settings`;
  const fullName = `${repo.owner_name}/${repo.name}`;
  return settingsPage(
    frame,
    'options',
    'Options',
    html`<form class="card" method="post" action="${base}">${csrfInput(viewer)}
<label>Description <input name="description" maxlength="2048" value="${repo.description}"></label>
<label>Visibility <select name="visibility"><option value="public"${repo.is_private ? '' : ' selected'}>Public</option><option value="private"${repo.is_private ? ' selected' : ''}>Private</option></select></label>
<button type="submit">Save</button></form>
<h3>Default branch</h3>
<form class="card" method="post" action="${base}/default-branch">${csrfInput(viewer)}
<label>Default branch <input name="default_branch" required value="${repo.default_branch}"></label>
<button type="submit">Change default branch</button></form>
<h3>Rename</h3>
<form class="card" method="post" action="${base}/rename">${csrfInput(viewer)}
<label>New name <input name="name" required value="${repo.name}"></label>
<button type="submit">Rename repository</button></form>
<h3 class="danger">Delete this repository</h3>
<form class="card danger-zone" method="post" action="${base}/delete">${csrfInput(viewer)}
<p>This removes the repository, its issues and pull requests for good.</p>
<label>Type <code>${fullName}</code> to confirm <input name="confirm" required autocomplete="off"></label>
<button type="submit" class="danger">Delete repository</button></form>`,
  );
}

const PERMISSIONS = ['read', 'write', 'admin'] as const;

function permissionSelect(selected: string, label: string): SafeHtml {
  return html`<select name="permission" aria-label="${label}">${PERMISSIONS.map((permission) => html`<option value="${permission}"${permission === selected ? ' selected' : ''}>${permission}</option>`)}</select>`;
}

/** `/:owner/:repo/settings/collaborators`: add with a permission, change it, remove. */
export function collaboratorsView(frame: SettingsFrame, collaborators: Collaborator[]): string {
  const base = `${repoBase(frame.repo)}/settings/collaborators`;
  const rows = collaborators.map(
    (person) => html`<tr><td><a href="/${person.username}">${person.username}</a></td>
<td><form method="post" action="${base}/${person.username}" class="inline">${csrfInput(frame.viewer)}${permissionSelect(person.permission, `Permission of ${person.username}`)} <button type="submit">Change</button></form></td>
<td><form method="post" action="${base}/${person.username}/delete" class="inline">${csrfInput(frame.viewer)}<button type="submit" aria-label="Remove ${person.username}">Remove</button></form></td></tr>`,
  );
  return settingsPage(
    frame,
    'collaborators',
    'Collaborators',
    html`${rows.length ? html`<table><thead><tr><th>User</th><th>Permission</th><th>Remove</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>No collaborators yet: only the owner has access.</p>`}
<h3>Add a collaborator</h3>
<form class="card" method="post" action="${base}">${csrfInput(frame.viewer)}
<label>Username <input name="username" required></label>
<label>Permission ${permissionSelect('write', 'Permission')}</label>
<button type="submit">Add collaborator</button></form>`,
  );
}

/** `/:owner/:repo/settings/keys`: the deploy keys (read-only unless given write access), add and remove. */
export function deployKeysView(frame: SettingsFrame, keys: SshKeyRow[]): string {
  const base = `${repoBase(frame.repo)}/settings/keys`;
  const rows = keys.map(
    (key) => html`<li><strong>${key.title}</strong> <span class="badge">${key.read_only === 1 ? 'Read' : 'Read and write'}</span> <span class="muted">added ${relativeTime(key.created_at) || key.created_at}</span><br><code>${key.fingerprint}</code>
<form method="post" action="${base}/${key.id}/delete" class="inline">${csrfInput(frame.viewer)}<button type="submit" class="danger" aria-label="Remove ${key.title}">Remove</button></form></li>`,
  );
  return settingsPage(
    frame,
    'keys',
    'Deploy keys',
    html`<p class="muted">A deploy key lets one machine reach this repository over SSH, and nothing else.</p>
${rows.length ? html`<ul class="keys">${rows}</ul>` : html`<p>No deploy keys yet.</p>`}
<h3>Add a deploy key</h3>
<form class="card" method="post" action="${base}">${csrfInput(frame.viewer)}
<label>Title <input name="title" maxlength="255"></label>
<label>Key <textarea name="key" rows="4" required placeholder="ssh-ed25519 AAAA…"></textarea></label>
<label class="check"><input type="checkbox" name="write" value="true"> Allow write access (pushes)</label>
<button type="submit">Add deploy key</button></form>`,
  );
}

function hookForm(frame: SettingsFrame, action: string, hook: Hook | undefined, submit: string): SafeHtml {
  const events = new Set(hook?.events ?? ['push']);
  return html`<form class="card" method="post" action="${action}">${csrfInput(frame.viewer)}
<label>Payload URL <input name="url" type="url" required value="${hook?.url ?? ''}" placeholder="https://example.com/hook"></label>
<label>Content type <select name="content_type"><option value="json"${hook?.content_type === 'form' ? '' : ' selected'}>application/json</option><option value="form"${hook?.content_type === 'form' ? ' selected' : ''}>application/x-www-form-urlencoded</option></select></label>
<label>Secret <input name="secret" type="password" autocomplete="off" placeholder="${hook?.has_secret ? 'Unchanged unless filled in' : ''}"></label>
<fieldset><legend>Events</legend>
<label class="check"><input type="checkbox" name="event_*" value="*"${events.has('*') ? ' checked' : ''}> Everything</label>
${SUBSCRIBABLE_EVENTS.map((name) => html`<label class="check"><input type="checkbox" name="event_${name}" value="${name}"${events.has(name) ? ' checked' : ''}> ${name}</label>`)}</fieldset>
<label class="check"><input type="checkbox" name="active" value="true"${hook === undefined || hook.active ? ' checked' : ''}><input type="hidden" name="active" value="false"> Active</label>
<button type="submit">${submit}</button></form>`;
}

/** `/:owner/:repo/settings/hooks`: the hooks and a form to add one. */
export function hooksView(frame: SettingsFrame, hooks: Hook[]): string {
  const base = `${repoBase(frame.repo)}/settings/hooks`;
  const rows = hooks.map(
    (hook) => html`<li class="item"><a href="${base}/${hook.id}">${hook.url}</a> <span class="muted">${hook.events.join(', ')}${hook.active ? '' : ' · inactive'}</span></li>`,
  );
  return settingsPage(
    frame,
    'hooks',
    'Webhooks',
    html`${rows.length ? html`<ul class="items">${rows}</ul>` : html`<p>No webhooks yet.</p>`}
<h3>Add a webhook</h3>${hookForm(frame, base, undefined, 'Add webhook')}`,
  );
}

function deliveryRow(frame: SettingsFrame, hook: Hook, delivery: Delivery): SafeHtml {
  const base = `${repoBase(frame.repo)}/settings/hooks/${hook.id}/deliveries/${delivery.id}`;
  return html`<tr><td><code>${delivery.guid.slice(0, 8)}</code>${delivery.redelivery ? ' (redelivery)' : ''}</td><td>${delivery.event}${delivery.action ? `.${delivery.action}` : ''}</td>
<td class="${delivery.state === 'delivered' ? 'status-success' : delivery.state === 'failed' ? 'status-failure' : 'status-pending'}">${delivery.status}</td>
<td>${delivery.attempts}</td><td>${relativeTime(delivery.created_at)}</td>
<td><form method="post" action="${base}/redeliver" class="inline">${csrfInput(frame.viewer)}<button type="submit" aria-label="Redeliver ${delivery.guid}">Redeliver</button></form></td></tr>`;
}

/** `/:owner/:repo/settings/hooks/:id`: edit, delete, send a ping, and the delivery history with redeliver. */
export function hookView(frame: SettingsFrame, hook: Hook, deliveries: Delivery[]): string {
  const base = `${repoBase(frame.repo)}/settings/hooks/${hook.id}`;
  return settingsPage(
    frame,
    'hooks',
    'Webhook',
    html`${hookForm(frame, base, hook, 'Update webhook')}
<div class="actions"><form method="post" action="${base}/ping" class="inline">${csrfInput(frame.viewer)}<button type="submit">Send a ping</button></form>
<form method="post" action="${base}/delete" class="inline">${csrfInput(frame.viewer)}<button type="submit" class="danger">Delete webhook</button></form></div>
<h3>Recent deliveries</h3>
${deliveries.length ? html`<div class="table-scroll"><table class="deliveries"><thead><tr><th>Delivery</th><th>Event</th><th>Result</th><th>Attempts</th><th>When</th><th>Redeliver</th></tr></thead>
<tbody>${deliveries.map((delivery) => deliveryRow(frame, hook, delivery))}</tbody></table></div>` : html`<p>No deliveries yet.</p>`}`,
  );
}

/** `/:owner/:repo/settings/branches`: the protection rules and a form to add or edit one (`editing` prefilled). */
export function protectionView(frame: SettingsFrame, rules: BranchProtection[], editing?: BranchProtection): string {
  const base = `${repoBase(frame.repo)}/settings/branches`;
  const flag = (name: keyof BranchProtection, label: string) =>
    html`<label class="check"><input type="checkbox" name="${name}" value="true"${editing?.[name] === true ? ' checked' : ''}><input type="hidden" name="${name}" value="false"> ${label}</label>`;
  const rows = rules.map(
    (rule) => html`<tr><td><code>${rule.branch}</code></td>
<td>${[rule.require_pull_request ? 'pull request required' : '', rule.allow_force_push ? 'force push allowed' : '', rule.allow_deletion ? 'deletion allowed' : ''].filter(Boolean).join(', ') || 'no direct changes to history'}
${rule.required_status_contexts.length ? html`<br>checks: ${rule.required_status_contexts.join(', ')}` : ''}</td>
<td><a href="${base}?edit=${encodeURIComponent(rule.branch)}" aria-label="Edit rule ${rule.branch}">Edit</a>
<form method="post" action="${base}/delete" class="inline">${csrfInput(frame.viewer)}<input type="hidden" name="branch" value="${rule.branch}"><button type="submit" aria-label="Delete rule ${rule.branch}">Delete</button></form></td></tr>`,
  );
  return settingsPage(
    frame,
    'branches',
    'Branch protection',
    html`${rows.length ? html`<table><thead><tr><th>Branch or pattern</th><th>Rule</th><th>Actions</th></tr></thead><tbody>${rows}</tbody></table>` : html`<p>No protected branches.</p>`}
<h3>${editing ? 'Edit rule' : 'Add a rule'}</h3>
<form class="card" method="post" action="${base}">${csrfInput(frame.viewer)}
<label>Branch name or pattern <input name="branch" required value="${editing?.branch ?? ''}" placeholder="main or release/*"></label>
${flag('require_pull_request', 'Require a pull request (direct pushes refused)')}
${flag('allow_force_push', 'Allow force pushes')}
${flag('allow_deletion', 'Allow deletion')}
<label>Required status checks (comma-separated) <input name="required_status_contexts" value="${editing?.required_status_contexts.join(', ') ?? ''}"></label>
<label>Users who may push anyway (comma-separated) <input name="push_allowlist" value="${editing?.push_allowlist.join(', ') ?? ''}"></label>
<button type="submit">Save rule</button></form>`,
  );
}
