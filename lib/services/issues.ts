import { notFound } from '../errors.js';
import type { Store } from '../store/database.js';
import { countIssues, insertIssue, issueInRepository, issuesOfRepository, type IssueRow } from '../store/queries/issues.js';
import { takeNextNumber, type RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { optionalText, requiredText } from './text-fields.js';

/** The issue summary of the API (spec §2); the stored row already has its shape, with a few extras. */
export type IssueSummary = IssueRow;

export const MAX_TITLE = 255;
export const MAX_BODY = 65_535;

export class IssueService {
  constructor(
    private readonly store: Store,
    private readonly now: () => string,
  ) {}

  list(repo: RepositoryRow): IssueRow[] {
    return issuesOfRepository(this.store, repo.id);
  }

  get(repo: RepositoryRow, id: number): IssueRow {
    const issue = Number.isSafeInteger(id) ? issueInRepository(this.store, repo.id, id) : undefined;
    if (!issue) throw notFound('Issue not found');
    return issue;
  }

  count(repo: RepositoryRow): number {
    return countIssues(this.store, repo.id);
  }

  async create(repo: RepositoryRow, author: UserRow, input: { title: unknown; body?: unknown }): Promise<IssueRow> {
    const title = requiredText('title', input.title, MAX_TITLE);
    const body = optionalText('body', input.body, MAX_BODY);
    const now = this.now();
    const id = await this.store.write((tx) => {
      const number = takeNextNumber(tx, repo.id);
      return insertIssue(tx, { repoId: repo.id, number, authorId: author.id, title, body, now });
    });
    return issueInRepository(this.store, repo.id, id)!;
  }

  summary(issue: IssueRow): IssueSummary {
    return { ...issue };
  }
}


