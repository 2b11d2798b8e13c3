import { forbidden, invalid, notFound } from '../errors.js';
import type { EventRecorder } from '../events/recorder.js';
import type { GitRepositories } from '../git/repositories.js';
import type { GitHubCheckRun, GitHubHeadCommit } from '../github/check-shapes.js';
import type { Db, ReadTx, WriteTx } from '../store/interface.js';
import {
  annotationsOf,
  checkRunById,
  checkRuns,
  insertAnnotations,
  insertCheckRun,
  latestRunsOfCommit,
  openPullsAt,
  requeueSuite,
  suiteById,
  suiteOf,
  suiteRunChanged,
  suitesOfCommit,
  updateCheckRun,
  type CheckAnnotationRow,
  type CheckPullRow,
  type CheckRunFields,
  type CheckRunFilter,
  type CheckRunRow,
  type CheckSuite,
} from '../store/queries/checks.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { branchesAt, type RepositoryRow } from '../store/queries/repositories.js';
import { headCommitOf, withStates, type CheckEvents } from './check-events.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { nullableText } from './text-fields.js';
import { ownValue } from '../own-value.js';

export type { CheckSuite };

export const CHECK_STATUSES = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'] as const;
export const CHECK_CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'] as const;
/** Statuses only GitHub Actions may give a run (GitHub's documented rule). */
const ACTIONS_ONLY_STATUSES: ReadonlySet<string> = new Set(['waiting', 'requested', 'pending']);
/** Conclusions a required check may end with and let a merge through (as on GitHub). */
const PASSING = new Set(['success', 'neutral', 'skipped']);
/** GitHub's limit of annotations per request. */
const MAX_ANNOTATIONS = 50;
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export interface CheckRunInput {
  name?: unknown;
  head_sha?: unknown;
  status?: unknown;
  conclusion?: unknown;
  external_id?: unknown;
  details_url?: unknown;
  started_at?: unknown;
  completed_at?: unknown;
  output?: unknown;
}


type Record_ = Record<string, unknown>;
const isObject = (value: unknown): value is Record_ => typeof value === 'object' && value !== null && !Array.isArray(value);

