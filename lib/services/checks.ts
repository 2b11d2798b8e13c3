import { invalid, notFound } from '../errors.js';
import type { GitRepositories } from '../git/repositories.js';
import type { Db, ReadTx, WriteTx } from '../store/interface.js';
import type { EventRecorder } from '../events/recorder.js';
import type { CheckRunEvent } from '../events/types.js';
import type { AppShapes } from '../github/app-shapes.js';
import type { CheckShapes, GitHubCheckRun } from '../github/check-shapes.js';
import {
  annotationsOf,
  checkRunById,
  checkRuns,
  insertAnnotations,
  insertCheckRun,
  latestRunsOfCommit,
  latestRunsOfSuites,
  openPullsAt,
  suiteById,
  suiteOf,
  suiteOfCommit,
  updateCheckRun,
  type CheckAnnotationRow,
  type CheckPullRow,
  type CheckRunFields,
  type CheckRunFilter,
  type CheckRunRow,
  type CheckSuiteRow,
} from '../store/queries/checks.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { branchesAt, type RepositoryRow } from '../store/queries/repositories.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { nullableText } from './text-fields.js';

export const CHECK_STATUSES = ['queued', 'in_progress', 'completed', 'waiting', 'requested', 'pending'] as const;
export const CHECK_CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'stale', 'timed_out'] as const;
/** Conclusions a required check may end with and let a merge through (as on GitHub). */
const PASSING = new Set(['success', 'neutral', 'skipped']);
/** A suite concludes with the worst conclusion of its runs, in this order. */
const WORST_FIRST = ['action_required', 'cancelled', 'timed_out', 'failure', 'stale', 'neutral', 'skipped', 'success'];
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

/** A suite with the state its runs give it. */
export interface CheckSuite extends CheckSuiteRow {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  runs: number;
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
    const n = value[name];
    if (!Number.isSafeInteger(n) || (n as number) < 1) throw invalid(`${field}.${name} must be a line number`);
    return n as number;
  };
  const column = (name: string) => (value[name] === undefined || value[name] === null ? null : line(name));
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

/**
 * Check runs (GitHub's Checks API), grouped in one check suite per commit: what CI reports with more than a status
 * (a summary, a text, annotations on lines). Creating and updating them needs write access: an app's installation
 * token (as on GitHub), or a personal token (which GitHub refuses). The newest run of a name counts: for required
 * checks of branch protection, as statuses do, and for a suite's state. Runs made and finished are `check_run` events.
 */
