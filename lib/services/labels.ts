import { insertIssueEvent } from '../store/queries/issue-events.js';
import { conflict, invalid, notFound } from '../errors.js';
import { writeToRepository } from './repository-write.js';
import type { Db, WriteTx } from '../store/interface.js';
import { issueInRepository, issueRecord } from '../store/queries/issues.js';
import type { UserRow } from '../store/queries/users.js';
import type { EventRecorder } from '../events/index.js';
import type { LabelEvent } from '../events/types.js';
import {
  addIssueLabel,
  addPullLabel,
  clearIssueLabels,
  clearPullLabels,
  countLabels,
  deleteLabel,
  insertLabel,
  labelById,
  labelByName,
  labelsOfIssues,
  labelsOfPulls,
  labelsOfRepository,
  removeIssueLabel,
  removePullLabel,
  touchIssueForLabels,
  touchPullForLabels,
  updateLabel,
  type LabelRow,
} from '../store/queries/labels.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { IssueRow } from '../store/queries/issues.js';
import { pullInRepository, type PullRow } from '../store/queries/pulls.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { requireAccess, type Viewer } from './permissions.js';
import { optionalText, requiredText } from './text-fields.js';

const COLOR = /^#?([0-9a-fA-F]{6})$/;
const MAX_LABELS_PER_REQUEST = 100;
/** Longest label name (GitHub's). */
const MAX_LABEL_NAME = 50;
/** The colour GitHub gives a label it makes because an issue was given a name no label has. */
export const MADE_LABEL_COLOR = 'ededed';

/** What labelling does with a name no label of the repository has: refuse it, or make the label (GitHub's API). */
export type MissingLabels = 'refuse' | 'create';

/** A label name as given, checked (what a label made of it would be called). */
export const labelName = (value: unknown): string => requiredText('name', value, MAX_LABEL_NAME);

export interface LabelInput {
  name?: unknown;
  color?: unknown;
  description?: unknown;
}

export function parseColor(value: unknown): string {
  const match = typeof value === 'string' ? COLOR.exec(value.trim()) : null;
  if (!match) throw invalid('color must be 6 hexadecimal digits, e.g. d73a4a');
  return match[1]!.toLowerCase();
}

/** Label names given as a JSON array or a comma-separated string. */
export function parseLabelNames(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!list || !list.every((name) => typeof name === 'string')) throw invalid('labels must be a list of label names');
  const names = [...new Set((list as string[]).map((name) => name.trim()).filter(Boolean))];
  if (names.length > MAX_LABELS_PER_REQUEST) throw invalid(`at most ${MAX_LABELS_PER_REQUEST} labels at once`);
  return names;
}

/** Where labels go: an issue or a pull request (tables of their own, one numbering). */
interface LabelTarget {
  requireExists(tx: WriteTx): Promise<void>;
  labels(tx: WriteTx): Promise<LabelRow[]>;
  add(tx: WriteTx, labelId: number): Promise<void>;
  remove(tx: WriteTx, labelId: number): Promise<boolean>;
  clear(tx: WriteTx): Promise<void>;
  touch(tx: WriteTx, now: string): Promise<void>;
  /** The issue's or pull request's number (for its timeline). */
  number(tx: WriteTx): Promise<number>;
  announce(tx: WriteTx, sender: UserRow, action: 'labeled' | 'unlabeled', label: LabelRow): Promise<void>;
}

