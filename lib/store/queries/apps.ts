import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import { takeId } from './id-sequences.js';

export interface AppRow {
  id: number;
  slug: string;
  name: string;
  description: string;
  owner_id: number;
  bot_id: number;
  /** PEM (SPKI) of the key the app signs its JSON web tokens with. */
  public_key: string;
  webhook_url: string;
  webhook_secret: string;
  /** JSON object: permission name → 'read' | 'write'. */
  permissions: string;
  /** JSON list of the events the app's webhook receives. */
  events: string;
  created_at: string;
  updated_at: string;
}

export type RepositorySelection = 'all' | 'selected';

export interface InstallationRow {
  id: number;
  app_id: number;
  account_id: number;
  repository_selection: RepositorySelection;
  created_at: string;
  updated_at: string;
}

export interface InstallationTokenRow {
  id: number;
  installation_id: number;
  token_hash: string;
  permissions: string;
  /** JSON list of repository ids the token was narrowed to; null for every repository of its installation. */
  repository_ids: string | null;
  expires_at: string;
}

const APP_COLUMNS = 'id, slug, name, description, owner_id, bot_id, public_key, webhook_url, webhook_secret, permissions, events, created_at, updated_at';
const INSTALLATION_COLUMNS = 'id, app_id, account_id, repository_selection, created_at, updated_at';

export async function appById(db: ReadTx, id: number): Promise<AppRow | undefined> {
  return await db.get<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE id = ?`, [id]);
}

export async function appBySlug(db: ReadTx, slug: string): Promise<AppRow | undefined> {
  return await db.get<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE slug = ?`, [slug]);
}

export async function appByName(db: ReadTx, name: string): Promise<AppRow | undefined> {
  return await db.get<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE LOWER(name) = ?`, [name.toLowerCase()]);
}

/** The app whose bot account this is. */
export async function appOfBot(db: ReadTx, botId: number): Promise<AppRow | undefined> {
  return await db.get<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE bot_id = ?`, [botId]);
}

