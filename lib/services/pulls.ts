import { invalid, notFound } from '../errors.js';
import type { Store } from '../store/database.js';
import { commentsOfPull, insertComment, insertPull, pullInRepository, pullsOfRepository, type PullCommentRow, type PullRow } from '../store/queries/pulls.js';
import { branchesOf, takeNextNumber, type RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { MAX_BODY, MAX_TITLE } from './issues.js';
import { optionalText, requiredText } from './text-fields.js';

/** The pull request summary of the API (spec §2); the stored row already has its shape, with a few extras. */
export type PullSummary = PullRow;

export interface NewPull {
  title: unknown;
  description?: unknown;
  head: unknown;
  base: unknown;
}

export class PullService {
  constructor(
    private readonly store: Store,
    private readonly now: () => string,
  ) {}

  list(repo: RepositoryRow): PullRow[] {
    return pullsOfRepository(this.store, repo.id);
  }

  get(repo: RepositoryRow, id: number): PullRow {
    const pull = Number.isSafeInteger(id) ? pullInRepository(this.store, repo.id, id) : undefined;
    if (!pull) throw notFound('Pull request not found');
    return pull;
  }

  /** Opens a pull request from `head` into `base`; both must be branches of the repository, as on GitHub. */
  async create(repo: RepositoryRow, author: UserRow, input: NewPull): Promise<PullRow> {
    const title = requiredText('title', input.title, MAX_TITLE);
    const description = optionalText('description', input.description, MAX_BODY);
    const head = requiredText('head', input.head, 255);
    const base = requiredText('base', input.base, 255);
    if (head === base) throw invalid('head and base must be different branches');
    const branches = new Set(branchesOf(this.store, repo.id).map((branch) => branch.name));
    for (const [field, branch] of [['head', head], ['base', base]] as const) {
      if (!branches.has(branch)) throw invalid(`${field} branch '${branch}' does not exist`);
    }
    const now = this.now();
    const id = await this.store.write((tx) => {
      const number = takeNextNumber(tx, repo.id);
      return insertPull(tx, { repoId: repo.id, number, authorId: author.id, title, description, head, base, now });
    });
    return pullInRepository(this.store, repo.id, id)!;
  }

  comments(repo: RepositoryRow, pullId: number): PullCommentRow[] {
    return commentsOfPull(this.store, this.get(repo, pullId).id);
  }

  async comment(repo: RepositoryRow, pullId: number, author: UserRow, text: unknown): Promise<PullCommentRow> {
    const pull = this.get(repo, pullId);
    const body = requiredText('text', text, MAX_BODY);
    const now = this.now();
    return this.store.write((tx) => insertComment(tx, { pullId: pull.id, authorId: author.id, text: body, now }));
  }

  summary(pull: PullRow): PullSummary {
    return { ...pull };
  }
}
