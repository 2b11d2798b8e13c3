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

/**
 * Updating a pull request's branch (GitHub's `PUT /pulls/{number}/update-branch`): the base branch merged into the
 * head branch, as a merge commit by whoever asks, which then moves the head as a push of theirs would (write access,
 * the head branch's protection, the ref journal, the push and `synchronize` events).
 */
export class PullBranchUpdates {
  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'gitDirOf' | 'refsOf'>,
    private readonly refs: Pick<RefUpdateService, 'apply'>,
    private readonly now: () => string,
    private readonly committerEmail: (user: UserRow) => string,
    /** Runs work on a repository that can be neither deleted nor renamed meanwhile (RepositoryService.whileUnchanged). */
    private readonly whileUnchanged: <T>(repo: RepositoryRow, work: (current: RepositoryRow) => Promise<T>) => Promise<T>,
  ) {}

  async update(repo: RepositoryRow, viewer: Viewer, pull: PullRow, expectedHeadSha: unknown): Promise<{ sha: string }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Updating a branch needs write access');
    if (pull.status !== 'open') throw invalid('the pull request is not open');
    if (expectedHeadSha !== undefined && expectedHeadSha !== null && typeof expectedHeadSha !== 'string') throw invalid('expected_head_sha must be a commit id');
    // git runs in the repository's folder: a rename or a delete must not move it meanwhile (409 or 404 instead).
    return await this.whileUnchanged(repo, (current) => this.updateHolding(current, viewer, pull, expectedHeadSha));
  }

  private async updateHolding(repo: RepositoryRow, viewer: Viewer, pull: PullRow, expectedHeadSha: unknown): Promise<{ sha: string }> {
    const refs = await this.git.refsOf(repo.owner_name, repo.name);
    const head = refs.get(`${BRANCH}${pull.head}`);
    const base = refs.get(`${BRANCH}${pull.base}`);
    if (!head) throw invalid(`head branch '${pull.head}' no longer exists`);
    if (!base) throw invalid(`base branch '${pull.base}' no longer exists`);
    if (typeof expectedHeadSha === 'string' && expectedHeadSha !== head) throw invalid("expected head sha didn't match current head ref.");
    const gitDir = await this.git.gitDirOf(repo.owner_name, repo.name);
    if (await isAncestor(gitDir, base, head)) throw invalid('There are no new commits on the base branch.');
    const merged = await mergeTree(gitDir, head, base);
    if ('conflicts' in merged) throw invalid('merge conflict between base and head');
    const updater = viewer!;
    const identity = { name: updater.full_name || updater.username, email: this.committerEmail(updater), date: this.now() };
    const sha = await commitTree(gitDir, { tree: merged.tree, parents: [head, base], message: `Merge branch '${pull.base}' into ${pull.head}\n`, author: identity });
    await this.refs.apply(repo, viewer, { ref: `${BRANCH}${pull.head}`, after: sha, mustExist: true, expected: head });
    return { sha };
  }
}
