import { invalid, notFound } from '../errors.js';
import type { Db } from '../store/interface.js';
import { deleteEnvironment, ensureEnvironment, environmentNamed, environmentsOf, touchEnvironment, type EnvironmentRow } from '../store/queries/environments.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { ownValue } from '../own-value.js';

/** GitHub's bound on an environment's name. */
export const MAX_ENVIRONMENT_NAME = 255;

/** What GitHub's `PUT …/environments/{name}` may set that repohost keeps no counterpart of: refused unless unset. */
const UNSUPPORTED: Readonly<Record<string, (value: unknown) => boolean>> = {
  wait_timer: (value) => value === 0,
  prevent_self_review: (value) => value === false,
  reviewers: (value) => Array.isArray(value) && value.length === 0,
  deployment_branch_policy: () => false,
};

export interface EnvironmentSettings {
  [field: string]: unknown;
}

/**
 * Deployment environments (GitHub's environments): made by an admin, or by the first deployment to one, as GitHub
 * makes them. repohost has no protection rules, secrets or variables for them: asking for any is refused.
 */
export class EnvironmentService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
  ) {}

  async list(repo: RepositoryRow, page: PageWindow): Promise<{ items: EnvironmentRow[]; total: number }> {
    const { rows, total } = await environmentsOf(this.store, repo.id, page);
    return { items: rows, total };
  }

  async get(repo: RepositoryRow, name: string): Promise<EnvironmentRow> {
    const environment = await environmentNamed(this.store, repo.id, name);
    if (!environment) throw notFound('Not Found');
    return environment;
  }

  /** Makes the environment, or touches it when it exists; the fields it has no counterpart of must be unset. */
  async put(repo: RepositoryRow, viewer: Viewer, name: string, settings: EnvironmentSettings): Promise<EnvironmentRow> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Changing environments needs admin access');
    if (name === '' || name.length > MAX_ENVIRONMENT_NAME) throw invalid(`an environment's name has 1 to ${MAX_ENVIRONMENT_NAME} characters`);
    const refused = Object.keys(settings).filter((field) => {
      const supported = ownValue(UNSUPPORTED, field);
      const value = ownValue(settings, field);
      return supported !== undefined && value !== null && !supported(value);
    });
    if (refused.length > 0) throw invalid(`repohost does not support environment protection: ${refused.join(', ')}`);
    const now = this.now();
    return await writeToRepository(this.store, repo, async (tx) => {
      const environment = await ensureEnvironment(tx, repo.id, name, now);
      await touchEnvironment(tx, environment.id, now);
      return (await environmentNamed(tx, repo.id, name))!;
    });
  }

  /** Deletes the environment (its deployments stay, as on GitHub). */
  async remove(repo: RepositoryRow, viewer: Viewer, name: string): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Changing environments needs admin access');
    await writeToRepository(this.store, repo, async (tx) => {
      const environment = await environmentNamed(tx, repo.id, name);
      if (!environment) throw notFound('Not Found');
      await deleteEnvironment(tx, repo.id, environment.id);
    });
  }
}
