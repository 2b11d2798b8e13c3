import { notAllowed } from '../errors.js';
import type { Db } from '../store/interface.js';
import type { PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { standingReviews } from '../store/queries/reviews.js';
import { userById } from '../store/queries/users.js';
import type { BranchProtectionService } from './branch-protection.js';
import type { CheckService } from './checks.js';
import { accessLevel, atLeast, type Viewer } from './permissions.js';
import type { CommitStatusService } from './statuses.js';

/**
 * What a protected branch asks of a merge into it: required status checks passed on the head commit, and approving
 * reviews. One rule for the merge itself, the merge box of the pages and GitHub's `mergeable_state`.
 */
export class MergeGates {
  constructor(
    private readonly store: Db,
    private readonly statuses: Pick<CommitStatusService, 'combinedOf'>,
    private readonly checks: Pick<CheckService, 'latestOf'>,
    private readonly protection: Pick<BranchProtectionService, 'ruleFor'>,
  ) {}

  /**
   * The checks base's protection requires that head has not passed, each with its state (`missing` when none was
   * reported): the one rule the merge, the merge box and GitHub's `mergeable_state` follow.
   */
  async unmetChecks(repo: RepositoryRow, base: string, headSha: string): Promise<Array<{ context: string; state: string }>> {
    return this.unmetContexts(repo, headSha, (await this.protection.ruleFor(repo, base))?.required_status_contexts ?? []);
  }

  /** Which of the `required` contexts commit `sha` has not passed, each with its state (`missing`: none reported). */
  async unmetContexts(repo: RepositoryRow, sha: string, required: readonly string[]): Promise<Array<{ context: string; state: string }>> {
    if (required.length === 0) return [];
    // A required name is met by a `success` status of that context or, as on GitHub, a check run of that name that
    // completed with success, neutral or skipped.
    const states = new Map((await this.statuses.combinedOf(repo, sha)).statuses.map((status) => [status.context, status.state]));
    const runs = await this.checks.latestOf(repo, sha);
    return required
      .filter((context) => states.get(context) !== 'success' && runs.get(context)?.passed !== true)
      .map((context) => ({ context, state: states.get(context) ?? runs.get(context)?.state ?? 'missing' }));
  }

  /**
   * Why the reviews of a pull request do not let it merge into `base`, or undefined: a protection that requires N
   * approving reviews counts the standing approvals of accounts with write access, and a standing request for changes
   * from one of them blocks (GitHub's rule). Dismissed reviews count for nothing.
   */
  async unmetReviews(repo: RepositoryRow, base: string, pullId: number): Promise<string | undefined> {
    const required = (await this.protection.ruleFor(repo, base))?.required_approvals ?? 0;
    if (required === 0) return undefined;
    let approvals = 0;
    for (const review of await standingReviews(this.store, pullId)) {
      const user = review.state === 'DISMISSED' ? undefined : await userById(this.store, review.user_id);
      if (!user || !atLeast(await accessLevel(this.store, user, repo), 'write')) continue;
      if (review.state === 'CHANGES_REQUESTED') return 'changes were requested by a reviewer with write access';
      approvals += 1;
    }
    return approvals < required ? `${required} approving review${required === 1 ? ' is' : 's are'} required (${approvals} given)` : undefined;
  }

  /**
   * A protected base may require status contexts, each `success` on the head commit, and approving reviews (405
   * naming what is missing).
   */
  async require(repo: RepositoryRow, viewer: Viewer, base: string, pull: Pick<PullRow, 'id'>, headSha: string): Promise<void> {
    // A rule that spares admins (GitHub's `enforce_admins: false`) lets them merge anyway.
    if ((await this.protection.ruleFor(repo, base))?.enforce_admins === false && (await accessLevel(this.store, viewer, repo)) === 'admin') return;
    const unmet = await this.unmetChecks(repo, base, headSha);
    if (unmet.length > 0) throw notAllowed(`required status checks have not passed: ${unmet.map(({ context, state }) => `${context} (${state})`).join(', ')}`);
    const reviews = await this.unmetReviews(repo, base, pull.id);
    if (reviews) throw notAllowed(`the reviews do not allow a merge: ${reviews}`);
  }
}
