import { forbidden, invalid, notFound } from '../errors.js';
import type { EventRecorder } from '../events/index.js';
import type { DeploymentShapes } from '../github/deployment-shapes.js';
import type { Db, WriteTx } from '../store/interface.js';
import { latestStatusPerContext } from '../store/queries/commit-statuses.js';
import {
  countDeploymentStatuses,
  countDeploymentsIn,
  deleteDeployment,
  deploymentById,
  deploymentsOf,
  deploymentStatusById,
  deploymentsToInactivate,
  insertDeployment,
  insertDeploymentStatus,
  latestDeploymentStatus,
  statusesOfDeployment,
  touchDeployment,
  type DeploymentFilter,
  type DeploymentRow,
  type DeploymentState,
  type DeploymentStatusRow,
} from '../store/queries/deployments.js';
import { ensureEnvironment } from '../store/queries/environments.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import type { BranchMerges } from './branch-merges.js';
import { MAX_ENVIRONMENT_NAME } from './environments.js';
import type { GitDataService } from './git-data.js';
import { integrationAllows, requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { nullableText, optionalFlag, optionalHttpUrl, optionalText } from './text-fields.js';

const STATES: readonly string[] = ['error', 'failure', 'inactive', 'in_progress', 'queued', 'pending', 'success'];
/** Bounds repohost chose where GitHub documents none (a status's description is GitHub's 140, a name an environment's). */
const MAX_NAME = MAX_ENVIRONMENT_NAME;
const MAX_DESCRIPTION = 1024;
const MAX_STATUS_DESCRIPTION = 140;
const MAX_PAYLOAD_BYTES = 65_536;
const MAX_STATUSES = 1000;

export interface DeploymentInput {
  ref?: unknown;
  task?: unknown;
  auto_merge?: unknown;
  required_contexts?: unknown;
  payload?: unknown;
  environment?: unknown;
  description?: unknown;
  transient_environment?: unknown;
  production_environment?: unknown;
}

export interface DeploymentStatusInput {
  state?: unknown;
  target_url?: unknown;
  log_url?: unknown;
  description?: unknown;
  environment?: unknown;
  environment_url?: unknown;
  auto_inactive?: unknown;
}

/**
 * What asking for a deployment came to: made; the default branch merged into the ref first (GitHub then makes none:
 * ask again), or that merge conflicting; or required status contexts not all successful (each with its state).
 */
export type DeploymentOutcome =
  | { created: DeploymentRow }
  | { autoMerged: string; into: string }
  | { mergeConflict: string; into: string }
  | { failedContexts: Array<{ context: string; state: string }> };

/**
 * Deployments (GitHub's deployments API): requests to deploy a ref, which outside tools carry out and report on with
 * statuses. repohost deploys nothing itself; it keeps the records, checks what GitHub checks before making one (the
 * default branch merged in, the commit's statuses), makes the environments they name, and sends the `deployment`
 * and `deployment_status` events.
 */
export class DeploymentService {
  constructor(
    private readonly store: Db,
    private readonly gitData: Pick<GitDataService, 'resolve' | 'refsOf'>,
    private readonly merges: Pick<BranchMerges, 'mergeIntoBranch'>,
    private readonly events: EventRecorder,
    private readonly shapes: DeploymentShapes,
    private readonly now: () => string,
  ) {}

  async create(repo: RepositoryRow, viewer: Viewer, input: DeploymentInput): Promise<DeploymentOutcome> {
    await requireAccess(this.store, viewer, repo, 'write', 'Deploying needs write access');
    if (typeof input.ref !== 'string' || input.ref === '') throw invalid('ref must be a branch, tag or commit id');
    const ref = input.ref;
    const task = optionalText('task', input.task, MAX_NAME) || 'deploy';
    const environment = optionalText('environment', input.environment, MAX_NAME) || 'production';
    const description = input.description === undefined ? '' : nullableText('description', input.description, MAX_DESCRIPTION);
    const payload = payloadOf(input.payload);
    const contexts = requiredContextsOf(input.required_contexts);
    const transient = optionalFlag('transient_environment', input.transient_environment, false);
    const production = optionalFlag('production_environment', input.production_environment, environment === 'production');
    const autoMerge = optionalFlag('auto_merge', input.auto_merge, true);

    // GitHub merges the default branch into a branch behind it, and makes no deployment then.
    const refs = await this.gitData.refsOf(repo);
    if (autoMerge && ref !== repo.default_branch && refs.has(`refs/heads/${ref}`) && refs.has(`refs/heads/${repo.default_branch}`)) {
      // The merge writes a branch: an app needs `contents` write for it, as for any other merge.
      if (viewer?.installation && !integrationAllows(viewer.installation, repo, 'write', 'contents')) throw forbidden('Merging the default branch in on deployment needs contents write: ask with auto_merge false');
      const merged = await this.merges.mergeIntoBranch(repo, viewer, ref, repo.default_branch, `Auto-merged ${repo.default_branch} into ${ref} on deployment.`);
      if (merged === 'conflict') return { mergeConflict: repo.default_branch, into: ref };
      if (typeof merged === 'object') return { autoMerged: repo.default_branch, into: ref };
    }
    const sha = await this.gitData.resolve(repo, ref);
    const failed = await this.unmetContexts(repo, sha, contexts);
    if (failed.length > 0) return { failedContexts: failed };

    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      const id = await insertDeployment(
        tx,
        { repo_id: repo.id, sha, ref, task, payload, environment, description, creator_id: viewer!.id, transient_environment: transient ? 1 : 0, production_environment: production ? 1 : 0 },
        now,
      );
      await ensureEnvironment(tx, repo.id, environment, now);
      await this.events.record(tx, repo, viewer!, 'deployment', async (current) => ({ action: 'created', deployment: await this.shapeOne(tx, current, id), workflow: null, workflow_run: null }));
      return id;
    });
    return { created: (await deploymentById(this.store, repo.id, id))! };
  }

  async list(repo: RepositoryRow, filter: DeploymentFilter, page: PageWindow): Promise<{ items: DeploymentRow[]; total: number }> {
    const { rows, total } = await deploymentsOf(this.store, repo.id, filter, page);
    return { items: rows, total };
  }

  async get(repo: RepositoryRow, id: number): Promise<DeploymentRow> {
    const deployment = Number.isSafeInteger(id) ? await deploymentById(this.store, repo.id, id) : undefined;
    if (!deployment) throw notFound('Not Found');
    return deployment;
  }

  /**
   * Deletes an inactive deployment (its newest status not a success), or an active one that is the only deployment
   * of its environment, as GitHub allows; 'active' (nothing deleted) otherwise.
   */
  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<'deleted' | 'active'> {
    await requireAccess(this.store, viewer, repo, 'write', 'Deleting deployments needs write access');
    return await writeToRepository(this.store, repo, async (tx) => {
      const deployment = Number.isSafeInteger(id) ? await deploymentById(tx, repo.id, id) : undefined;
      if (!deployment) throw notFound('Not Found');
      const active = (await latestDeploymentStatus(tx, deployment.id))?.state === 'success';
      if (active && (await countDeploymentsIn(tx, repo.id, deployment.environment)) > 1) return 'active';
      await deleteDeployment(tx, repo.id, deployment.id);
      return 'deleted';
    });
  }

  async statuses(repo: RepositoryRow, deploymentId: number, page: PageWindow): Promise<{ items: DeploymentStatusRow[]; total: number }> {
    const deployment = await this.get(repo, deploymentId);
    const { rows, total } = await statusesOfDeployment(this.store, deployment.id, page);
    return { items: rows, total };
  }

  async status(repo: RepositoryRow, deploymentId: number, statusId: number): Promise<DeploymentStatusRow> {
    const deployment = await this.get(repo, deploymentId);
    const status = Number.isSafeInteger(statusId) ? await deploymentStatusById(this.store, deployment.id, statusId) : undefined;
    if (!status) throw notFound('Not Found');
    return status;
  }

  /**
   * Reports on a deployment. Without an `environment` the status keeps the one of the status before (or the
   * deployment's); a new one moves the deployment there. A success makes the environment's earlier successful,
   * neither transient nor production, deployments inactive (GitHub's `auto_inactive`, on by default).
   */
  async createStatus(repo: RepositoryRow, viewer: Viewer, deploymentId: number, input: DeploymentStatusInput): Promise<DeploymentStatusRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Reporting on deployments needs write access');
    if (typeof input.state !== 'string' || !STATES.includes(input.state)) throw invalid(`state must be one of ${STATES.join(', ')}`);
    const state = input.state as DeploymentState;
    const description = optionalText('description', input.description, MAX_STATUS_DESCRIPTION);
    const targetUrl = optionalHttpUrl('target_url', input.target_url);
    const logUrl = optionalHttpUrl('log_url', input.log_url);
    const environmentUrl = optionalHttpUrl('environment_url', input.environment_url) ?? '';
    const asked = optionalText('environment', input.environment, MAX_NAME);
    const autoInactive = optionalFlag('auto_inactive', input.auto_inactive, true);
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      const deployment = Number.isSafeInteger(deploymentId) ? await deploymentById(tx, repo.id, deploymentId) : undefined;
      if (!deployment) throw notFound('Not Found');
      if ((await countDeploymentStatuses(tx, deployment.id)) >= MAX_STATUSES) throw invalid(`a deployment has at most ${MAX_STATUSES} statuses`);
      const environment = asked || (await latestDeploymentStatus(tx, deployment.id))?.environment || deployment.environment;
      // As GitHub: `log_url` sets `target_url` too (which it replaces), and each stands for the other.
      const urls = { target_url: logUrl ?? targetUrl ?? '', log_url: logUrl ?? targetUrl ?? '', environment_url: environmentUrl };
      const id = await this.recordStatus(tx, repo, viewer!, { deployment_id: deployment.id, state, creator_id: viewer!.id, description, environment, ...urls }, now);
      if (state === 'success' && autoInactive) {
        for (const earlier of await deploymentsToInactivate(tx, repo.id, environment, deployment.id)) {
          await this.recordStatus(tx, repo, viewer!, { deployment_id: earlier, state: 'inactive', creator_id: viewer!.id, description: '', environment, target_url: '', log_url: '', environment_url: '' }, now);
        }
      }
      return id;
    });
    return (await deploymentStatusById(this.store, deploymentId, id))!;
  }

  /** A status in the write, moving its deployment to the status's environment, with its `deployment_status` event. */
  private async recordStatus(tx: WriteTx, repo: RepositoryRow, sender: UserRow, fields: Parameters<typeof insertDeploymentStatus>[1], now: string): Promise<number> {
    await touchDeployment(tx, fields.deployment_id, fields.environment, now);
    await ensureEnvironment(tx, repo.id, fields.environment, now);
    const id = await insertDeploymentStatus(tx, fields, now);
    await this.events.record(tx, repo, sender, 'deployment_status', async (current) => ({
      action: 'created',
      deployment_status: (await this.shapes.statuses(tx, current, [(await deploymentStatusById(tx, fields.deployment_id, id))!]))[0]!,
      deployment: await this.shapeOne(tx, current, fields.deployment_id),
    }));
    return id;
  }

  private async shapeOne(tx: WriteTx, repo: RepositoryRow, id: number) {
    return (await this.shapes.deployments(tx, repo, [(await deploymentById(tx, repo.id, id))!]))[0]!;
  }

  /** The required contexts (all of the commit's, when not given) whose newest status is not a success. */
  private async unmetContexts(repo: RepositoryRow, sha: string, required: readonly string[] | undefined): Promise<Array<{ context: string; state: string }>> {
    const latest = new Map((await latestStatusPerContext(this.store, repo.id, sha)).map((status) => [status.context, status.state as string]));
    const contexts = required ?? [...latest.keys()];
    const states = contexts.map((context) => ({ context, state: latest.get(context) ?? 'missing' }));
    return states.some(({ state }) => state !== 'success') ? states : [];
  }
}

/** The payload as stored (JSON): an object or a string, as GitHub takes it; none is ''. */
function payloadOf(value: unknown): string {
  const payload = value ?? '';
  if (typeof payload !== 'string' && (typeof payload !== 'object' || Array.isArray(payload))) throw invalid('payload must be an object or a string');
  const json = JSON.stringify(payload);
  if (Buffer.byteLength(json) > MAX_PAYLOAD_BYTES) throw invalid(`payload must be at most ${MAX_PAYLOAD_BYTES} bytes of JSON`);
  return json;
}

function requiredContextsOf(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((context) => typeof context !== 'string')) throw invalid('required_contexts must be an array of strings');
  return value as string[];
}