export class CheckService {
  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'commitExists' | 'resolveCommit'>,
    private readonly now: () => string,
    private readonly events: EventRecorder,
    private readonly shapes: CheckShapes,
    private readonly apps: AppShapes,
  ) {}

  /** GitHub's check run object, with the app that made it (if an app's bot did) and the open pull requests at its commit. */
  async shapeRuns(db: ReadTx, repo: RepositoryRow, runs: readonly CheckRunRow[]): Promise<GitHubCheckRun[]> {
    const pulls = await openPullsAt(db, repo.id, runs.map((run) => run.head_sha));
    const apps = await this.apps.appsOfCreators(db, runs.map((run) => run.creator_id));
    return runs.map((run) => this.shapes.run(repo, run, pulls, apps.get(run.creator_id) ?? null));
  }

  /** `check_run` events of a run made (`created`) or now finished (`completed`), in the write that did it. */
  private async recordRun(tx: WriteTx, repo: RepositoryRow, sender: Viewer, run: CheckRunRow, actions: ReadonlyArray<CheckRunEvent['action']>): Promise<void> {
    for (const action of actions) {
      await this.events.record(tx, repo, sender, 'check_run', async (current) => {
        const shaped = (await this.shapeRuns(tx, current, [run]))[0]!;
        // Webhooks carry the run's suite whole (the API names only its id), as it stands after this write.
        const suite = (await this.withStates([(await suiteById(tx, repo.id, run.suite_id))!], tx))[0]!;
        const pulls = await openPullsAt(tx, repo.id, [run.head_sha]);
        return { action, check_run: { ...shaped, check_suite: this.shapes.simpleSuite(current, suite, pulls, shaped.app) } };
      });
    }
  }

  async create(repo: RepositoryRow, viewer: Viewer, input: CheckRunInput): Promise<CheckRunRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Creating check runs needs write access');
    const name = nullableText('name', input.name, 255);
    if (!name?.trim()) throw invalid('name is required');
    const sha = input.head_sha;
    if (typeof sha !== 'string' || !sha) throw invalid('head_sha is required');
    if (!FULL_SHA.test(sha) || !(await this.git.commitExists(repo.owner_name, repo.name, sha))) throw invalid('head_sha must be a commit of the repository');
    const now = this.now();
    const fields = this.fields(undefined, input, now);
    const annotations = this.newAnnotations(input.output);
    return await writeToRepository(this.store, repo, async (tx) => {
      const suiteId = await suiteOf(tx, repo.id, sha, (await branchesAt(tx, repo.id, sha))[0] ?? null, now);
      const id = await insertCheckRun(tx, repo.id, suiteId, sha, viewer!.id, { ...fields, name }, now);
      await insertAnnotations(tx, id, annotations);
      const run = (await checkRunById(tx, repo.id, id))!;
      await this.recordRun(tx, repo, viewer, run, run.status === 'completed' ? ['created', 'completed'] : ['created']);
      return run;
    });
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: CheckRunInput): Promise<CheckRunRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Updating check runs needs write access');
    const current = await this.get(repo, id);
    const now = this.now();
    const fields = this.fields(current, input, now);
    const annotations = this.newAnnotations(input.output);
    return await writeToRepository(this.store, repo, async (tx) => {
      const before = await checkRunById(tx, repo.id, current.id);
      if (!before) throw notFound('Not Found');
      await updateCheckRun(tx, current.id, fields, now);
      await insertAnnotations(tx, current.id, annotations);
      const run = (await checkRunById(tx, repo.id, current.id))!;
      if (before.status !== 'completed' && run.status === 'completed') await this.recordRun(tx, repo, viewer, run, ['completed']);
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
    return (await this.withStates([suite]))[0]!;
  }

  /** The suites of the commit `ref` names (one at most: repohost has no Apps to tell suites apart). */
  async suitesForRef(repo: RepositoryRow, ref: string): Promise<CheckSuite[]> {
    const suite = await suiteOfCommit(this.store, repo.id, await this.resolve(repo, ref));
    return suite ? await this.withStates([suite]) : [];
  }

  /** Open pull requests whose head is one of these commits (the `pull_requests` of runs and suites). */
  async pullsAt(repo: RepositoryRow, shas: readonly string[]): Promise<CheckPullRow[]> {
    return await openPullsAt(this.store, repo.id, shas);
  }

  /** The newest run of each name on a commit that has not passed, or has not completed (required checks). */
  async latestOf(repo: RepositoryRow, sha: string): Promise<Map<string, { passed: boolean; state: string }>> {
    return new Map((await latestRunsOfCommit(this.store, repo.id, sha)).map((run) => [run.name, { passed: run.status === 'completed' && PASSING.has(run.conclusion ?? ''), state: run.conclusion ?? run.status }]));
  }

  private async withStates(suites: CheckSuiteRow[], db: ReadTx = this.store): Promise<CheckSuite[]> {
    const runs = await latestRunsOfSuites(db, suites.map((suite) => suite.id));
    return suites.map((suite) => {
      const latest = runs.get(suite.id) ?? [];
      const completed = latest.length > 0 && latest.every((run) => run.status === 'completed');
      const status = completed ? 'completed' : latest.some((run) => run.status === 'in_progress') ? 'in_progress' : 'queued';
      const conclusion = completed ? (WORST_FIRST.find((candidate) => latest.some((run) => run.conclusion === candidate)) ?? null) : null;
      return { ...suite, status, conclusion, runs: latest.length };
    });
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
    const conclusion = (input.conclusion as string | undefined) ?? current?.conclusion ?? null;
    const status = input.status === undefined ? (input.conclusion ? 'completed' : (current?.status ?? 'queued')) : oneOf('status', input.status, CHECK_STATUSES);
    if (status === 'completed' && !conclusion) throw invalid('conclusion must be given when status is completed');
    if (status !== 'completed' && input.conclusion) throw invalid('status must be completed when a conclusion is given');
    const output = input.output === undefined || input.output === null ? undefined : input.output;
    if (output !== undefined && !isObject(output)) throw invalid('output must be an object');
    if (output && Array.isArray(output.images) && output.images.length > 0) throw invalid('output.images are not supported by repohost');
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
