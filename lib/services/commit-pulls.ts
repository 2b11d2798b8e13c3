import type { Db } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { openAndMergedPullTips, pullsByIds, type PullRow, type PullTips } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { GitDataService } from './git-data.js';

/**
 * The pull requests GitHub associates with a commit (`GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls`): the
 * merged ones that brought it into their base and, while it is not on the default branch, the open ones that would.
 * A pull request brings the commits of its head (or, merged, of what merging made: the merge commit, the squashed
 * commit or the rebased commits) that its base did not have. Newest first.
 */
export class CommitPullsService {
  constructor(
    private readonly store: Db,
    private readonly gitData: GitDataService,
  ) {}

  /** `ref`: a commit id or a branch (GitHub's "set the commit_sha parameter to the branch name"); its page of them. */
  async list(repo: RepositoryRow, ref: string, page: PageWindow): Promise<{ items: PullRow[]; total: number }> {
    const commit = await this.gitData.resolve(repo, ref);
    const pulls = await openAndMergedPullTips(this.store, repo.id);
    const refs = await this.gitData.refsOf(repo);
    const defaultTip = refs.get(`refs/heads/${repo.default_branch}`);
    // An open pull request is measured against its base as it is now; a merged one against its base before merging.
    const baseOf = (pull: PullTips) => (pull.status === 'open' ? (refs.get(`refs/heads/${pull.base}`) ?? pull.base_sha) : pull.base_sha);
    const tips = new Set<string>();
    if (defaultTip) tips.add(defaultTip);
    for (const pull of pulls) for (const tip of [pull.head_sha, baseOf(pull), pull.merge_commit_sha]) if (tip) tips.add(tip);
    const containing = await this.gitData.tipsContaining(repo, commit, tips);
    const contains = (tip: string | null) => !!tip && containing.has(tip);
    const onDefault = contains(defaultTip ?? null);
    const associated = pulls
      .filter((pull) => (pull.status === 'merged' || !onDefault) && !contains(baseOf(pull)) && (contains(pull.head_sha) || contains(pull.merge_commit_sha)))
      .sort((a, b) => b.number - a.number);
    const shown = associated.slice(page.offset, page.offset + page.limit);
    const rows = new Map((await pullsByIds(this.store, repo.id, shown.map((pull) => pull.id))).map((pull) => [pull.id, pull]));
    return { items: shown.flatMap((pull) => rows.get(pull.id) ?? []), total: associated.length };
  }
}
