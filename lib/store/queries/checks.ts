import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

/** What a check run says of itself (set on create, changed by updates). */
export interface CheckRunFields {
  name: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  details_url: string | null;
  started_at: string | null;
  completed_at: string | null;
  output_title: string | null;
  output_summary: string | null;
  output_text: string | null;
}

/** A check run as stored, with its creator's name. */
export interface CheckRunRow extends CheckRunFields {
  id: number;
  repo_id: number;
  suite_id: number;
  head_sha: string;
  annotations_count: number;
  creator: string;
  creator_id: number;
  created_at: string;
  updated_at: string;
}

export interface CheckSuiteRow {
  id: number;
  head_sha: string;
  head_branch: string | null;
  /** The app whose runs it holds; 0 for runs made with personal tokens. */
  app_id: number;
  /** 1 once the suite (or one of its runs) was asked for again, until one of its runs is created or updated. */
  requeued: number;
  created_at: string;
  updated_at: string;
}

/** A suite with the state its newest runs give it (services/check-events.ts: withStates). */
export interface CheckSuite extends CheckSuiteRow {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  runs: number;
}

export interface CheckAnnotationRow {
  id: number;
  path: string;
  start_line: number;
  end_line: number;
  start_column: number | null;
  end_column: number | null;
  annotation_level: string;
  message: string;
  title: string | null;
  raw_details: string | null;
}

/** The open pull requests whose head is a commit (GitHub's `pull_requests` of a check run or suite). */
export interface CheckPullRow {
  id: number;
  number: number;
  head: string;
  base: string;
  head_sha: string;
  base_sha: string;
}

const RUN = `SELECT c.id, c.repo_id, c.suite_id, c.head_sha, c.name, c.status, c.conclusion, c.external_id, c.details_url, c.started_at,
  c.completed_at, c.output_title, c.output_summary, c.output_text, c.annotations_count, u.username AS creator, c.creator_id, c.created_at, c.updated_at
  FROM check_runs c JOIN users u ON u.id = c.creator_id`;

const SUITE = 'SELECT id, head_sha, head_branch, app_id, requeued, created_at, updated_at FROM check_suites';

/** The suite of an app's check runs on a commit (app 0: runs made with personal tokens), made with the first of them. */
export async function suiteOf(tx: WriteTx, repoId: number, headSha: string, headBranch: string | null, appId: number, now: string): Promise<{ id: number; created: boolean }> {
  const found = await tx.get<{ id: number }>('SELECT id FROM check_suites WHERE repo_id = ? AND head_sha = ? AND app_id = ?', [repoId, headSha, appId]);
  if (found) {
    await tx.run('UPDATE check_suites SET updated_at = ?, requeued = 0 WHERE id = ?', [now, found.id]);
    return { id: found.id, created: false };
  }
  const { rows } = await tx.run<{ id: number }>('INSERT INTO check_suites (repo_id, head_sha, head_branch, app_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id', [
    repoId,
    headSha,
    headBranch,
    appId,
    now,
    now,
  ]);
  return { id: rows[0]!.id, created: true };
}

/** The suite asked for again: queued with no conclusion until one of its runs changes (GitHub's rerequest). */
export async function requeueSuite(tx: WriteTx, suiteId: number, now: string): Promise<void> {
  await tx.run('UPDATE check_suites SET requeued = 1, updated_at = ? WHERE id = ?', [now, suiteId]);
}

/** One of the suite's runs changed: its runs give its state again. */
export async function suiteRunChanged(tx: WriteTx, suiteId: number, now: string): Promise<void> {
  await tx.run('UPDATE check_suites SET requeued = 0, updated_at = ? WHERE id = ?', [now, suiteId]);
}

export async function insertCheckRun(tx: WriteTx, repoId: number, suiteId: number, headSha: string, creatorId: number, fields: CheckRunFields, now: string): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO check_runs (repo_id, suite_id, head_sha, name, status, conclusion, external_id, details_url, started_at, completed_at, output_title,
      output_summary, output_text, creator_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [repoId, suiteId, headSha, fields.name, fields.status, fields.conclusion, fields.external_id, fields.details_url, fields.started_at, fields.completed_at, fields.output_title, fields.output_summary, fields.output_text, creatorId, now, now],
  );
  return rows[0]!.id;
}

export async function updateCheckRun(tx: WriteTx, id: number, fields: CheckRunFields, now: string): Promise<void> {
  await tx.run(
    `UPDATE check_runs SET name = ?, status = ?, conclusion = ?, external_id = ?, details_url = ?, started_at = ?, completed_at = ?, output_title = ?,
      output_summary = ?, output_text = ?, updated_at = ? WHERE id = ?`,
    [fields.name, fields.status, fields.conclusion, fields.external_id, fields.details_url, fields.started_at, fields.completed_at, fields.output_title, fields.output_summary, fields.output_text, now, id],
  );
}

export async function checkRunById(db: ReadTx, repoId: number, id: number): Promise<CheckRunRow | undefined> {
  return await db.get<CheckRunRow>(`${RUN} WHERE c.repo_id = ? AND c.id = ?`, [repoId, id]);
}

export interface CheckRunFilter {
  name?: string;
  status?: string;
  /** Only the newest run of each name (GitHub's `filter=latest`, its default). */
  latest: boolean;
  /** Only runs made by this account (an app's bot: GitHub's `app_id`). */
  creatorId?: number;
}

