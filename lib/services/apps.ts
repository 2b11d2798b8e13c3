import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { conflict, invalid, notFound, unauthorized } from '../errors.js';
import { SUBSCRIBABLE_EVENTS } from '../events/types.js';
import type { Db } from '../store/interface.js';
import {
  addInstallationHooks,
  appById,
  appByName,
  appBySlug,
  countInstallations,
  deleteExpiredInstallationTokens,
  deleteInstallation,
  deleteInstallationToken,
  insertApp,
  insertInstallation,
  insertInstallationToken,
  installationById,
  installationOfAccount,
  installationOfRepository,
  installationRepositoryIds,
  installationsOfApp,
  installationTokenByHash,
  selectRepository,
  type AppRow,
  type InstallationRow,
} from '../store/queries/apps.js';
import type { AppPermissions, NewInstallationToken } from '../github/app-shapes.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { repositoriesWithIds, repositoryByFullName, repositoryByName, type RepositoryRow } from '../store/queries/repositories.js';
import { insertUser, userById, userByName, type UserRow } from '../store/queries/users.js';
import { hookTargetUrl } from '../net/target-url.js';
import { readAppJwt, signedBy } from './app-jwt.js';
import type { PasswordHasher } from './password-hasher.js';
import type { AccessLevel, InstallationGrant, Viewer } from './permissions.js';
import { hashToken, newToken } from './secrets.js';
import { ownValue } from '../own-value.js';

/** The repository permissions an app may ask for, and what each level lets it do (see `levelOf`). */
export const APP_PERMISSIONS = ['administration', 'checks', 'contents', 'deployments', 'issues', 'metadata', 'pull_requests', 'statuses'] as const;
const PERMISSION_LEVELS = ['read', 'write'];

/** GitHub's: an installation token lives an hour. */
const TOKEN_LIFETIME_MS = 3_600_000;
const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,32}[a-z0-9])?$/;
const MAX_NAME = 34;

export interface AppInput {
  /** The account that owns the app (manages it). */
  owner: string;
  name: string;
  /** @default the name in lower case, runs of other characters as '-' */
  slug?: string;
  description?: string;
  /** Where the app's webhook deliveries go; none: the app hears nothing. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** GitHub's repository permission names (see APP_PERMISSIONS) → 'read' | 'write'. @default { metadata: 'read' } */
  permissions?: Record<string, string>;
  /** Events its webhook receives (as GitHub, only those asked for). @default [] */
  events?: string[];
  /** The app's RSA private key (PEM), e.g. one a test keeps in its fixtures; a new one is made when absent. */
  privateKey?: string;
}


export type { AppPermissions, NewInstallationToken };

const generateRsaKey = promisify(generateKeyPair);

/** The role an app's permissions give it on a repository it is installed on (coarse: repohost has roles, not scopes). */
export function levelOf(permissions: AppPermissions): AccessLevel {
  const written = Object.entries(permissions).filter(([, level]) => level === 'write').map(([name]) => name);
  if (written.includes('administration')) return 'admin';
  return written.length > 0 ? 'write' : 'read';
}

/** An app's permissions checked (GitHub's names, read or write); `metadata: read` always. */
export function permissionsOf(value: unknown, field = 'permissions'): AppPermissions {
  if (value === undefined || value === null) return { metadata: 'read' };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`${field} must be an object of permission names and levels`);
  const result = new Map<string, 'read' | 'write'>();
  for (const [name, level] of Object.entries(value)) {
    if (!(APP_PERMISSIONS as readonly string[]).includes(name)) throw invalid(`${field} may only name ${APP_PERMISSIONS.join(', ')}; not ${name}`);
    if (typeof level !== 'string' || !PERMISSION_LEVELS.includes(level)) throw invalid(`${field}.${name} must be read or write`);
    if (name === 'metadata' && level !== 'read') throw invalid(`${field}.metadata can only be read`);
    result.set(name, level as 'read' | 'write');
  }
  return { metadata: 'read', ...Object.fromEntries(result) };
}

/** The events an app's webhook receives, checked. */
export function eventsOf(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw invalid('events must be a list of event names');
  const unknown = value.filter((item) => !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(item));
  if (unknown.length > 0) throw invalid(`events may only name ${SUBSCRIBABLE_EVENTS.join(', ')}; not ${unknown.join(', ')}`);
  return [...new Set(value as string[])];
}

