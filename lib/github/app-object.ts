import type { AppRow } from '../store/queries/apps.js';
import { nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubApp, GitHubUser } from './types.js';

/**
 * A GitHub App as GitHub shows it, its owner already shaped. On its own (not in AppShapes) so that the shapes of
 * issues and comments can name the app that made them without depending on the shapes of apps.
 */
export function githubApp(baseUrl: string, app: AppRow, owner: GitHubUser, installationsCount?: number): GitHubApp {
  return {
    id: app.id,
    slug: app.slug,
    node_id: nodeId('Integration', app.id),
    client_id: `Iv1.${app.id.toString(16).padStart(16, '0')}`,
    owner,
    name: app.name,
    description: app.description,
    external_url: `${baseUrl}/apps/${app.slug}`,
    html_url: `${baseUrl}/apps/${app.slug}`,
    created_at: githubTime(app.created_at),
    updated_at: githubTime(app.updated_at),
    permissions: JSON.parse(app.permissions) as Record<string, string>,
    events: JSON.parse(app.events) as string[],
    ...(installationsCount === undefined ? {} : { installations_count: installationsCount }),
  };
}