function time(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !Number.isFinite(Date.parse(value))) throw invalid(`${field} must be an ISO 8601 timestamp`);
  return new Date(Date.parse(value)).toISOString();
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !allowed.includes(value as T)) throw invalid(`${field} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function annotation(value: unknown, index: number): Omit<CheckAnnotationRow, 'id'> {
  const field = `output.annotations[${index}]`;
  if (!isObject(value)) throw invalid(`${field} must be an object`);
  const line = (name: string) => {
    const n = ownValue(value, name);
    if (!Number.isSafeInteger(n) || (n as number) < 1) throw invalid(`${field}.${name} must be a line number`);
    return n as number;
  };
  const column = (name: string) => (ownValue(value, name) === undefined || ownValue(value, name) === null ? null : line(name));
  const path = nullableText(`${field}.path`, value.path, 1024);
  const message = nullableText(`${field}.message`, value.message, 64 * 1024);
  if (!path) throw invalid(`${field}.path is required`);
  if (!message) throw invalid(`${field}.message is required`);
  return {
    path,
    start_line: line('start_line'),
    end_line: line('end_line'),
    start_column: column('start_column'),
    end_column: column('end_column'),
    annotation_level: oneOf(`${field}.annotation_level`, value.annotation_level, ['notice', 'warning', 'failure']),
    message,
    title: nullableText(`${field}.title`, value.title, 255),
    raw_details: nullableText(`${field}.raw_details`, value.raw_details, 64 * 1024),
  };
}

/** Check runs are written by GitHub Apps only: a personal token is refused in GitHub's words. */
function requireApp(viewer: Viewer): void {
  if (!viewer?.installation) throw forbidden('You must authenticate via a GitHub App.');
}

/**
 * Check runs (GitHub's Checks API), grouped in one check suite per commit: what CI reports with more than a status
 * (a summary, a text, annotations on lines). Creating and updating them needs an app's installation token with write
 * access, as on GitHub (runs made with personal tokens before repohost refused them, app 0, are still shown). The
 * newest run of a name counts: for required checks of branch protection, as statuses do, and for a suite's state.
 * Runs made and finished are `check_run` events.
 */
export class CheckService {
  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'commitExists' | 'resolveCommit' | 'readCommit'>,
    private readonly now: () => string,
    private readonly events: EventRecorder,
    private readonly checkEvents: CheckEvents,
  ) {}

  /** GitHub's check run objects (see CheckEvents.shapeRuns). */
  async shapeRuns(db: ReadTx, repo: RepositoryRow, runs: readonly CheckRunRow[]): Promise<GitHubCheckRun[]> {
    return await this.checkEvents.shapeRuns(db, repo, runs);
  }

  /** The head commits of suites, as GitHub's check suites name them: read from git once per commit. */
  async headCommits(repo: RepositoryRow, shas: readonly string[]): Promise<Map<string, GitHubHeadCommit>> {
    const heads = new Map<string, GitHubHeadCommit>();
    for (const sha of new Set(shas)) {
      const commit = await this.git.readCommit(repo.owner_name, repo.name, sha);
      if (commit) heads.set(sha, headCommitOf(commit));
    }
    return heads;
  }

  /**
   * The head of an app's suite for its `check_suite` events, read from git (before the write) only if someone hears
   * them; suites of runs made with personal tokens (app 0) have no events.
   */
  private async headCommitIfHeard(repo: RepositoryRow, sha: string, appId: number): Promise<GitHubHeadCommit | undefined> {
    if (appId === 0 || !(await this.events.anyoneHears(this.store, repo.id, ['check_suite']))) return undefined;
    const commit = await this.git.readCommit(repo.owner_name, repo.name, sha);
    return commit && headCommitOf(commit);
  }

  /** What a run finished tells: `check_run` completed, then `check_suite` completed if its suite now is. */
  private async finished(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, run: CheckRunRow, headCommit: GitHubHeadCommit | undefined): Promise<void> {
    if (headCommit) await this.checkEvents.suite(tx, repo, viewer, run.suite_id, 'completed', headCommit);
  }

  async create(repo: RepositoryRow, viewer: Viewer, input: CheckRunInput): Promise<CheckRunRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Creating check runs needs write access');
    requireApp(viewer);
    const name = nullableText('name', input.name, 255);
    if (!name?.trim()) throw invalid('name is required');
    const sha = input.head_sha;
    if (typeof sha !== 'string' || !sha) throw invalid('head_sha is required');
    if (!FULL_SHA.test(sha) || !(await this.git.commitExists(repo.owner_name, repo.name, sha))) throw invalid('head_sha must be a commit of the repository');
    const now = this.now();
    const fields = this.fields(undefined, input, now);
    const annotations = this.newAnnotations(input.output);
    // An app's runs go in its own suite of the commit, as on GitHub; runs made with personal tokens share one.
    const appId = viewer?.installation?.appId ?? 0;
    const headCommit = fields.status === 'completed' ? await this.headCommitIfHeard(repo, sha, appId) : undefined;
    return await writeToRepository(this.store, repo, async (tx) => {
      const suite = await suiteOf(tx, repo.id, sha, (await branchesAt(tx, repo.id, sha))[0] ?? null, appId, now);
      const id = await insertCheckRun(tx, repo.id, suite.id, sha, viewer!.id, { ...fields, name }, now);
      await insertAnnotations(tx, id, annotations);
      const run = (await checkRunById(tx, repo.id, id))!;
      await this.checkEvents.run(tx, repo, viewer, run, run.status === 'completed' ? ['created', 'completed'] : ['created']);
      if (run.status === 'completed') await this.finished(tx, repo, viewer, run, headCommit);
      return run;
    });
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: CheckRunInput): Promise<CheckRunRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Updating check runs needs write access');
    requireApp(viewer);
    const current = await this.get(repo, id);
    const now = this.now();
    const fields = this.fields(current, input, now);
    const annotations = this.newAnnotations(input.output);
    const suiteApp = (await suiteById(this.store, repo.id, current.suite_id))?.app_id ?? 0;
    const headCommit = fields.status === 'completed' && current.status !== 'completed' ? await this.headCommitIfHeard(repo, current.head_sha, suiteApp) : undefined;
    return await writeToRepository(this.store, repo, async (tx) => {
      const before = await checkRunById(tx, repo.id, current.id);
      if (!before) throw notFound('Not Found');
      await updateCheckRun(tx, current.id, fields, now);
      await suiteRunChanged(tx, current.suite_id, now);
      await insertAnnotations(tx, current.id, annotations);
      const run = (await checkRunById(tx, repo.id, current.id))!;
      if (before.status !== 'completed' && run.status === 'completed') {
        await this.checkEvents.run(tx, repo, viewer, run, ['completed']);
        await this.finished(tx, repo, viewer, run, headCommit);
      }
      return run;
    });
  }

  async get(repo: RepositoryRow, id: number): Promise<CheckRunRow> {
    const run = Number.isSafeInteger(id) ? await checkRunById(this.store, repo.id, id) : undefined;
    if (!run) throw notFound('Not Found');
    return run;
  }

  async forRef(repo: RepositoryRow, ref: string, filter: CheckRunFilter, page: PageWindow): Promise<{ items: CheckRunRow[]; total: number }> {
    const sha = await this.resolve(repo, ref);
    return await this.store.read(async (tx) => await checkRuns(tx, repo.id, { sha }, filter, page));
  }

  /** The newest run of each name on a commit (by full id), at most `limit` (the pull request page). */
  async latestRunsAt(repo: RepositoryRow, sha: string, limit: number): Promise<CheckRunRow[]> {
    return (await this.store.read(async (tx) => await checkRuns(tx, repo.id, { sha }, { latest: true }, { limit, offset: 0 }))).items;
  }

  async forSuite(repo: RepositoryRow, suiteId: number, filter: CheckRunFilter, page: PageWindow): Promise<{ items: CheckRunRow[]; total: number }> {
    const suite = await this.suite(repo, suiteId);
    return await this.store.read(async (tx) => await checkRuns(tx, repo.id, { suiteId: suite.id }, filter, page));
  }

  async annotations(repo: RepositoryRow, runId: number, page: PageWindow): Promise<CheckAnnotationRow[]> {
    return await annotationsOf(this.store, (await this.get(repo, runId)).id, page);
  }

  async suite(repo: RepositoryRow, id: number): Promise<CheckSuite> {
    const suite = Number.isSafeInteger(id) ? await suiteById(this.store, repo.id, id) : undefined;
    if (!suite) throw notFound('Not Found');
    return (await withStates(this.store, [suite]))[0]!;
  }

  /** The suites of the commit `ref` names, one per app (of one app with `appId`). */
  async suitesForRef(repo: RepositoryRow, ref: string, appId?: number): Promise<CheckSuite[]> {
    const sha = await this.resolve(repo, ref);
    return await this.store.read(async (tx) => await withStates(tx, await suitesOfCommit(tx, repo.id, sha, appId)));
  }

  /**
   * `POST /check-suites`: the app's suite of a commit, made if it has none (true then). Only an app makes one (GitHub's
   * rule); suites otherwise come with their first run.
   */
  async createSuite(repo: RepositoryRow, viewer: Viewer, headSha: unknown): Promise<{ suite: CheckSuite; created: boolean }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Creating check suites needs write access');
    const appId = viewer?.installation?.appId;
    if (!appId) throw forbidden('Only a GitHub App can create a check suite');
    if (typeof headSha !== 'string' || !headSha) throw invalid('head_sha is required');
    if (!FULL_SHA.test(headSha) || !(await this.git.commitExists(repo.owner_name, repo.name, headSha))) throw invalid('head_sha must be a commit of the repository');
    const now = this.now();
    const made = await writeToRepository(this.store, repo, async (tx) => await suiteOf(tx, repo.id, headSha, (await branchesAt(tx, repo.id, headSha))[0] ?? null, appId, now));
    return { suite: await this.suite(repo, made.id), created: made.created };
  }

  /** Asks the suite's app to run its checks again (`check_suite` rerequested); writers may, as they may re-run on GitHub. */
  async rerequestSuite(repo: RepositoryRow, viewer: Viewer, suiteId: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Re-running checks needs write access');
    const suite = await this.suite(repo, suiteId);
    const commit = await this.git.readCommit(repo.owner_name, repo.name, suite.head_sha);
    if (!commit) throw notFound('Not Found');
    await writeToRepository(this.store, repo, async (tx) => {
      // As on GitHub: the suite is queued again and its conclusion cleared (its payload says so too).
      await requeueSuite(tx, suite.id, this.now());
      await this.checkEvents.suite(tx, repo, viewer, suite.id, 'rerequested', headCommitOf(commit));
    });
  }

  /** Asks the run's app to run it again (`check_run` rerequested); its suite is queued again, the run itself unchanged (GitHub's). */
  async rerequestRun(repo: RepositoryRow, viewer: Viewer, runId: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Re-running checks needs write access');
    const run = await this.get(repo, runId);
    await writeToRepository(this.store, repo, async (tx) => {
      await requeueSuite(tx, run.suite_id, this.now());
      await this.checkEvents.run(tx, repo, viewer, run, ['rerequested']);
    });
  }

  /** Open pull requests whose head is one of these commits (the `pull_requests` of runs and suites). */
  async pullsAt(repo: RepositoryRow, shas: readonly string[]): Promise<CheckPullRow[]> {
    return await openPullsAt(this.store, repo.id, shas);
  }

  /** The newest run of each name on a commit that has not passed, or has not completed (required checks). */
  async latestOf(repo: RepositoryRow, sha: string): Promise<Map<string, { passed: boolean; state: string }>> {
    return new Map((await latestRunsOfCommit(this.store, repo.id, sha)).map((run) => [run.name, { passed: run.status === 'completed' && PASSING.has(run.conclusion ?? ''), state: run.conclusion ?? run.status }]));
  }

  private async resolve(repo: RepositoryRow, ref: string): Promise<string> {
    const sha = await this.git.resolveCommit(repo.owner_name, repo.name, ref);
    if (!sha) throw notFound('No commit found for SHA: ' + ref);
    return sha;
  }

  /**
   * The fields a create (no `current`) or an update leaves. As on GitHub: a conclusion completes the run, a completed run
   * needs a conclusion, `started_at` defaults to now and `completed_at` to when it completed.
   */
  private fields(current: CheckRunRow | undefined, input: CheckRunInput, now: string): CheckRunFields {
    if (input.conclusion !== undefined && input.conclusion !== null) oneOf('conclusion', input.conclusion, CHECK_CONCLUSIONS);
    // GitHub's rules: only GitHub marks a run stale, and only its Actions set the waiting states.
    if (input.conclusion === 'stale') throw invalid("conclusion must not be 'stale': only GitHub sets it");
    if (input.status !== undefined && ACTIONS_ONLY_STATUSES.has(input.status as string)) throw invalid(`status must not be '${String(input.status)}': only GitHub Actions sets it`);
    const conclusion = (input.conclusion as string | undefined) ?? current?.conclusion ?? null;
    const asked = input.status === undefined ? undefined : oneOf('status', input.status, CHECK_STATUSES);
    // "Providing a conclusion will automatically set the status parameter to completed."
    const status = input.conclusion ? 'completed' : (asked ?? current?.status ?? 'queued');
    if (status === 'completed' && !conclusion) throw invalid('conclusion must be given when status is completed');
    if (input.completed_at !== undefined && input.completed_at !== null && !conclusion) throw invalid('conclusion must be given with completed_at');
    const output = input.output === undefined || input.output === null ? undefined : input.output;
    if (output !== undefined && !isObject(output)) throw invalid('output must be an object');
    if (output && Array.isArray(output.images) && output.images.length > 0) throw invalid('output.images are not supported by repohost');
    if (output && output.title === undefined && !current?.output_title) throw invalid('output.title is required');
    if (output && output.summary === undefined && !current?.output_summary) throw invalid('output.summary is required');
    return {
      name: input.name === undefined && current ? current.name : (nullableText('name', input.name, 255)?.trim() || (current?.name ?? '')),
      status,
      conclusion: status === 'completed' ? conclusion : null,
      external_id: input.external_id === undefined ? (current?.external_id ?? null) : nullableText('external_id', input.external_id, 255),
      details_url: input.details_url === undefined ? (current?.details_url ?? null) : this.url('details_url', input.details_url),
      started_at: time('started_at', input.started_at) ?? current?.started_at ?? now,
      completed_at: status === 'completed' ? (time('completed_at', input.completed_at) ?? current?.completed_at ?? now) : null,
      output_title: output && output.title !== undefined ? nullableText('output.title', output.title, 255) : (current?.output_title ?? null),
      output_summary: output && output.summary !== undefined ? nullableText('output.summary', output.summary, 65_535) : (current?.output_summary ?? null),
      output_text: output && output.text !== undefined ? nullableText('output.text', output.text, 65_535) : (current?.output_text ?? null),
    };
  }

  /** Annotations an `output` adds (they accumulate over updates, as on GitHub). */
  private newAnnotations(output: unknown): Array<Omit<CheckAnnotationRow, 'id'>> {
    if (!isObject(output) || output.annotations === undefined) return [];
    if (!Array.isArray(output.annotations)) throw invalid('output.annotations must be a list');
    if (output.annotations.length > MAX_ANNOTATIONS) throw invalid(`output.annotations may hold at most ${MAX_ANNOTATIONS} annotations a request`);
    return output.annotations.map(annotation);
  }

  private url(field: string, value: unknown): string | null {
    const given = nullableText(field, value, 2048);
    if (!given) return null;
    try {
      const url = new URL(given);
      if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
    } catch {
      /* refused below */
    }
    throw invalid(`${field} must be an http or https URL`);
  }
}
