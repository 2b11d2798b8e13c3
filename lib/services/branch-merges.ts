import { invalid } from '../errors.js';
import { isAncestor } from '../git/ancestry.js';
import { mergeTree } from '../git/merge.js';
import { commitTree } from '../git/objects.js';
import type { GitRepositories } from '../git/repositories.js';
import type { Db } from '../store/interface.js';
import type { PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { requireAccess, type Viewer } from './permissions.js';
import type { RefUpdateService } from './ref-updates.js';

const BRANCH = 'refs/heads/';

/** What merging into a branch came to: the merge commit, nothing to do, or why not. */
export type BranchMergeOutcome = { merged: string } | 'up-to-date' | 'conflict' | 'no-base' | 'no-head';

/**
 * Merge commits made by the host on a branch, by whoever asks, which then move the branch as a push of theirs would
 * (write access, the branch's protection, the ref journal, the push events): a pull request's base merged into its
 * head (GitHub's `PUT /pulls/{number}/update-branch`), and any branch or commit merged into a branch (`POST /merges`).
 */
export class BranchMerges {
  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'gitDirOf' | 'refsOf' | 'resolveCommit'>,
    private readonly refs: Pick<RefUpdateService, 'apply'>,
    private readonly now: () => string,
    private readonly committerEmail: (user: UserRow) => string,
    /** Runs work on a repository that can be neither deleted nor renamed meanwhile (RepositoryService.whileUnchanged). */
    private readonly whileUnchanged: <T>(repo: RepositoryRow, work: (current: RepositoryRow) => Promise<T>) => Promise<T>,
  ) {}

  /** The base of an open pull request merged into its head branch; `expectedHeadSha` guards the head. */
  async updatePullBranch(repo: RepositoryRow, viewer: Viewer, pull: PullRow, expectedHeadSha: unknown): Promise<{ sha: string }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Updating a branch needs write access');
    if (pull.status !== 'open') throw invalid('the pull request is not open');
    if (expectedHeadSha !== undefined && expectedHeadSha !== null && typeof expectedHeadSha !== 'string') throw invalid('expected_head_sha must be a commit id');
    // git runs in the repository's folder: a rename or a delete must not move it meanwhile (409 or 404 instead).
    return await this.whileUnchanged(repo, async (current) => {
      const refs = await this.git.refsOf(current.owner_name, current.name);
      const head = refs.get(`${BRANCH}${pull.head}`);
      const base = refs.get(`${BRANCH}${pull.base}`);
      if (!head) throw invalid(`head branch '${pull.head}' no longer exists`);
      if (!base) throw invalid(`base branch '${pull.base}' no longer exists`);
      if (typeof expectedHeadSha === 'string' && expectedHeadSha !== head) throw invalid("expected head sha didn't match current head ref.");
      const gitDir = await this.git.gitDirOf(current.owner_name, current.name);
      if (await isAncestor(gitDir, base, head)) throw invalid('There are no new commits on the base branch.');
      const sha = await this.commitMerge(current, viewer, gitDir, pull.head, head, base, `Merge branch '${pull.base}' into ${pull.head}\n`);
      if (sha === 'conflict') throw invalid('merge conflict between base and head');
      return { sha };
    });
  }

  /**
   * `head` (a branch or a commit) merged into the branch `base` as a merge commit, even where a fast-forward would do
   * (as GitHub does); up to date when `base` already holds it. The message defaults to GitHub's "Merge {head} into {base}".
   */
  async mergeIntoBranch(repo: RepositoryRow, viewer: Viewer, base: unknown, head: unknown, message: unknown): Promise<BranchMergeOutcome> {
    await requireAccess(this.store, viewer, repo, 'write', 'Merging needs write access');
    if (typeof base !== 'string' || base === '') throw invalid('base must be a branch name');
    if (typeof head !== 'string' || head === '') throw invalid('head must be a branch name or a commit id');
    if (message !== undefined && message !== null && typeof message !== 'string') throw invalid('commit_message must be a string');
    return await this.whileUnchanged(repo, async (current) => {
      const refs = await this.git.refsOf(current.owner_name, current.name);
      const baseTip = refs.get(`${BRANCH}${base}`);
      if (!baseTip) return 'no-base';
      const headTip = refs.get(`${BRANCH}${head}`) ?? (await this.git.resolveCommit(current.owner_name, current.name, head));
      if (!headTip) return 'no-head';
      const gitDir = await this.git.gitDirOf(current.owner_name, current.name);
      if (await isAncestor(gitDir, headTip, baseTip)) return 'up-to-date';
      const sha = await this.commitMerge(current, viewer, gitDir, base, baseTip, headTip, message || `Merge ${head} into ${base}`);
      return sha === 'conflict' ? sha : { merged: sha };
    });
  }

  /** A merge commit of `theirs` into the branch at `ours`, by the viewer, moving the branch; 'conflict' when the trees conflict. */
  private async commitMerge(repo: RepositoryRow, viewer: Viewer, gitDir: string, branch: string, ours: string, theirs: string, message: string): Promise<string | 'conflict'> {
    const merged = await mergeTree(gitDir, ours, theirs);
    if ('conflicts' in merged) return 'conflict';
    const identity = { name: viewer!.full_name || viewer!.username, email: this.committerEmail(viewer!), date: this.now() };
    const sha = await commitTree(gitDir, { tree: merged.tree, parents: [ours, theirs], message, author: identity });
    await this.refs.apply(repo, viewer, { ref: `${BRANCH}${branch}`, after: sha, mustExist: true, expected: ours });
    return sha;
  }
}
