import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

export interface CiRunRow {
  id: number;
  repo_id: number;
  run_id: string;
  commit_hash: string;
  branch: string;
  status: string;
  created_at: string;
  updated_at: string;
}

export interface CiReport {
  repoId: number;
  runId: string;
  commitHash: string;
  branch: string;
  status: string;
}

/** Keeps the latest status per (repository, run) and appends the report to the run's history. */
export async function recordCiReport(tx: WriteTx, report: CiReport, now: string): Promise<CiRunRow> {
  const run = (await tx.run<CiRunRow>(
    `INSERT INTO ci_runs (repo_id, run_id, commit_hash, branch, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (repo_id, run_id) DO UPDATE SET commit_hash = excluded.commit_hash, branch = excluded.branch,
       status = excluded.status, updated_at = excluded.updated_at
     RETURNING id, repo_id, run_id, commit_hash, branch, status, created_at, updated_at`,
    [report.repoId, report.runId, report.commitHash, report.branch, report.status, now, now],
  )).rows[0]!;
  await tx.run('INSERT INTO ci_run_events (ci_run_id, status, commit_hash, branch, received_at) VALUES (?, ?, ?, ?, ?)', [
    run.id,
    report.status,
    report.commitHash,
    report.branch,
    now,
  ]);
  return run;
}

export async function ciRunsOfRepository(db: ReadTx, repoId: number, page: PageWindow): Promise<CiRunRow[]> {
  return await db.all<CiRunRow>(
    'SELECT id, repo_id, run_id, commit_hash, branch, status, created_at, updated_at FROM ci_runs WHERE repo_id = ? ORDER BY id LIMIT ? OFFSET ?',
    [repoId, page.limit, page.offset],
  );
}

export async function countCiRuns(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ci_runs WHERE repo_id = ?', [repoId]))!.n;
}

/** The newest `limit` reports of each run, oldest first, in one query for a whole page of runs. */
export async function ciRunHistories(db: ReadTx, ciRunIds: readonly number[], limit: number): Promise<Map<number, Array<{ status: string; received_at: string }>>> {
  const histories = new Map<number, Array<{ status: string; received_at: string }>>(ciRunIds.map((id) => [id, []]));
  if (ciRunIds.length === 0) return histories;
  const runs = inList(ciRunIds);
  const rows = await db.all<{ ci_run_id: number; status: string; received_at: string }>(
    `SELECT ci_run_id, status, received_at FROM (
       SELECT ci_run_id, id, status, received_at, ROW_NUMBER() OVER (PARTITION BY ci_run_id ORDER BY id DESC) AS newness
       FROM ci_run_events WHERE ci_run_id ${runs.sql}
     ) AS ranked WHERE newness <= ? ORDER BY ci_run_id, id`,
    [...runs.params, limit],
  );
  for (const row of rows) histories.get(row.ci_run_id)?.push({ status: row.status, received_at: row.received_at });
  return histories;
}
