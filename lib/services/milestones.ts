import { insertIssueEvent } from '../store/queries/issue-events.js';
import { conflict, invalid, notFound } from '../errors.js';
import type { EventRecorder, MilestoneEvent } from '../events/index.js';
import type { Db, WriteTx } from '../store/interface.js';
import { issueByNumber } from '../store/queries/issues.js';
import {
  deleteMilestone,
  insertMilestone,
  milestoneById,
  milestoneByNumber,
  milestoneByTitle,
  milestonesOfNumbers,
  milestonesOfRepository,
  setMilestone,
  updateMilestone,
  type MilestoneFields,
  type MilestoneListing,
  type MilestoneRow,
} from '../store/queries/milestones.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { pullByNumber } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { userByName } from '../store/queries/users.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { nullableText } from './text-fields.js';

export interface MilestoneInput {
  title?: unknown;
  description?: unknown;
  state?: unknown;
  due_on?: unknown;
}

/**
 * Milestones of a repository (numbered per repository, titles unique regardless of case), managed with write access,
 * and the milestone of an issue or pull request (by its number), whose changes are `issues` / `pull_request` events
 * `milestoned` and `demilestoned`, as on GitHub.
 */
export class MilestoneService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  async list(repo: RepositoryRow, listing: MilestoneListing, page: PageWindow): Promise<{ items: MilestoneRow[]; total: number }> {
    return await this.store.read(async (tx) => await milestonesOfRepository(tx, repo.id, listing, page));
  }

  /** The milestone of the issue or pull request `number`, if it has one. */
  async of(repo: RepositoryRow, number: number): Promise<MilestoneRow | undefined> {
    return (await milestonesOfNumbers(this.store, repo.id, [number])).get(number);
  }

  async get(repo: RepositoryRow, number: number): Promise<MilestoneRow> {
    const milestone = Number.isSafeInteger(number) ? await milestoneByNumber(this.store, repo.id, number) : undefined;
    if (!milestone) throw notFound('Not Found');
    return milestone;
  }

  async create(repo: RepositoryRow, viewer: Viewer, input: MilestoneInput): Promise<MilestoneRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing milestones needs write access');
    const fields = this.fields(undefined, input);
    const number = await writeToRepository(this.store, repo, async (tx) => {
      if (await milestoneByTitle(tx, repo.id, fields.title)) throw conflict('title already_exists');
      const number = await insertMilestone(tx, repo.id, viewer!.id, fields, this.now());
      await this.announceMilestone(tx, repo, viewer, number, 'created');
      return number;
    });
    return await this.get(repo, number);
  }

  async update(repo: RepositoryRow, viewer: Viewer, number: number, input: MilestoneInput): Promise<MilestoneRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing milestones needs write access');
    const current = await this.get(repo, number);
    const fields = this.fields(current, input);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const clash = await milestoneByTitle(tx, repo.id, fields.title);
      if (clash && clash.id !== current.id) throw conflict('title already_exists');
      const closedAt = fields.state === 'closed' ? (current.closed_at ?? now) : null;
      await updateMilestone(tx, current.id, fields, closedAt, now);
      const changes: NonNullable<MilestoneEvent['changes']> = {};
      for (const field of ['title', 'description', 'due_on'] as const) if (fields[field] !== current[field]) changes[field] = { from: current[field] ?? '' };
      if (Object.keys(changes).length > 0) await this.announceMilestone(tx, repo, viewer, number, 'edited', changes);
      if (fields.state !== current.state) await this.announceMilestone(tx, repo, viewer, number, fields.state === 'closed' ? 'closed' : 'opened');
    });
    return await this.get(repo, number);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, number: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing milestones needs write access');
    const milestone = await this.get(repo, number);
    await writeToRepository(this.store, repo, async (tx) => {
      // Announced as it was, before its rows go.
      await this.announceMilestone(tx, repo, viewer, number, 'deleted');
      await deleteMilestone(tx, milestone.id);
    });
  }

  /** The milestone `milestone` names (a number), or undefined for null, checked: callers check before they write. */
  async check(repo: RepositoryRow, milestone: unknown): Promise<MilestoneRow | undefined> {
    if (milestone === null) return undefined;
    if (!Number.isSafeInteger(milestone) || (milestone as number) < 1) throw invalid('milestone must be the number of a milestone or null');
    const target = await milestoneByNumber(this.store, repo.id, milestone as number);
    if (!target) throw invalid(`milestone must be the number of a milestone of the repository: ${String(milestone)}`);
    return target;
  }

  /** Sets (a milestone number) or clears (null) the milestone of the issue or pull request `number`. */
  async setOn(repo: RepositoryRow, viewer: Viewer, number: number, milestone: unknown): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Setting milestones needs write access');
    const target = await this.check(repo, milestone);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const had = await setMilestone(tx, repo.id, number, target?.id ?? null);
      if (had === (target?.id ?? null)) return;
      if (had !== null) await this.announce(tx, repo, viewer, number, 'demilestoned', (await milestoneById(tx, had))!, now);
      if (target) await this.announce(tx, repo, viewer, number, 'milestoned', (await milestoneById(tx, target.id))!, now);
    });
  }

  /** A `milestone` event of the milestone as it stands in the write. */
  private async announceMilestone(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, number: number, action: MilestoneEvent['action'], changes?: MilestoneEvent['changes']): Promise<void> {
    await this.events.record(tx, repo, viewer, 'milestone', async (current) => {
      const row = (await milestoneByNumber(tx, current.id, number))!;
      const milestone = this.events.github.milestone(current, row, await userByName(tx, row.creator));
      return action === 'edited' ? { action, milestone, changes } : { action, milestone };
    });
  }

  /** The webhook event of a milestone set or cleared, and the timeline's. */
  private async announce(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, number: number, action: 'milestoned' | 'demilestoned', milestone: MilestoneRow, now: string): Promise<void> {
    await insertIssueEvent(tx, repo.id, number, action, { actorId: viewer?.id, milestoneTitle: milestone.title }, now);
    const github = this.events.github;
    const issue = await issueByNumber(tx, repo.id, number);
    if (issue) {
      await this.events.record(tx, repo, viewer, 'issues', async (current) => ({
        action,
        issue: await github.issue(tx, current, issue),
        // The milestone set or cleared, as issues' events carry it.
        milestone: github.milestone(current, milestone, await userByName(tx, milestone.creator)),
      }));
      return;
    }
    const pull = (await pullByNumber(tx, repo.id, number))!;
    await this.events.record(tx, repo, viewer, 'pull_request', async (current) => ({ action, number, pull_request: await github.pullForEvent(tx, current, pull) }));
  }

  private fields(current: MilestoneRow | undefined, input: MilestoneInput): MilestoneFields {
    const title = input.title === undefined && current ? current.title : nullableText('title', input.title, 255)?.trim();
    if (!title) throw invalid('title is required');
    const state = input.state === undefined ? (current?.state ?? 'open') : input.state;
    if (state !== 'open' && state !== 'closed') throw invalid("state must be 'open' or 'closed'");
    const dueOn = input.due_on === undefined ? (current?.due_on ?? null) : nullableText('due_on', input.due_on, 64);
    if (dueOn !== null && Number.isNaN(Date.parse(dueOn))) throw invalid('due_on must be an ISO 8601 timestamp');
    return {
      title,
      description: input.description === undefined ? (current?.description ?? null) : nullableText('description', input.description, 65_535),
      state,
      due_on: dueOn === null ? null : new Date(Date.parse(dueOn)).toISOString(),
    };
  }
}