function runFilter(column: 'head_sha' | 'suite_id', value: string | number, filter: CheckRunFilter): { where: string; params: Array<string | number> } {
  let where = `c.repo_id = ? AND c.${column} = ?`;
  const params: Array<string | number> = [value];
  if (filter.name !== undefined) {
    where += ' AND c.name = ?';
    params.push(filter.name);
  }
  if (filter.status !== undefined) {
    where += ' AND c.status = ?';
    params.push(filter.status);
  }
  if (filter.creatorId !== undefined) {
    where += ' AND c.creator_id = ?';
    params.push(filter.creatorId);
  }
  if (filter.latest) where += ` AND c.id IN (SELECT MAX(n.id) FROM check_runs n WHERE n.repo_id = c.repo_id AND n.${column} = c.${column} GROUP BY n.name)`;
  return { where, params };
}

/** Check runs of a commit or a suite, newest first, with their count. */
export async function checkRuns(db: ReadTx, repoId: number, of: { sha: string } | { suiteId: number }, filter: CheckRunFilter, page: PageWindow): Promise<{ items: CheckRunRow[]; total: number }> {
  const { where, params } = 'sha' in of ? runFilter('head_sha', of.sha, filter) : runFilter('suite_id', of.suiteId, filter);
  const items = await db.all<CheckRunRow>(`${RUN} WHERE ${where} ORDER BY c.id DESC LIMIT ? OFFSET ?`, [repoId, ...params, page.limit, page.offset]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM check_runs c WHERE ${where}`, [repoId, ...params]))!.n;
  return { items, total };
}

/** The newest run of each name on a commit: what required checks and a suite's state are judged by. */
export async function latestRunsOfCommit(db: ReadTx, repoId: number, sha: string): Promise<Array<{ name: string; status: string; conclusion: string | null }>> {
  return await db.all(
    `SELECT c.name, c.status, c.conclusion FROM check_runs c WHERE c.repo_id = ? AND c.head_sha = ?
      AND c.id IN (SELECT MAX(n.id) FROM check_runs n WHERE n.repo_id = c.repo_id AND n.head_sha = c.head_sha GROUP BY n.name) ORDER BY c.name`,
    [repoId, sha],
  );
}

export async function insertAnnotations(tx: WriteTx, runId: number, annotations: ReadonlyArray<Omit<CheckAnnotationRow, 'id'>>): Promise<void> {
  for (const a of annotations) {
    await tx.run(
      `INSERT INTO check_annotations (check_run_id, path, start_line, end_line, start_column, end_column, annotation_level, message, title, raw_details)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [runId, a.path, a.start_line, a.end_line, a.start_column, a.end_column, a.annotation_level, a.message, a.title, a.raw_details],
    );
  }
  if (annotations.length > 0) await tx.run('UPDATE check_runs SET annotations_count = annotations_count + ? WHERE id = ?', [annotations.length, runId]);
}

export async function annotationsOf(db: ReadTx, runId: number, page: PageWindow): Promise<CheckAnnotationRow[]> {
  return await db.all<CheckAnnotationRow>(
    `SELECT id, path, start_line, end_line, start_column, end_column, annotation_level, message, title, raw_details FROM check_annotations
      WHERE check_run_id = ? ORDER BY id LIMIT ? OFFSET ?`,
    [runId, page.limit, page.offset],
  );
}

export async function suiteById(db: ReadTx, repoId: number, id: number): Promise<CheckSuiteRow | undefined> {
  return await db.get<CheckSuiteRow>(`${SUITE} WHERE repo_id = ? AND id = ?`, [repoId, id]);
}

/** A commit's suites, one per app (of one app when `appId` is given). */
export async function suitesOfCommit(db: ReadTx, repoId: number, sha: string, appId?: number): Promise<CheckSuiteRow[]> {
  if (appId !== undefined) return await db.all<CheckSuiteRow>(`${SUITE} WHERE repo_id = ? AND head_sha = ? AND app_id = ? ORDER BY id`, [repoId, sha, appId]);
  return await db.all<CheckSuiteRow>(`${SUITE} WHERE repo_id = ? AND head_sha = ? ORDER BY id`, [repoId, sha]);
}

/** The newest run of each name in each suite, for the suites' states, in one query. */
export async function latestRunsOfSuites(db: ReadTx, suiteIds: readonly number[]): Promise<Map<number, Array<{ status: string; conclusion: string | null }>>> {
  const bySuite = new Map<number, Array<{ status: string; conclusion: string | null }>>();
  if (suiteIds.length === 0) return bySuite;
  const ids = inList(suiteIds);
  const rows = await db.all<{ suite_id: number; status: string; conclusion: string | null }>(
    `SELECT c.suite_id, c.status, c.conclusion FROM check_runs c WHERE c.suite_id ${ids.sql}
      AND c.id IN (SELECT MAX(n.id) FROM check_runs n WHERE n.suite_id = c.suite_id GROUP BY n.name)`,
    ids.params,
  );
  for (const row of rows) bySuite.set(row.suite_id, [...(bySuite.get(row.suite_id) ?? []), row]);
  return bySuite;
}

/** Open pull requests whose head is one of these commits, in one query. */
export async function openPullsAt(db: ReadTx, repoId: number, shas: readonly string[]): Promise<CheckPullRow[]> {
  if (shas.length === 0) return [];
  const list = inList([...new Set(shas)]);
  return await db.all<CheckPullRow>(`SELECT id, number, head_branch AS head, base_branch AS base, head_sha, base_sha FROM pull_requests WHERE repo_id = ? AND status = 'open' AND head_sha ${list.sql} ORDER BY number`, [
    repoId,
    ...list.params,
  ]);
}