/** Repository labels and the labels of issues and pull requests; managing either needs write access. */
export class LabelService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  async list(repo: RepositoryRow, page: PageWindow): Promise<{ items: LabelRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await labelsOfRepository(tx, repo.id, page), total: await countLabels(tx, repo.id) }));
  }

  /** The repository's label of this name (any case), if there is one. */
  async find(repo: RepositoryRow, name: string): Promise<LabelRow | undefined> {
    return await labelByName(this.store, repo.id, name);
  }

  /** The repository's label of this name (any case), or 404. */
  async byName(repo: RepositoryRow, name: string): Promise<LabelRow> {
    const label = await this.find(repo, name);
    if (!label) throw notFound('Label not found');
    return label;
  }

  async create(repo: RepositoryRow, viewer: Viewer, input: LabelInput): Promise<LabelRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    const label = {
      name: labelName(input.name),
      color: parseColor(input.color),
      description: optionalText('description', input.description, 200),
    };
    return await writeToRepository(this.store, repo, async (tx) => {
      if (await labelByName(tx, repo.id, label.name)) throw conflict(`a label named '${label.name}' already exists`);
      return await this.made(tx, repo, viewer!, label);
    });
  }

  /** A new label of the repository, and its `label` event. */
  private async made(tx: WriteTx, repo: RepositoryRow, sender: UserRow, label: Omit<LabelRow, 'id'>): Promise<LabelRow> {
    const row = await insertLabel(tx, repo.id, label);
    await this.events.record(tx, repo, sender, 'label', async (current) => ({ action: 'created' as const, label: this.events.github.webhookLabel(current, row) }));
    return row;
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: LabelInput): Promise<LabelRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    const current = await this.get(repo, id);
    const label = {
      name: input.name === undefined ? current.name : labelName(input.name),
      color: input.color === undefined ? current.color : parseColor(input.color),
      description: input.description === undefined ? current.description : optionalText('description', input.description, 200),
    };
    await writeToRepository(this.store, repo, async (tx) => {
      const before = await labelById(tx, repo.id, id);
      if (!before) throw notFound('Label not found');
      const clash = await labelByName(tx, repo.id, label.name);
      if (clash && clash.id !== id) throw conflict(`a label named '${label.name}' already exists`);
      await updateLabel(tx, id, label);
      const changes: NonNullable<LabelEvent['changes']> = {};
      for (const field of ['name', 'color', 'description'] as const) if (before[field] !== label[field]) changes[field] = { from: before[field] };
      const after = { ...before, ...label };
      await this.events.record(tx, repo, viewer!, 'label', async (current) => ({ action: 'edited' as const, label: this.events.github.webhookLabel(current, after), changes }));
    });
    return await this.get(repo, id);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    await this.get(repo, id);
    await writeToRepository(this.store, repo, async (tx) => {
      const gone = await labelById(tx, repo.id, id);
      if (!gone) throw notFound('Label not found');
      await deleteLabel(tx, id);
      await this.events.record(tx, repo, viewer!, 'label', async (current) => ({ action: 'deleted' as const, label: this.events.github.webhookLabel(current, gone) }));
    });
  }

  /** Replaces (`replace`) or extends the issue's labels with the labels named in `names` (see `MissingLabels`). */
  async setOnIssue(repo: RepositoryRow, viewer: Viewer, issue: IssueRow, names: readonly string[], replace: boolean, missing: MissingLabels = 'refuse'): Promise<void> {
    await this.setOn(repo, viewer, this.issueTarget(repo, issue.id), names, replace, missing);
  }

  /** The same for a pull request (GitHub labels both through the issue endpoints). */
  async setOnPull(repo: RepositoryRow, viewer: Viewer, pull: PullRow, names: readonly string[], replace: boolean, missing: MissingLabels = 'refuse'): Promise<void> {
    await this.setOn(repo, viewer, this.pullTarget(repo, pull.id), names, replace, missing);
  }

  async removeFromIssue(repo: RepositoryRow, viewer: Viewer, issue: IssueRow, name: string): Promise<void> {
    await this.removeFrom(repo, viewer, this.issueTarget(repo, issue.id), name);
  }

  async removeFromPull(repo: RepositoryRow, viewer: Viewer, pull: PullRow, name: string): Promise<void> {
    await this.removeFrom(repo, viewer, this.pullTarget(repo, pull.id), name);
  }

  private async setOn(repo: RepositoryRow, viewer: Viewer, target: LabelTarget, names: readonly string[], replace: boolean, missing: MissingLabels): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Labelling issues and pull requests needs write access');
    if (missing === 'create') names.forEach(labelName);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await target.requireExists(tx);
      const labels: LabelRow[] = [];
      // One at a time: a label made for one name is found for the next that differs only in case.
      for (const name of names) {
        const label = await labelByName(tx, repo.id, name);
        if (label) labels.push(label);
        else if (missing === 'create') labels.push(await this.made(tx, repo, viewer!, { name, color: MADE_LABEL_COLOR, description: '' }));
        else throw invalid(`label '${name}' does not exist`);
      }
      const before = await target.labels(tx);
      if (replace) await target.clear(tx);
      for (const label of labels) await target.add(tx, label.id);
      await target.touch(tx, now);
      const after = await target.labels(tx);
      const missingFrom = (list: readonly LabelRow[]) => (label: LabelRow) => !list.some((other) => other.id === label.id);
      for (const label of before.filter(missingFrom(after))) await this.announce(tx, repo, target, viewer!, 'unlabeled', label, now);
      for (const label of after.filter(missingFrom(before))) await this.announce(tx, repo, target, viewer!, 'labeled', label, now);
    });
  }

  private async removeFrom(repo: RepositoryRow, viewer: Viewer, target: LabelTarget, name: string): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Labelling issues and pull requests needs write access');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await target.requireExists(tx);
      const label = await labelByName(tx, repo.id, name);
      if (!label || !await target.remove(tx, label.id)) throw notFound('Label not found on this issue');
      await target.touch(tx, now);
      await this.announce(tx, repo, target, viewer!, 'unlabeled', label, now);
    });
  }

  /** The webhook event of a label put on or taken off, and the timeline's. */
  private async announce(tx: WriteTx, repo: RepositoryRow, target: LabelTarget, sender: UserRow, action: 'labeled' | 'unlabeled', label: LabelRow, now: string): Promise<void> {
    await target.announce(tx, sender, action, label);
    await insertIssueEvent(tx, repo.id, await target.number(tx), action, { actorId: sender.id, label: { name: label.name, color: label.color } }, now);
  }

  /** An issue's labels, and GitHub's `issues` event `labeled` / `unlabeled` with the issue as it is after the change. */
  private issueTarget(repo: RepositoryRow, issueId: number): LabelTarget {
    return {
      requireExists: async (tx) => {
        if (!await issueRecord(tx, repo.id, issueId)) throw notFound('Issue not found');
      },
      labels: async (tx) => (await labelsOfIssues(tx, [issueId])).get(issueId) ?? [],
      add: (tx, labelId) => addIssueLabel(tx, issueId, labelId),
      remove: (tx, labelId) => removeIssueLabel(tx, issueId, labelId),
      clear: (tx) => clearIssueLabels(tx, issueId),
      touch: (tx, now) => touchIssueForLabels(tx, issueId, now),
      number: async (tx) => (await issueRecord(tx, repo.id, issueId))!.number,
      announce: async (tx, sender, action, label) =>
        await this.events.record(tx, repo, sender, 'issues', async (current) => ({
          action,
          issue: await this.events.github.issue(tx, current, (await issueInRepository(tx, repo.id, issueId))!),
          label: this.events.github.webhookLabel(current, label),
        })),
    };
  }

  /** A pull request's labels, and GitHub's `pull_request` event `labeled` / `unlabeled`. */
  private pullTarget(repo: RepositoryRow, pullId: number): LabelTarget {
    return {
      requireExists: async (tx) => {
        if (!await pullInRepository(tx, repo.id, pullId)) throw notFound('Pull request not found');
      },
      labels: async (tx) => (await labelsOfPulls(tx, [pullId])).get(pullId) ?? [],
      add: (tx, labelId) => addPullLabel(tx, pullId, labelId),
      remove: (tx, labelId) => removePullLabel(tx, pullId, labelId),
      clear: (tx) => clearPullLabels(tx, pullId),
      touch: (tx, now) => touchPullForLabels(tx, pullId, now),
      number: async (tx) => (await pullInRepository(tx, repo.id, pullId))!.number,
      announce: async (tx, sender, action, label) =>
        await this.events.record(tx, repo, sender, 'pull_request', async (current) => {
          const pull = (await pullInRepository(tx, repo.id, pullId))!;
          return { action, number: pull.number, pull_request: await this.events.github.pullForEvent(tx, current, pull), label: this.events.github.webhookLabel(current, label) };
        }),
    };
  }

  private async get(repo: RepositoryRow, id: number): Promise<LabelRow> {
    const label = Number.isSafeInteger(id) ? await labelById(this.store, repo.id, id) : undefined;
    if (!label) throw notFound('Label not found');
    return label;
  }

}
