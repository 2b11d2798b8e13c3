import { conflict, invalid, notFound } from '../errors.js';
import { writeToRepository } from './repository-write.js';
import type { Store, WriteTx } from '../store/database.js';
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
    private readonly store: Store,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  list(repo: RepositoryRow, page: PageWindow): { items: LabelRow[]; total: number } {
    return { items: labelsOfRepository(this.store, repo.id, page), total: countLabels(this.store, repo.id) };
  }

  /** The repository's label of this name (any case), if there is one. */
  find(repo: RepositoryRow, name: string): LabelRow | undefined {
    return labelByName(this.store, repo.id, name);
  }

  /** The repository's label of this name (any case), or 404. */
  byName(repo: RepositoryRow, name: string): LabelRow {
    const label = this.find(repo, name);
    if (!label) throw notFound('Label not found');
    return label;
  }

  async create(repo: RepositoryRow, viewer: Viewer, input: LabelInput): Promise<LabelRow> {
    requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    const label = {
      name: requiredText('name', input.name, 50),
      color: parseColor(input.color),
      description: optionalText('description', input.description, 200),
    };
    return writeToRepository(this.store, repo, (tx) => {
      if (labelByName(tx, repo.id, label.name)) throw conflict(`a label named '${label.name}' already exists`);
      return insertLabel(tx, repo.id, label);
    });
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: LabelInput): Promise<LabelRow> {
    requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    const current = this.get(repo, id);
    const label = {
      name: input.name === undefined ? current.name : requiredText('name', input.name, 50),
      color: input.color === undefined ? current.color : parseColor(input.color),
      description: input.description === undefined ? current.description : optionalText('description', input.description, 200),
    };
    await writeToRepository(this.store, repo, (tx) => {
      if (!labelById(tx, repo.id, id)) throw notFound('Label not found');
      const clash = labelByName(tx, repo.id, label.name);
      if (clash && clash.id !== id) throw conflict(`a label named '${label.name}' already exists`);
      updateLabel(tx, id, label);
    });
    return this.get(repo, id);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    requireAccess(this.store, viewer, repo, 'write', 'Managing labels needs write access');
    this.get(repo, id);
    await writeToRepository(this.store, repo, (tx) => deleteLabel(tx, id));
  }

  /** Replaces (`replace`) or extends the issue's labels with existing labels named in `names`. */
  async setOnIssue(repo: RepositoryRow, viewer: Viewer, issue: IssueRow, names: readonly string[], replace: boolean): Promise<void> {
    requireAccess(this.store, viewer, repo, 'write', 'Labelling issues needs write access');
    const now = this.now();
    await writeToRepository(this.store, repo, (tx) => {
      this.requireIssue(tx, repo, issue.id);
      const labels = names.map((name) => {
        const label = labelByName(tx, repo.id, name);
        if (!label) throw invalid(`label '${name}' does not exist`);
        return label;
      });
      const before = labelsOfIssues(tx, [issue.id]).get(issue.id) ?? [];
      if (replace) clearIssueLabels(tx, issue.id);
      for (const label of labels) addIssueLabel(tx, issue.id, label.id);
      touchIssueForLabels(tx, issue.id, now);
      const after = labelsOfIssues(tx, [issue.id]).get(issue.id) ?? [];
      const missingFrom = (list: readonly LabelRow[]) => (label: LabelRow) => !list.some((other) => other.id === label.id);
      for (const label of before.filter(missingFrom(after))) this.recordLabelEvent(tx, repo, viewer!, issue.id, 'unlabeled', label);
      for (const label of after.filter(missingFrom(before))) this.recordLabelEvent(tx, repo, viewer!, issue.id, 'labeled', label);
    });
  }

  async removeFromIssue(repo: RepositoryRow, viewer: Viewer, issue: IssueRow, name: string): Promise<void> {
    requireAccess(this.store, viewer, repo, 'write', 'Labelling issues needs write access');
    const now = this.now();
    await writeToRepository(this.store, repo, (tx) => {
      this.requireIssue(tx, repo, issue.id);
      const label = labelByName(tx, repo.id, name);
      if (!label || !removeIssueLabel(tx, issue.id, label.id)) throw notFound('Label not found on this issue');
      touchIssueForLabels(tx, issue.id, now);
      this.recordLabelEvent(tx, repo, viewer!, issue.id, 'unlabeled', label);
    });
  }

  /** GitHub's `issues` event `labeled` / `unlabeled`, one per label, with the issue as it is after the change. */
  private recordLabelEvent(tx: WriteTx, repo: RepositoryRow, sender: UserRow, issueId: number, action: 'labeled' | 'unlabeled', label: LabelRow): void {
    this.events.record(tx, repo, sender, 'issues', (current) => ({
      action,
      issue: this.events.github.issue(tx, current, issueInRepository(tx, repo.id, issueId)!),
      label: this.events.github.label(current, label),
    }));
  }

  private get(repo: RepositoryRow, id: number): LabelRow {
    const label = Number.isSafeInteger(id) ? labelById(this.store, repo.id, id) : undefined;
    if (!label) throw notFound('Label not found');
    return label;
  }

  private requireIssue(tx: WriteTx, repo: RepositoryRow, id: number): void {
    if (!issueRecord(tx, repo.id, id)) throw notFound('Issue not found');
  }
}
