import { conflict, forbidden, RepoHostError } from '../errors.js';
import { isAncestor } from '../git/ancestry.js';
import { deleteRef, objectInfo, RefMovedError, updateRef } from '../git/objects.js';
import { isSafeBranchName } from '../git/names.js';
import { pushRefusal } from '../git/push-rules.js';
import type { GitRepositories } from '../git/repositories.js';
import type { Store } from '../store/database.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import type { BranchProtectionService } from './branch-protection.js';
import type { RefChange } from './git-backend.js';
import { requireAccess, type Viewer } from './permissions.js';
import type { PullService } from './pulls.js';
import type { RepositoryService } from './repos.js';

/** Why a ref update was refused, in GitHub's words (its API answers 422 with exactly this message). */
export class RefUpdateRefused extends RepoHostError {
  constructor(
    message: 'Reference already exists' | 'Reference does not exist' | 'Object does not exist' | 'Object is not a commit' | 'Update is not a fast forward' | 'Invalid reference name',
  ) {
    super('invalid', message);
    this.name = 'RefUpdateRefused';
  }
}

export interface RefUpdate {
  /** Full name: `refs/heads/...`, `refs/tags/...`. */
  ref: string;
  /** The new target, or null to delete the ref. */
  after: string | null;
  /** Allow a move that is not a fast-forward (git push --force). */
  force?: boolean;
  /** The ref must not exist yet (create) / must exist (update, delete). */
  mustExist: boolean;
  /** Where the ref must point now (a guard against a concurrent change); the current value when undefined. */
  expected?: string;
}

type RefGit = Pick<GitRepositories, 'gitDirOf' | 'afterPush' | 'refsOf'>;

const ZERO = (sample: string) => '0'.repeat(sample.length);

/** Names the API may move: branches and tags with names git accepts. */
function isMovableRef(ref: string): boolean {
  const match = /^refs\/(heads|tags)\/(.+)$/.exec(ref);
  return match !== null && isSafeBranchName(match[2]!);
}

/**
 * Ref changes and what follows them, the same for a git push and for the API: branch records, HEAD, push/create/
 * delete events (webhooks included) and pull requests following their branches. API updates are checked against
 * branch protection with the very rule git's update hook applies to pushes.
 */
export class RefUpdateService {
  constructor(
    private readonly store: Store,
    private readonly git: RefGit,
    private readonly repos: RepositoryService,
    private readonly pulls: PullService,
    private readonly protection: BranchProtectionService,
  ) {}

  /** Records refs that moved (after a push, or an update below): one path for both. */
  async recordChanges(repo: RepositoryRow, changes: readonly RefChange[], headBranch: string, pusher: UserRow | undefined, refsAfter?: ReadonlyMap<string, string>): Promise<void> {
    await this.repos.recordPush(repo, changes, headBranch, pusher, refsAfter);
    await this.pulls.afterRefsMoved(repo, changes, pusher);
  }

  /** Creates, moves or deletes one ref as a push by `viewer` would (write access, protection, fast-forward). */
  async apply(repo: RepositoryRow, viewer: Viewer, update: RefUpdate): Promise<RefChange> {
    requireAccess(this.store, viewer, repo, 'write', 'Changing refs needs write access');
    if (!isMovableRef(update.ref)) throw new RefUpdateRefused('Invalid reference name');
    const gitDir = await this.git.gitDirOf(repo.owner_name, repo.name);
    const current = (await this.git.refsOf(repo.owner_name, repo.name)).get(update.ref);
    if (update.mustExist && current === undefined) throw new RefUpdateRefused('Reference does not exist');
    if (!update.mustExist && current !== undefined) throw new RefUpdateRefused('Reference already exists');
    if (update.expected !== undefined && update.expected !== current) throw conflict(`${update.ref} moved meanwhile; read it again`);
    const after = update.after;
    const object = after === null ? undefined : await objectInfo(gitDir, after).catch(() => undefined);
    if (after !== null && !object) throw new RefUpdateRefused('Object does not exist');
    // A branch points at a commit (git refuses anything else there); a tag may name any object.
    if (update.ref.startsWith('refs/heads/') && object && object.type !== 'commit') throw new RefUpdateRefused('Object is not a commit');
    const before = current ?? ZERO(after ?? '0'.repeat(40));
    const fastForward = current === undefined || after === null || (await isAncestor(gitDir, current, after).catch(() => false));
    if (current !== undefined && after !== null && !fastForward && !update.force) throw new RefUpdateRefused('Update is not a fast forward');
    const refusal = pushRefusal(this.protection.pushRules(repo, viewer), update.ref, before, after ?? ZERO(before), () => fastForward);
    if (refusal !== undefined) throw forbidden(refusal);
    try {
      if (after === null) await deleteRef(gitDir, update.ref, current, 'repohost api');
      else await updateRef(gitDir, update.ref, after, current ?? null, 'repohost api');
    } catch (error) {
      if (error instanceof RefMovedError) throw conflict(`${update.ref} moved meanwhile; read it again`);
      throw error;
    }
    const change: RefChange = { ref: update.ref, before, after: after ?? ZERO(before) };
    const head = await this.git.afterPush(repo.owner_name, repo.name, [change]);
    await this.recordChanges(repo, [change], head, viewer);
    return change;
  }
}
