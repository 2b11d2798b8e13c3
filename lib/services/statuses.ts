import { invalid, NoSuchCommit, notFound } from '../errors.js';
import { writeToRepository } from './repository-write.js';
import type { Db, WriteTx } from '../store/interface.js';
import {
  countStatusesOfCommit,
  countStatusesOfContext,
  insertCommitStatus,
  latestStatusPerContext,
  latestStatusesPerContextOf,
  statusesOfCommit,
  type CommitStatusRow,
  type StatusState,
} from '../store/queries/commit-statuses.js';
import { branchesAt, repositoryById, type RepositoryRow } from '../store/queries/repositories.js';
import { userById } from '../store/queries/users.js';
import type { EventRecorder } from '../events/index.js';
import { githubTime } from '../github/time.js';
import type { StatusGit } from './git-backend.js';
import type { BranchProtectionService } from './branch-protection.js';
import type { CommitObject } from '../git/objects.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { requireAccess, type Viewer } from './permissions.js';
import { optionalHttpUrl, optionalText } from './text-fields.js';

const STATES: readonly StatusState[] = ['pending', 'success', 'error', 'failure'];
const MAX_PER_CONTEXT = 1000;
const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export interface StatusInput {
  state?: unknown;
  context?: unknown;
  description?: unknown;
  target_url?: unknown;
}

export interface CombinedStatus {
  state: StatusState;
  sha: string;
  total_count: number;
  statuses: CommitStatusRow[];
}

/** The combined state: failure if any context failed or errored, pending if none or any pending, else success. */
function combineStates(states: readonly StatusState[]): StatusState {
  if (states.some((state) => state === 'error' || state === 'failure')) return 'failure';
  if (states.length === 0 || states.includes('pending')) return 'pending';
  return 'success';
}

/** Commit statuses: what CI systems report on commits, one state per context, the newest counting. */
export class CommitStatusService {
  constructor(
    private readonly store: Db,
    private readonly git: StatusGit,
    private readonly now: () => string,
    private readonly events: EventRecorder,
    /** Whether a branch is protected (the `status` event says so of each branch at the commit). */
    private readonly protection: Pick<BranchProtectionService, 'rulesOf'>,
  ) {}

  /** Records a status on a full commit id of the repository (404 for anything else); needs write access. */
  async create(repo: RepositoryRow, viewer: Viewer, sha: string, input: StatusInput): Promise<CommitStatusRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Posting commit statuses needs write access');
    const state = input.state;
    if (typeof state !== 'string' || !STATES.includes(state as StatusState)) throw invalid("state must be 'pending', 'success', 'error' or 'failure'");
    const context = optionalText('context', input.context, 255).trim() || 'default';
    const description = optionalText('description', input.description, 1024);
    const targetUrl = optionalHttpUrl('target_url', input.target_url);
    if (!FULL_SHA.test(sha) || !(await this.git.commitExists(repo.owner_name, repo.name, sha))) throw new NoSuchCommit(sha, 'Commit not found');
    const now = this.now();
    const commit = await this.commitForEvent(repo, sha);
    return await writeToRepository(this.store, repo, async (tx) =>
      await this.record(tx, { repoId: repo.id, sha, state: state as StatusState, context, description, targetUrl, creatorId: viewer!.id, now }, commit),
    );
  }

  /** The commit a `status` event carries, read (before the write) only when a hook or a listener will hear it. */
  async commitForEvent(repo: RepositoryRow, sha: string): Promise<CommitObject | undefined> {
    if (!(await this.events.anyoneHears(this.store, repo.id, ['status']))) return undefined;
    return this.git.readCommit(repo.owner_name, repo.name, sha).catch(() => undefined);
  }

  /**
   * Records inside a caller's write (the CI callback), with its `status` event (carrying `commit` as GitHub's does,
   * when given); the per-context bound holds there too.
   */
  async record(tx: WriteTx, status: Parameters<typeof insertCommitStatus>[1], commit?: CommitObject): Promise<CommitStatusRow> {
    if (await countStatusesOfContext(tx, status.repoId, status.sha, status.context) >= MAX_PER_CONTEXT) {
      throw invalid(`a commit has at most ${MAX_PER_CONTEXT} statuses per context`);
    }
    const row = await insertCommitStatus(tx, status);
    const sender = status.creatorId === null ? undefined : await userById(tx, status.creatorId);
    const repo = (await repositoryById(tx, status.repoId))!;
    await this.events.record(tx, repo, sender, 'status', async () => {
      const ruleOf = await this.protection.rulesOf(repo, tx);
      return {
        id: row.id,
        sha: row.sha,
        name: `${repo.owner_name}/${repo.name}`,
        state: row.state,
        context: row.context,
        description: row.description || null,
        target_url: row.target_url,
        // As GitHub: at most 10, each with its commit's URL and whether it is protected.
        branches: (await branchesAt(tx, status.repoId, row.sha))
          .slice(0, 10)
          .map((name) => ({ name, commit: { sha: row.sha, url: this.events.github.code.commitApiUrl(repo, row.sha) }, protected: ruleOf(name) !== undefined })),
        ...(commit ? { commit: await this.events.github.code.commit(tx, repo, commit) } : {}),
        created_at: githubTime(row.created_at),
        updated_at: githubTime(row.updated_at),
      };
    });
    return row;
  }

  /** Every status of the commit `ref` names (branch, tag or commit id), newest first. */
  async list(repo: RepositoryRow, ref: string, page: PageWindow): Promise<{ items: CommitStatusRow[]; total: number }> {
    const sha = await this.resolve(repo, ref);
    return await this.store.read(async (tx) => ({ items: await statusesOfCommit(tx, repo.id, sha, page), total: await countStatusesOfCommit(tx, repo.id, sha) }));
  }

  async combined(repo: RepositoryRow, ref: string): Promise<CombinedStatus> {
    return await this.combinedOf(repo, await this.resolve(repo, ref));
  }

  /** The combined status of a known commit id (pull request heads). */
  async combinedOf(repo: RepositoryRow, sha: string): Promise<CombinedStatus> {
    const statuses = await latestStatusPerContext(this.store, repo.id, sha);
    return { state: combineStates(statuses.map((status) => status.state)), sha, total_count: statuses.length, statuses };
  }

  /** `combinedOf` for each of several commits (a list's heads), in one statement: by commit id. */
  async combinedOfEach(repo: RepositoryRow, shas: readonly string[]): Promise<Map<string, CombinedStatus>> {
    const latest = await latestStatusesPerContextOf(this.store, repo.id, shas);
    return new Map([...latest].map(([sha, statuses]) => [sha, { state: combineStates(statuses.map((status) => status.state)), sha, total_count: statuses.length, statuses }]));
  }

  private async resolve(repo: RepositoryRow, ref: string): Promise<string> {
    const sha = await this.git.resolveCommit(repo.owner_name, repo.name, ref);
    if (!sha) throw notFound('Commit not found');
    return sha;
  }
}
