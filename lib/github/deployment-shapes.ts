import type { ReadTx } from '../store/interface.js';
import type { DeploymentRow, DeploymentStatusRow } from '../store/queries/deployments.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { usersByNames, type UserRow } from '../store/queries/users.js';
import { type GitHubShapes } from './shapes.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubDeployment, GitHubDeploymentStatus } from './types.js';

/** GitHub's deployment and deployment status objects; the accounts of a page read in one query. */
export class DeploymentShapes {
  constructor(
    private readonly baseUrl: () => string,
    private readonly shapes: GitHubShapes,
  ) {}

  async deployments(db: ReadTx, repo: RepositoryRow, rows: readonly DeploymentRow[]): Promise<GitHubDeployment[]> {
    const users = await this.users(db, rows.map((row) => row.creator));
    return rows.map((row) => this.deployment(repo, row, users));
  }

  async statuses(db: ReadTx, repo: RepositoryRow, rows: readonly DeploymentStatusRow[]): Promise<GitHubDeploymentStatus[]> {
    const users = await this.users(db, rows.map((row) => row.creator));
    return rows.map((row) => this.status(repo, row, users));
  }

  private deployment(repo: RepositoryRow, row: DeploymentRow, users: ReadonlyMap<string, UserRow>): GitHubDeployment {
    const url = this.repoApi(repo, `/deployments/${row.id}`);
    return {
      url,
      id: row.id,
      node_id: nodeId('Deployment', row.id),
      sha: row.sha,
      ref: row.ref,
      task: row.task,
      payload: JSON.parse(row.payload) as GitHubDeployment['payload'],
      original_environment: row.original_environment,
      environment: row.environment,
      description: row.description,
      creator: this.userOf(row.creator, users),
      created_at: githubTime(row.created_at),
      updated_at: githubTime(row.updated_at),
      statuses_url: `${url}/statuses`,
      repository_url: this.repoApi(repo, ''),
      transient_environment: row.transient_environment === 1,
      production_environment: row.production_environment === 1,
      performed_via_github_app: null,
    };
  }

  private status(repo: RepositoryRow, row: DeploymentStatusRow, users: ReadonlyMap<string, UserRow>): GitHubDeploymentStatus {
    const deploymentUrl = this.repoApi(repo, `/deployments/${row.deployment_id}`);
    return {
      url: `${deploymentUrl}/statuses/${row.id}`,
      id: row.id,
      node_id: nodeId('DeploymentStatus', row.id),
      state: row.state,
      creator: this.userOf(row.creator, users),
      description: row.description,
      environment: row.environment,
      target_url: row.target_url,
      created_at: githubTime(row.created_at),
      updated_at: githubTime(row.updated_at),
      deployment_url: deploymentUrl,
      repository_url: this.repoApi(repo, ''),
      environment_url: row.environment_url,
      log_url: row.log_url,
      performed_via_github_app: null,
    };
  }

  private userOf(name: string | null, users: ReadonlyMap<string, UserRow>) {
    const user = name === null ? undefined : users.get(name.toLowerCase());
    return user ? this.shapes.user(user) : null;
  }

  private async users(db: ReadTx, names: ReadonlyArray<string | null>): Promise<ReadonlyMap<string, UserRow>> {
    return await usersByNames(db, names.filter((name): name is string => name !== null));
  }

  private repoApi(repo: RepositoryRow, path: string): string {
    return `${this.baseUrl()}${GITHUB_API_PREFIX}/repos/${repo.owner_name}/${repo.name}${path}`;
  }
}
