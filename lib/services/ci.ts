import { invalid, notFound } from '../errors.js';
import type { Db } from '../store/interface.js';
import { ciRunHistories, ciRunsOfRepository, countCiRuns, recordCiReport, type CiRunRow } from '../store/queries/ci-runs.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { writeToRepository } from './repository-write.js';
import { repositoryById, type RepositoryRow } from '../store/queries/repositories.js';
import type { StatusState } from '../store/queries/commit-statuses.js';
import type { StatusGit } from './git-backend.js';
import { accessLevel, atLeast, requireAccess, type Viewer } from './permissions.js';
import type { CommitStatusService } from './statuses.js';
import { ownValue } from '../own-value.js';

const FIELDS = ['run_id', 'repo_id', 'commit_hash', 'branch', 'status'] as const;
const LIMITS: Record<(typeof FIELDS)[number], number> = { run_id: 128, repo_id: 20, commit_hash: 64, branch: 255, status: 32 };
// The spec names `running` and leaves the rest open: accept any word (queued, success, failure, cancelled...),
// as runners differ. Commit ids are usually SHA-1/SHA-256 hex, but harnesses send placeholders: any token.
const STATUS_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;
const COMMIT_PATTERN = /^[\x21-\x7e]+$/;

/** Reports of one run listed with it: the newest ones (a run may report thousands of times). */
const MAX_HISTORY = 100;
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const STATUS_STATES: Readonly<Record<string, StatusState>> = { pending: 'pending', running: 'pending', success: 'success', error: 'error', failure: 'failure' };

/**
 * The commit status a CI report becomes: context `ci/<run_id>`; `running` is `pending`, the four status states
 * are themselves, and any other word is an `error` whose description keeps the word.
 */
function statusOfReport(runId: string, word: string): { state: StatusState; context: string; description: string } {
  const state = ownValue(STATUS_STATES, word.toLowerCase());
  const context = `ci/${runId}`.slice(0, 255);
  return state ? { state, context, description: `CI run ${runId}: ${word}` } : { state: 'error', context, description: `CI run ${runId} reported '${word}'` };
}

/** Status reports from an external CI runner. */
export class CiService {
  constructor(
    private readonly store: Db,
    private readonly git: StatusGit,
    private readonly statuses: CommitStatusService,
    private readonly now: () => string,
  ) {}

  /**
   * Validates and records a report. Reports for a private repository need write access; callers who cannot see
   * it are answered like for an unknown repository. The run is recorded for anyone the spec lets report (no
   * credentials on a public repository); it becomes a commit status only for a caller with write access, since a
   * status can satisfy a protected branch's required checks (issue 17 point 2).
   */
  async report(viewer: Viewer, body: unknown): Promise<CiRunRow> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw invalid('Invalid request body');
    const record = body as Record<string, unknown>;
    const values = {} as Record<(typeof FIELDS)[number], string>;
    for (const field of FIELDS) {
      const value = record[field];
      if (typeof value !== 'string' || value.trim() === '') throw invalid(`${field} is required and must be a non-empty string`);
      if (value.length > LIMITS[field]) throw invalid(`${field} must be at most ${LIMITS[field]} characters`);
      values[field] = value.trim();
    }
    if (!/^\d+$/.test(values.repo_id)) throw invalid('repo_id must be a repository id in decimal');
    if (!COMMIT_PATTERN.test(values.commit_hash)) throw invalid('commit_hash must be a commit id without spaces');
    if (!STATUS_PATTERN.test(values.status)) throw invalid('status must be a single word such as running, success or failure');
    // An id past what any database holds names no repository (PostgreSQL would refuse it as out of range).
    const id = Number(values.repo_id);
    const repo = Number.isSafeInteger(id) ? await repositoryById(this.store, id) : undefined;
    const level = repo ? await accessLevel(this.store, viewer, repo) : 'none';
    if (!repo || level === 'none') throw notFound('Repository not found');
    // Anyone may report on a public repository (the spec's callback needs no credentials); a private one needs write.
    if (repo.is_private === 1) await requireAccess(this.store, viewer, repo, 'write', 'Reporting CI status needs write access');
    const report = { repoId: repo.id, runId: values.run_id, commitHash: values.commit_hash, branch: values.branch, status: values.status };
    // A report on a real commit of the repository also shows as its commit status (placeholder ids do not), but
    // only from a caller who may post statuses: an anonymous or read-only report must not turn a required check green.
    const sha = values.commit_hash.toLowerCase();
    const onCommit = atLeast(level, 'write') && FULL_SHA.test(sha) && (await this.git.commitExists(repo.owner_name, repo.name, sha));
    const now = this.now();
    const commit = onCommit ? await this.statuses.commitForEvent(repo, sha) : undefined;
    return await writeToRepository(this.store, repo, async (tx) => {
      const run = await recordCiReport(tx, report, now);
      if (onCommit) await this.statuses.record(tx, { repoId: repo.id, sha, ...statusOfReport(values.run_id, values.status), targetUrl: null, creatorId: viewer?.id ?? null, now }, commit);
      return run;
    });
  }

  /** A page of the repository's runs, each with its latest status and its newest reports (oldest first). */
  async runs(repo: RepositoryRow, page: PageWindow): Promise<{ items: Array<CiRunRow & { history: Array<{ status: string; received_at: string }> }>; total: number }> {
    return await this.store.read(async (tx) => {
      // The page's runs, then all their histories in one query, whatever the page's length.
      const runs = await ciRunsOfRepository(tx, repo.id, page);
      const histories = await ciRunHistories(tx, runs.map((run) => run.id), MAX_HISTORY);
      return { items: runs.map((run) => ({ ...run, history: histories.get(run.id) ?? [] })), total: await countCiRuns(tx, repo.id) };
    });
  }
}