/** The apps with these ids that exist, by id: one query for a page of check suites. */
export async function appsWithIds(db: ReadTx, ids: readonly number[]): Promise<Map<number, AppRow>> {
  if (ids.length === 0) return new Map();
  const list = inList([...new Set(ids)]);
  return new Map((await db.all<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE id ${list.sql}`, list.params)).map((app) => [app.id, app]));
}

/** The apps whose bot accounts these are, by bot id: one query for a page of check runs. */
export async function appsOfBots(db: ReadTx, botIds: readonly number[]): Promise<Map<number, AppRow>> {
  if (botIds.length === 0) return new Map();
  const list = inList([...new Set(botIds)]);
  return new Map((await db.all<AppRow>(`SELECT ${APP_COLUMNS} FROM apps WHERE bot_id ${list.sql}`, list.params)).map((app) => [app.bot_id, app]));
}

export async function insertApp(
  tx: WriteTx,
  app: { slug: string; name: string; description: string; ownerId: number; botId: number; publicKey: string; webhookUrl: string; webhookSecret: string; permissions: string; events: string; now: string },
): Promise<AppRow> {
  return (await tx.run<AppRow>(
    `INSERT INTO apps (slug, name, description, owner_id, bot_id, public_key, webhook_url, webhook_secret, permissions, events, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${APP_COLUMNS}`,
    [app.slug, app.name, app.description, app.ownerId, app.botId, app.publicKey, app.webhookUrl, app.webhookSecret, app.permissions, app.events, app.now, app.now],
  )).rows[0]!;
}

export async function installationById(db: ReadTx, id: number): Promise<InstallationRow | undefined> {
  return await db.get<InstallationRow>(`SELECT ${INSTALLATION_COLUMNS} FROM app_installations WHERE id = ?`, [id]);
}

export async function installationOfAccount(db: ReadTx, appId: number, accountId: number): Promise<InstallationRow | undefined> {
  return await db.get<InstallationRow>(`SELECT ${INSTALLATION_COLUMNS} FROM app_installations WHERE app_id = ? AND account_id = ?`, [appId, accountId]);
}

/** The app's installation that covers the repository (its owner's, for all repositories or with this one selected). */
export async function installationOfRepository(db: ReadTx, appId: number, repo: { id: number; owner_id: number }): Promise<InstallationRow | undefined> {
  return await db.get<InstallationRow>(
    `SELECT ${INSTALLATION_COLUMNS} FROM app_installations i WHERE i.app_id = ? AND i.account_id = ?
       AND (i.repository_selection = 'all' OR EXISTS (SELECT 1 FROM app_installation_repos r WHERE r.installation_id = i.id AND r.repo_id = ?))`,
    [appId, repo.owner_id, repo.id],
  );
}

export async function installationsOfApp(db: ReadTx, appId: number, page: PageWindow): Promise<InstallationRow[]> {
  return await db.all<InstallationRow>(`SELECT ${INSTALLATION_COLUMNS} FROM app_installations WHERE app_id = ? ORDER BY id LIMIT ? OFFSET ?`, [appId, page.limit, page.offset]);
}

export async function countInstallations(db: ReadTx, appId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM app_installations WHERE app_id = ?', [appId]))!.n;
}

export async function insertInstallation(tx: WriteTx, appId: number, accountId: number, selection: RepositorySelection, now: string): Promise<InstallationRow> {
  return (await tx.run<InstallationRow>(
    `INSERT INTO app_installations (id, app_id, account_id, repository_selection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING ${INSTALLATION_COLUMNS}`,
    [await takeId(tx, 'installation'), appId, accountId, selection, now, now],
  )).rows[0]!;
}

export async function selectRepository(tx: WriteTx, installationId: number, repoId: number): Promise<void> {
  await tx.run('INSERT INTO app_installation_repos (installation_id, repo_id) VALUES (?, ?) ON CONFLICT (installation_id, repo_id) DO NOTHING', [installationId, repoId]);
}

export async function deleteInstallation(tx: WriteTx, id: number): Promise<boolean> {
  return (await tx.run('DELETE FROM app_installations WHERE id = ?', [id])).changes > 0;
}

/** Ids of the repositories an installation covers, in id order. */
export async function installationRepositoryIds(db: ReadTx, installation: InstallationRow): Promise<number[]> {
  const rows = installation.repository_selection === 'all'
    ? await db.all<{ id: number }>('SELECT id FROM repositories WHERE owner_id = ? ORDER BY id', [installation.account_id])
    : await db.all<{ id: number }>('SELECT repo_id AS id FROM app_installation_repos WHERE installation_id = ? ORDER BY repo_id', [installation.id]);
  return rows.map((row) => row.id);
}

/**
 * Gives the installation's app webhook a hook row on each repository it covers that has none yet (see migration 16):
 * the deliveries of events there then carry the installation.
 */
export async function addInstallationHooks(tx: WriteTx, installationId: number, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO webhooks (repo_id, url, content_type, secret, events, active, created_at, updated_at, installation_id)
     SELECT r.id, a.webhook_url, 'json', a.webhook_secret, a.events, CASE WHEN a.webhook_url = '' THEN 0 ELSE 1 END, ?, ?, i.id
       FROM app_installations i JOIN apps a ON a.id = i.app_id JOIN repositories r ON r.owner_id = i.account_id
      WHERE i.id = ?
        AND (i.repository_selection = 'all' OR EXISTS (SELECT 1 FROM app_installation_repos s WHERE s.installation_id = i.id AND s.repo_id = r.id))
        AND NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.installation_id = i.id AND w.repo_id = r.id)`,
    [now, now, installationId],
  );
}

/** A new repository's hook rows for the installations of its owner that cover all repositories. */
export async function addHooksOfNewRepository(tx: WriteTx, repoId: number, ownerId: number, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO webhooks (repo_id, url, content_type, secret, events, active, created_at, updated_at, installation_id)
     SELECT ?, a.webhook_url, 'json', a.webhook_secret, a.events, CASE WHEN a.webhook_url = '' THEN 0 ELSE 1 END, ?, ?, i.id
       FROM app_installations i JOIN apps a ON a.id = i.app_id
      WHERE i.account_id = ? AND i.repository_selection = 'all'`,
    [repoId, now, now, ownerId],
  );
}

export async function insertInstallationToken(
  tx: WriteTx,
  token: { installationId: number; tokenHash: string; permissions: string; repositoryIds: string | null; expiresAt: string; now: string },
): Promise<void> {
  await tx.run(
    'INSERT INTO installation_tokens (installation_id, token_hash, permissions, repository_ids, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    [token.installationId, token.tokenHash, token.permissions, token.repositoryIds, token.expiresAt, token.now],
  );
}

export async function installationTokenByHash(db: ReadTx, tokenHash: string): Promise<InstallationTokenRow | undefined> {
  return await db.get<InstallationTokenRow>(
    'SELECT id, installation_id, token_hash, permissions, repository_ids, expires_at FROM installation_tokens WHERE token_hash = ?',
    [tokenHash],
  );
}

export async function deleteExpiredInstallationTokens(tx: WriteTx, now: string): Promise<void> {
  await tx.run('DELETE FROM installation_tokens WHERE expires_at <= ?', [now]);
}

export async function deleteInstallationToken(tx: WriteTx, tokenHash: string): Promise<boolean> {
  return (await tx.run('DELETE FROM installation_tokens WHERE token_hash = ?', [tokenHash])).changes > 0;
}

/**
 * Takes a deleted repository out of the installation tokens narrowed to it: SQLite may give its id to the next
 * repository made, which such a token must not reach. A token left with none reaches none (not all).
 */
export async function forgetRepositoryInTokens(tx: WriteTx, repoId: number): Promise<void> {
  const narrowed = await tx.all<{ id: number; repository_ids: string }>('SELECT id, repository_ids FROM installation_tokens WHERE repository_ids IS NOT NULL');
  for (const token of narrowed) {
    const ids = JSON.parse(token.repository_ids) as number[];
    if (ids.includes(repoId)) await tx.run('UPDATE installation_tokens SET repository_ids = ? WHERE id = ?', [JSON.stringify(ids.filter((id) => id !== repoId)), token.id]);
  }
}
