import type { ReadTx } from '../store/interface.js';
import { appsOfBots, appsWithIds, type AppRow, type InstallationRow } from '../store/queries/apps.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { userById, type UserRow } from '../store/queries/users.js';
import { githubTime } from './time.js';
import { type GitHubShapes } from './shapes.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import type { GitHubApp, GitHubRepository } from './types.js';
import { githubApp } from './app-object.js';

/** An app's permissions by name (GitHub's `permissions` object). */
export type AppPermissions = Record<string, 'read' | 'write'>;

/** An installation token as made, before GitHub's shape shows it (the secret itself only this once). */
export interface NewInstallationToken {
  token: string;
  expiresAt: string;
  permissions: AppPermissions;
  repositorySelection: 'all' | 'selected';
  /** The repositories the token was narrowed to, or null when it covers its installation's. */
  repositories: RepositoryRow[] | null;
}

/** The `installation` of an app's webhook payloads. */
export function installationField(id: number): { id: number; node_id: string } {
  return { id, node_id: nodeId('IntegrationInstallation', id) };
}

export type { GitHubApp };

/** GitHub's objects of Apps: the app (`GET /app`), an installation, an installation token. */
export class AppShapes {
  constructor(
    private readonly baseUrl: () => string,
    private readonly shapes: GitHubShapes,
  ) {}

  app(app: AppRow, owner: UserRow, installationsCount?: number): GitHubApp {
    return githubApp(this.baseUrl(), app, this.shapes.user(owner), installationsCount);
  }

  /** The apps that made objects, by the account that made them (an app's bot); accounts that are no bot are absent. */
  async appsOfCreators(db: ReadTx, creatorIds: readonly number[]): Promise<Map<number, GitHubApp>> {
    return await this.shaped(db, await appsOfBots(db, creatorIds));
  }

  /** The apps with these ids, by id (0, no app, and apps since deleted are absent). */
  async appsByIds(db: ReadTx, ids: readonly number[]): Promise<Map<number, GitHubApp>> {
    return await this.shaped(db, await appsWithIds(db, ids.filter((id) => id > 0)));
  }

  private async shaped(db: ReadTx, apps: ReadonlyMap<number, AppRow>): Promise<Map<number, GitHubApp>> {
    const shaped = new Map<number, GitHubApp>();
    for (const [key, app] of apps) shaped.set(key, this.app(app, (await userById(db, app.owner_id))!));
    return shaped;
  }

  installation(installation: InstallationRow, app: AppRow, account: UserRow) {
    const api = `${this.baseUrl()}${GITHUB_API_PREFIX}`;
    return {
      id: installation.id,
      account: this.shapes.user(account),
      repository_selection: installation.repository_selection,
      access_tokens_url: `${api}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${api}/installation/repositories`,
      html_url: `${this.baseUrl()}/settings/installations/${installation.id}`,
      app_id: app.id,
      app_slug: app.slug,
      target_id: account.id,
      target_type: 'User',
      permissions: JSON.parse(app.permissions) as Record<string, string>,
      events: JSON.parse(app.events) as string[],
      created_at: githubTime(installation.created_at),
      updated_at: githubTime(installation.updated_at),
      single_file_name: null,
      has_multiple_single_files: false,
      single_file_paths: [],
      suspended_by: null,
      suspended_at: null,
    };
  }

  /** The answer of `POST …/access_tokens`: `repositories` only when the token was narrowed to some. */
  token(token: NewInstallationToken, repositories: GitHubRepository[] | null) {
    return {
      token: token.token,
      expires_at: githubTime(token.expiresAt),
      permissions: token.permissions,
      repository_selection: token.repositorySelection,
      ...(repositories === null ? {} : { repositories }),
    };
  }
}