/** The app's key pair: the given private key (RSA, PEM) checked, or a new 2048-bit one in GitHub's PKCS#1 form. */
export async function keyPair(privateKey: unknown): Promise<{ privateKey: string; publicKey: string }> {
  if (privateKey === undefined || privateKey === null) {
    const pair = await generateRsaKey('rsa', { modulusLength: 2048 });
    return { privateKey: pair.privateKey.export({ type: 'pkcs1', format: 'pem' }) as string, publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }) as string };
  }
  try {
    const key = createPrivateKey(String(privateKey));
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
    return { privateKey: String(privateKey), publicKey: createPublicKey(key).export({ type: 'spki', format: 'pem' }) as string };
  } catch {
    throw invalid('privateKey must be an RSA private key in PEM form');
  }
}

/**
 * GitHub Apps: an app (made by an administrator or fixtures), its installations on accounts' repositories, and the
 * credentials of its two faces: the JSON web token it signs with its private key (to speak as the app) and the
 * installation tokens it trades that for (to act as its bot, `<slug>[bot]`, on the repositories installed).
 */
export class AppService {
  constructor(
    private readonly store: Db,
    private readonly passwords: PasswordHasher,
    private readonly bcryptCost: number,
    private readonly now: () => Date,
    private readonly allowLocalNetwork: boolean,
    private readonly noreplyDomain: string,
  ) {}

  /** Makes an app and its bot account; the private key is returned here only (GitHub hands it out once too). */
  async create(input: AppInput): Promise<{ app: AppRow; privateKey: string }> {
    const owner = await userByName(this.store, String(input.owner ?? ''));
    if (!owner) throw notFound(`no user named '${String(input.owner)}'`);
    const name = typeof input.name === 'string' ? input.name.trim() : '';
    if (!name || name.length > MAX_NAME) throw invalid(`name is required, at most ${MAX_NAME} characters`);
    const slug = input.slug ?? name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    if (typeof slug !== 'string' || !SLUG.test(slug)) throw invalid('slug must be 1 to 34 lower-case letters, digits or dashes');
    const permissions = permissionsOf(input.permissions);
    const events = eventsOf(input.events);
    const webhookUrl = input.webhookUrl === undefined || input.webhookUrl === '' ? '' : await hookTargetUrl(input.webhookUrl, this.allowLocalNetwork);
    const webhookSecret = typeof input.webhookSecret === 'string' ? input.webhookSecret : '';
    const keys = await keyPair(input.privateKey);
    // The bot never signs in: its password is a secret nobody holds.
    const botPassword = await this.passwords.hash(newToken(), this.bcryptCost);
    const now = this.now().toISOString();
    const app = await this.store.write(async (tx) => {
      if (await appBySlug(tx, slug)) throw conflict(`an app with the slug '${slug}' already exists`);
      if (await appByName(tx, name)) throw conflict(`an app named '${name}' already exists`);
      const botName = `${slug}[bot]`;
      if (await userByName(tx, botName)) throw conflict(`the account ${botName} already exists`);
      const bot = await insertUser(tx, { username: botName, email: `${botName}@${this.noreplyDomain}`, fullName: '', passwordHash: botPassword, isAdmin: false, now });
      return await insertApp(tx, {
        slug,
        name,
        description: typeof input.description === 'string' ? input.description : '',
        ownerId: owner.id,
        botId: bot.id,
        publicKey: keys.publicKey,
        webhookUrl,
        webhookSecret,
        permissions: JSON.stringify(permissions),
        events: JSON.stringify(events),
        now,
      });
    });
    return { app, privateKey: keys.privateKey };
  }

  /**
   * Installs the app on an account's repositories: all of them (those made later too), or the named ones. Its webhook
   * hears of their events from now on.
   */
  async install(slug: string, accountName: string, repositories?: readonly string[]): Promise<InstallationRow> {
    const app = await this.bySlug(slug);
    const account = await userByName(this.store, accountName);
    if (!account) throw notFound(`no user named '${accountName}'`);
    if (repositories !== undefined && (!Array.isArray(repositories) || !repositories.every((name) => typeof name === 'string'))) throw invalid('repositories must be a list of names');
    const now = this.now().toISOString();
    return await this.store.write(async (tx) => {
      if (await installationOfAccount(tx, app.id, account.id)) throw conflict(`${app.slug} is already installed on ${account.username}`);
      const installation = await insertInstallation(tx, app.id, account.id, repositories === undefined ? 'all' : 'selected', now);
      for (const name of repositories ?? []) {
        const repo = await repositoryByName(tx, account.id, name);
        if (!repo) throw notFound(`no repository ${account.username}/${name}`);
        await selectRepository(tx, installation.id, repo.id);
      }
      await addInstallationHooks(tx, installation.id, now);
      return installation;
    });
  }

