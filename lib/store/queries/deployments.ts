import type { ReadTx, WriteTx } from '../interface.js';
import type { PageWindow } from './page-window.js';

/** GitHub's states of a deployment status. */
export type DeploymentState = 'error' | 'failure' | 'inactive' | 'in_progress' | 'queued' | 'pending' | 'success';

export interface DeploymentRow {
  id: number;
  repo_id: number;
  sha: string;
  ref: string;
  task: string;
  /** The payload as JSON (an object or a string). */
  payload: string;
  environment: string;
  original_environment: string;
  description: string | null;
  creator: string | null;
  transient_environment: number;
  production_environment: number;
  created_at: string;
  updated_at: string;
}

export interface DeploymentStatusRow {
  id: number;
  deployment_id: number;
  state: DeploymentState;
  creator: string | null;
  description: string;
  environment: string;
  target_url: string;
  log_url: string;
  environment_url: string;
  created_at: string;
  updated_at: string;
}

/** GitHub's filters of the deployment list. */
export interface DeploymentFilter {
  sha?: string;
  ref?: string;
  task?: string;
  environment?: string;
}

const SELECT = `SELECT d.id, d.repo_id, d.sha, d.ref, d.task, d.payload, d.environment, d.original_environment, d.description, u.username AS creator,
  d.transient_environment, d.production_environment, d.created_at, d.updated_at FROM deployments d LEFT JOIN users u ON u.id = d.creator_id`;
const SELECT_STATUS = `SELECT s.id, s.deployment_id, s.state, u.username AS creator, s.description, s.environment, s.target_url, s.log_url, s.environment_url,
  s.created_at, s.updated_at FROM deployment_statuses s LEFT JOIN users u ON u.id = s.creator_id`;

function filterSql(filter: DeploymentFilter): { sql: string; params: string[] } {
  const columns = (['sha', 'ref', 'task', 'environment'] as const).filter((column) => filter[column] !== undefined);
  return { sql: columns.map((column) => ` AND d.${column} = ?`).join(''), params: columns.map((column) => filter[column]!) };
}

/** The repository's deployments, newest first, with how many match. */
export async function deploymentsOf(db: ReadTx, repoId: number, filter: DeploymentFilter, page: PageWindow): Promise<{ rows: DeploymentRow[]; total: number }> {
  const where = filterSql(filter);
  const rows = await db.all<DeploymentRow>(`${SELECT} WHERE d.repo_id = ?${where.sql} ORDER BY d.id DESC LIMIT ? OFFSET ?`, [repoId, ...where.params, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM deployments d WHERE d.repo_id = ?${where.sql}`, [repoId, ...where.params]))!.n;
  return { rows, total };
}

export async function deploymentById(db: ReadTx, repoId: number, id: number): Promise<DeploymentRow | undefined> {
  return await db.get<DeploymentRow>(`${SELECT} WHERE d.repo_id = ? AND d.id = ?`, [repoId, id]);
}

export async function insertDeployment(
  tx: WriteTx,
  fields: Omit<DeploymentRow, 'id' | 'creator' | 'original_environment' | 'created_at' | 'updated_at'> & { creator_id: number },
  now: string,
): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO deployments (repo_id, sha, ref, task, payload, environment, original_environment, description, creator_id, transient_environment, production_environment, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [fields.repo_id, fields.sha, fields.ref, fields.task, fields.payload, fields.environment, fields.environment, fields.description, fields.creator_id, fields.transient_environment, fields.production_environment, now, now],
  );
  return rows[0]!.id;
}

/** A status changes the deployment's environment when it names another, and its time. */
export async function touchDeployment(tx: WriteTx, id: number, environment: string, now: string): Promise<void> {
  await tx.run('UPDATE deployments SET environment = ?, updated_at = ? WHERE id = ?', [environment, now, id]);
}

export async function deleteDeployment(tx: WriteTx, repoId: number, id: number): Promise<void> {
  await tx.run('DELETE FROM deployments WHERE repo_id = ? AND id = ?', [repoId, id]);
}

/** How many deployments the repository has in the environment. */
export async function countDeploymentsIn(db: ReadTx, repoId: number, environment: string): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM deployments WHERE repo_id = ? AND environment = ?', [repoId, environment]))!.n;
}

/**
 * The ids of the repository's other deployments in the environment that a success makes inactive (GitHub's
 * `auto_inactive`): neither transient nor production, their newest status a success.
 */
export async function deploymentsToInactivate(db: ReadTx, repoId: number, environment: string, exceptId: number): Promise<number[]> {
  const rows = await db.all<{ id: number }>(
    `SELECT d.id FROM deployments d WHERE d.repo_id = ? AND d.environment = ? AND d.id < ? AND d.transient_environment = 0 AND d.production_environment = 0
      AND (SELECT s.state FROM deployment_statuses s WHERE s.deployment_id = d.id ORDER BY s.id DESC LIMIT 1) = 'success'`,
    [repoId, environment, exceptId],
  );
  return rows.map((row) => row.id);
}

/** A deployment's statuses, newest first, with how many there are. */
export async function statusesOfDeployment(db: ReadTx, deploymentId: number, page: PageWindow): Promise<{ rows: DeploymentStatusRow[]; total: number }> {
  const rows = await db.all<DeploymentStatusRow>(`${SELECT_STATUS} WHERE s.deployment_id = ? ORDER BY s.id DESC LIMIT ? OFFSET ?`, [deploymentId, page.limit, page.offset]);
  return { rows, total: await countDeploymentStatuses(db, deploymentId) };
}

export async function countDeploymentStatuses(db: ReadTx, deploymentId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM deployment_statuses WHERE deployment_id = ?', [deploymentId]))!.n;
}

export async function deploymentStatusById(db: ReadTx, deploymentId: number, id: number): Promise<DeploymentStatusRow | undefined> {
  return await db.get<DeploymentStatusRow>(`${SELECT_STATUS} WHERE s.deployment_id = ? AND s.id = ?`, [deploymentId, id]);
}

/** The newest status of one deployment, if any. */
export async function latestDeploymentStatus(db: ReadTx, deploymentId: number): Promise<DeploymentStatusRow | undefined> {
  return await db.get<DeploymentStatusRow>(`${SELECT_STATUS} WHERE s.deployment_id = ? ORDER BY s.id DESC LIMIT 1`, [deploymentId]);
}

export async function insertDeploymentStatus(
  tx: WriteTx,
  fields: Omit<DeploymentStatusRow, 'id' | 'creator' | 'created_at' | 'updated_at'> & { creator_id: number },
  now: string,
): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO deployment_statuses (deployment_id, state, creator_id, description, environment, target_url, log_url, environment_url, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [fields.deployment_id, fields.state, fields.creator_id, fields.description, fields.environment, fields.target_url, fields.log_url, fields.environment_url, now, now],
  );
  return rows[0]!.id;
}
