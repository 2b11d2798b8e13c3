import { conflict, invalid, notFound } from '../errors.js';
import { writeToRepository } from './repository-write.js';
import type { Db, WriteTx } from '../store/interface.js';
import { issueInRepository, issueRecord } from '../store/queries/issues.js';
import type { UserRow } from '../store/queries/users.js';
import type { EventRecorder } from '../events/index.js';
import {
  addIssueLabel,
  clearIssueLabels,
  countLabels,
  deleteLabel,
  insertLabel,
  labelById,
  labelByName,
  labelsOfIssues,
  labelsOfRepository,
  removeIssueLabel,
  touchIssueForLabels,
  updateLabel,
  type LabelRow,
} from '../store/queries/labels.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { IssueRow } from '../store/queries/issues.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { requireAccess, type Viewer } from './permissions.js';
import { optionalText, requiredText } from './text-fields.js';

const COLOR = /^#?([0-9a-fA-F]{6})$/;
const MAX_LABELS_PER_REQUEST = 100;

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

/** Repository labels and the labels of issues; managing either needs write access. */
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
      name: requiredText('name', input.name, 50),
      color: parseColor(input.color),
      description: optionalText('description', input.description, 200),
    };
    return await writeToRepository(this.store, repo, async (tx) => {
      if (await labelByName(tx, repo.id, label.name)) throw conflict(`a label named '${label.name}' already exists`);
      return await insertLabel(tx, repo.id, label);
    });
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: LabelInput): Promise<LabelRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    const current = await this.get(repo, id);
    const label = {
      name: input.name === undefined ? current.name : requiredText('name', input.name, 50),
      color: input.color === undefined ? current.color : parseColor(input.color),
      description: input.description === undefined ? current.description : optionalText('description', input.description, 200),
    };
    await writeToRepository(this.store, repo, async (tx) => {
      if (!await labelById(tx, repo.id, id)) throw notFound('Label not found');
      const clash = await labelByName(tx, repo.id, label.name);
      if (clash && clash.id !== id) throw conflict(`a label named '${label.name}' already exists`);
      await updateLabel(tx, id, label);
    });
    return await this.get(repo, id);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    await this.get(repo, id);
    await writeToRepository(this.store, repo, async (tx) => await deleteLabel(tx, id));
  }

  /** Replaces (`replace`) or extends the issue's labels with existing labels named in `names`. */
  async setOnIssue(repo: RepositoryRow, viewer: Viewer, issue: IssueRow, names: readonly string[], replace: boolean): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Labelling issues needs write access');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await this.requireIssue(tx, repo, issue.id);
      const labels = (await Promise.all(names.map(async (name) => {
        const label = await labelByName(tx, repo.id, name);
        if (!label) throw invalid(`label '${name}' does not exist`);
        return label;
      })));
      const before = (await labelsOfIssues(tx, [issue.id])).get(issue.id) ?? [];
      if (replace) await clearIssueLabels(tx, issue.id);
      for (const label of labels) await addIssueLabel(tx, issue.id, label.id);
      await touchIssueForLabels(tx, issue.id, now);
      const after = (await labelsOfIssues(tx, [issue.id])).get(issue.id) ?? [];
      const missingFrom = (list: readonly LabelRow[]) => (label: LabelRow) => !list.some((other) => other.id === label.id);
      for (const label of before.filter(missingFrom(after))) await this.recordLabelEvent(tx, repo, viewer!, issue.id, 'unlabeled', label);
      for (const label of after.filter(missingFrom(before))) await this.recordLabelEvent(tx, repo, viewer!, issue.id, 'labeled', label);
    });
  }

  async removeFromIssue(repo: RepositoryRow, viewer: Viewer, issue: IssueRow, name: string): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Labelling issues needs write access');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      await this.requireIssue(tx, repo, issue.id);
      const label = await labelByName(tx, repo.id, name);
      if (!label || !await removeIssueLabel(tx, issue.id, label.id)) throw notFound('Label not found on this issue');
      await touchIssueForLabels(tx, issue.id, now);
      await this.recordLabelEvent(tx, repo, viewer!, issue.id, 'unlabeled', label);
    });
  }

  /** GitHub's `issues` event `labeled` / `unlabeled`, one per label, with the issue as it is after the change. */
  private async recordLabelEvent(tx: WriteTx, repo: RepositoryRow, sender: UserRow, issueId: number, action: 'labeled' | 'unlabeled', label: LabelRow): Promise<void> {
    await this.events.record(tx, repo, sender, 'issues', async (current) => ({
      action,
      issue: await this.events.github.issue(tx, current, (await issueInRepository(tx, repo.id, issueId))!),
      label: this.events.github.label(current, label),
    }));
  }

  private async get(repo: RepositoryRow, id: number): Promise<LabelRow> {
    const label = Number.isSafeInteger(id) ? await labelById(this.store, repo.id, id) : undefined;
    if (!label) throw notFound('Label not found');
    return label;
  }

  private async requireIssue(tx: WriteTx, repo: RepositoryRow, id: number): Promise<void> {
    if (!await issueRecord(tx, repo.id, id)) throw notFound('Issue not found');
  }
}