  async byId(id: number): Promise<AppRow | undefined> {
    return await appById(this.store, id);
  }

  async bySlug(slug: string): Promise<AppRow> {
    const app = typeof slug === 'string' ? await appBySlug(this.store, slug) : undefined;
    if (!app) throw notFound('Not Found');
    return app;
  }

  async owner(app: AppRow): Promise<UserRow> {
    return (await userById(this.store, app.owner_id))!;
  }

  async bot(app: AppRow): Promise<UserRow> {
    return (await userById(this.store, app.bot_id))!;
  }

  /** The app a JSON web token speaks for: signed by its key, within GitHub's time limits (host clock); 401 otherwise. */
  async appOfJwt(token: string): Promise<AppRow> {
    const claims = readAppJwt(token, this.now().getTime());
    const app = await appById(this.store, claims.iss);
    if (!app || !signedBy(token, app.public_key)) throw unauthorized('A JSON web token could not be decoded');
    return app;
  }

  async installations(app: AppRow, page: PageWindow): Promise<{ items: InstallationRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await installationsOfApp(tx, app.id, page), total: await countInstallations(tx, app.id) }));
  }

  async installationsCount(app: AppRow): Promise<number> {
    return await countInstallations(this.store, app.id);
  }

  /** One of the app's installations; 404 for another app's. */
  async installation(app: AppRow, id: number): Promise<InstallationRow> {
    const installation = Number.isSafeInteger(id) ? await installationById(this.store, id) : undefined;
    if (!installation || installation.app_id !== app.id) throw notFound('Not Found');
    return installation;
  }

  async installationOfRepository(app: AppRow, repo: RepositoryRow): Promise<InstallationRow> {
    const installation = await installationOfRepository(this.store, app.id, repo);
    if (!installation) throw notFound('Not Found');
    return installation;
  }

  /** The installation covering `owner/name` (GitHub's `GET /repos/:o/:r/installation`); 404 for a missing repository too. */
  async installationOfRepositoryNamed(app: AppRow, ownerName: string, name: string): Promise<InstallationRow> {
    const repo = await repositoryByFullName(this.store, ownerName, name);
    if (!repo) throw notFound('Not Found');
    return await this.installationOfRepository(app, repo);
  }

  async installationOfAccount(app: AppRow, accountName: string): Promise<InstallationRow> {
    const account = await userByName(this.store, accountName);
    const installation = account && (await installationOfAccount(this.store, app.id, account.id));
    if (!installation) throw notFound('Not Found');
    return installation;
  }

  /** The installation an installation token's grant comes from. */
  async installationForGrant(grant: InstallationGrant): Promise<InstallationRow> {
    const installation = await installationById(this.store, grant.installationId);
    if (!installation) throw notFound('Not Found');
    return installation;
  }

  async uninstall(app: AppRow, id: number): Promise<void> {
    const installation = await this.installation(app, id);
    await this.store.write(async (tx) => await deleteInstallation(tx, installation.id));
  }

  /** The account an installation is on. */
  async account(installation: InstallationRow): Promise<UserRow> {
    return (await userById(this.store, installation.account_id))!;
  }

  /** The repositories an installation (or a token narrowed to some) covers, in id order. */
  async repositories(installation: InstallationRow, narrowed: readonly number[] | null, page?: PageWindow): Promise<{ items: RepositoryRow[]; total: number }> {
    return await this.store.read(async (tx) => {
      const ids = narrowed ?? (await installationRepositoryIds(tx, installation));
      const window = page ? ids.slice(page.offset, page.offset + page.limit) : ids;
      return { items: await repositoriesWithIds(tx, window), total: ids.length };
    });
  }

  /**
   * `POST /app/installations/:id/access_tokens`: a token of an hour, for all the installation covers, or narrowed to
   * some repositories (`repositories` by name, `repository_ids`) and permissions, never beyond the installation's.
   */
  async createToken(app: AppRow, installationId: number, body: { repositories?: unknown; repository_ids?: unknown; permissions?: unknown }): Promise<NewInstallationToken> {
    const installation = await this.installation(app, installationId);
    const granted = permissionsOf(JSON.parse(app.permissions));
    const asked = body.permissions === undefined ? granted : permissionsOf(body.permissions);
    if (Object.entries(asked).some(([name, level]) => !ownValue(granted, name) || (level === 'write' && ownValue(granted, name) !== 'write'))) {
      throw invalid('The permissions requested are not granted to this installation.');
    }
    const narrowed = await this.narrowedTo(installation, body);
    const token = `ghs_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'A').slice(0, 36)}`;
    const now = this.now();
    const expiresAt = new Date(now.getTime() + TOKEN_LIFETIME_MS).toISOString();
    await this.store.write(async (tx) => {
      await deleteExpiredInstallationTokens(tx, now.toISOString());
      await insertInstallationToken(tx, {
        installationId: installation.id,
        tokenHash: hashToken(token),
        permissions: JSON.stringify(asked),
        repositoryIds: narrowed === null ? null : JSON.stringify(narrowed.map((repo) => repo.id)),
        expiresAt,
        now: now.toISOString(),
      });
    });
    return { token, expiresAt, permissions: asked, repositorySelection: narrowed ? 'selected' : installation.repository_selection, repositories: narrowed };
  }

  /** `DELETE /installation/token`: the token ends now. */
  async revokeToken(token: string): Promise<void> {
    await this.store.write(async (tx) => await deleteInstallationToken(tx, hashToken(token)));
  }

  /** The bot an installation token acts as, with what it may do; undefined for an unknown or expired token. */
  async viewerOfToken(token: string): Promise<Viewer> {
    const row = await installationTokenByHash(this.store, hashToken(token));
    if (!row || row.expires_at <= this.now().toISOString()) return undefined;
    return await this.store.read(async (tx) => {
      const installation = await installationById(tx, row.installation_id);
      const app = installation && (await appById(tx, installation.app_id));
      const bot = app && (await userById(tx, app.bot_id));
      if (!installation || !bot) return undefined;
      const permissions = JSON.parse(row.permissions) as AppPermissions;
      const repoIds = row.repository_ids !== null ? (JSON.parse(row.repository_ids) as number[]) : installation.repository_selection === 'all' ? null : await installationRepositoryIds(tx, installation);
      const grant: InstallationGrant = { installationId: installation.id, appId: installation.app_id, accountId: installation.account_id, repoIds, level: levelOf(permissions), permissions };
      return { ...bot, installation: grant };
    });
  }

  private async narrowedTo(installation: InstallationRow, body: { repositories?: unknown; repository_ids?: unknown }): Promise<RepositoryRow[] | null> {
    if (body.repositories === undefined && body.repository_ids === undefined) return null;
    const names = body.repositories ?? [];
    const ids = body.repository_ids ?? [];
    if (!Array.isArray(names) || !names.every((name) => typeof name === 'string')) throw invalid('repositories must be a list of names');
    if (!Array.isArray(ids) || !ids.every((id) => Number.isSafeInteger(id))) throw invalid('repository_ids must be a list of ids');
    if (names.length + ids.length > 500) throw invalid('a token may name at most 500 repositories');
    const refused = () => invalid('There is at least one repository that does not exist or is not accessible to the parent installation.');
    return await this.store.read(async (tx) => {
      const chosen = new Map<number, RepositoryRow>();
      for (const name of names as string[]) {
        const repo = await repositoryByName(tx, installation.account_id, name);
        if (!repo) throw refused();
        chosen.set(repo.id, repo);
      }
      const byId = await repositoriesWithIds(tx, ids as number[]);
      if (byId.length !== new Set(ids as number[]).size) throw refused();
      for (const repo of byId) chosen.set(repo.id, repo);
      const covered = new Set(await installationRepositoryIds(tx, installation));
      if ([...chosen.keys()].some((id) => !covered.has(id))) throw refused();
      return [...chosen.values()].sort((a, b) => a.id - b.id);
    });
  }
}
