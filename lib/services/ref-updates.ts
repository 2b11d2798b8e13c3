import { conflict, forbidden, invalid, RepoHostError } from '../errors.js';
import type { Db, ReadTx, SharedLocks, WriteTx } from '../store/interface.js';
import { isAncestor } from '../git/ancestry.js';
import { objectInfo } from '../git/objects.js';
import { deleteRef, RefMovedError, updateRef } from '../git/ref-writes.js';
import { isSafeBranchName } from '../git/names.js';
import { defaultBranchRefusal, pushRefusal, type UnmetChecks } from '../git/push-rules.js';
import type { RefCheck } from '../git/push/session.js';
import { diffRefs } from '../git/refs.js';
import { recordedRefs, refIntentHolders, repositoriesToReconcile } from '../store/queries/refs.js';
import { repositoryById } from '../store/queries/repositories.js';
import type { RefIntent, RefJournal } from './ref-journal.js';
import type { GitRepositories } from '../git/repositories.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import type { BranchProtectionService } from './branch-protection.js';
import type { RefChange } from './git-backend.js';
import { requireAccess, type Viewer } from './permissions.js';
import type { MergeGates } from './merge-gates.js';
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

/** A comparison of refs that another running instance could have overtaken (see `RefUpdateService.reconcile`). */
export class RefsMovingElsewhere extends RepoHostError {
  constructor(repo: Pick<RepositoryRow, 'owner_name' | 'name'>) {
    super('conflict', `the refs of ${repo.owner_name}/${repo.name} are moving through another instance`);
    this.name = 'RefsMovingElsewhere';
  }
}

/** Tries of a comparison that another instance keeps overtaking, and the wait before the next (times the try). */
const RECONCILE_ATTEMPTS = 4;
const RECONCILE_RETRY_MS = 100;

/** Two sets of refs are the same names at the same ids. */
function sameRefs(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [ref, sha] of a) if (b.get(ref) !== sha) return false;
  return true;
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

/** The options a push runs with (see `ServeGitOptions` in git/repositories.ts). */
export interface PushOptions {
  perRefRefusals: boolean;
  onReceiveStart: () => void;
  checkPush: RefCheck;
  /** Undefined where no push may skip its hook (rules on the repository, several instances). */
  admitWithoutHook?: (commands: RefChange[]) => Promise<{ ready: Promise<void> } | undefined>;
  onPushed: (changes: RefChange[] | null, headBranch: string | undefined) => Promise<void>;
  onUnasked: () => Promise<void>;
}

/**
 * Ref changes and what follows them, the same for a git push and for the API: branch and ref records, HEAD,
 * push/create/delete events (webhooks included) and pull requests following their branches. Every ref change passes
 * the one protection rule (`pushRefusal`), read when the ref is about to move, and is noted in the ref journal first,
 * so that the database and the repositories never disagree after a crash (see `reconcile`).
 */
export class RefUpdateService {
  constructor(
    private readonly store: Db,
    private readonly git: RefGit,
    private readonly repos: RepositoryService,
    private readonly pulls: Pick<PullService, 'afterRefsMoved'>,
    private readonly gates: Pick<MergeGates, 'unmetContexts'>,
    private readonly protection: BranchProtectionService,
    private readonly journal: RefJournal,
    /** Other instances of the database (PostgreSQL): at start, what a running one is doing is not reconciled. */
    private readonly sharedLocks?: SharedLocks,
  ) {
    journal.reconcileWith(async (repoId) => {
      const repo = await repositoryById(this.store, repoId);
      if (repo) await this.reconcile(repo);
    });
  }

  /** Stops comparisons waiting to be tried again (the host closes). */
  close(): void {
    this.journal.close();
  }

  /** Notes durably that refs of the repository are about to move by hand (seeds, fixtures); pass it to `recordChanges`. */
  intend(repo: RepositoryRow): Promise<RefIntent> {
    return this.journal.open(repo);
  }

  /** Records refs that moved (after a push, or an update below): one path for both. */
  async recordChanges(repo: RepositoryRow, changes: readonly RefChange[], headBranch: string, pusher: UserRow | undefined, intent?: RefIntent): Promise<void> {
    let recorded: { inOrder: boolean };
    try {
      recorded = await this.repos.recordPush(repo, changes, headBranch, pusher, { intentId: intent?.id });
    } catch (error) {
      await intent?.close(false);
      throw error;
    }
    // Out of order (see recordPush): the intent stays, and the repository is compared with git.
    await intent?.close(recorded.inOrder);
    await this.pulls.afterRefsMoved(repo, changes, pusher);
  }

  /**
   * How a push by `pusher` runs: the rules are read when its pre-receive hook asks (the pack is in, no ref moved yet),
   * an intent is noted before anything may move, and git's own list of what moved is recorded before the answer ends.
   * Refusals are per ref when the repository had rules as the push began, else they end the whole push.
   */
  async pushOptions(repo: RepositoryRow, pusher: UserRow | undefined): Promise<PushOptions> {
    const perRef = (await this.protection.pushRules(repo, pusher)).length > 0;
    // The intent is noted while the pack arrives, so that by the time the hook asks it is on disk and costs the push
    // nothing; it is taken back when nothing may move (or the hook never asked).
    let noting: Promise<RefIntent> | undefined;
    const note = (): Promise<RefIntent> => {
      if (!noting) {
        noting = this.journal.open(repo);
        noting.catch(() => undefined);
      }
      return noting;
    };
    let intent: RefIntent | undefined;
    // A push admitted with no rule to check runs without a hook (see BranchProtectionService.admitWithoutRules).
    let admitted: (() => void) | undefined;
    const over = () => {
      admitted?.();
      admitted = undefined;
    };
    return {
      perRefRefusals: perRef,
      onReceiveStart: () => void note(),
      // With other instances a rule may be made elsewhere meanwhile: their pushes' hooks read the rules.
      admitWithoutHook: this.sharedLocks || perRef ? undefined : async (commands) => {
        admitted = await this.protection.admitWithoutRules(repo, pusher);
        if (!admitted) return undefined;
        // What is refused whatever the rules (a branch named HEAD) is refused by the hook, with its reason.
        for (const change of commands) {
          if ((await pushRefusal([], change.ref, change.before, change.after, () => true, async () => [], repo.default_branch)) !== undefined) {
            over();
            return undefined;
          }
        }
        // The intent is on disk before receive-pack gets the body, so before any ref may move.
        const ready = note().then((noted) => {
          intent = noted;
        });
        ready.catch(over);
        return { ready };
      },
      checkPush: async (proposed, isFastForward) => {
        const refusals = new Map<string, string>();
        try {
          const rules = await this.protection.pushRules(repo, pusher);
          for (const change of proposed) {
            const why = await pushRefusal(rules, change.ref, change.before, change.after, () => isFastForward(change.before, change.after), this.unmetChecksOf(repo), repo.default_branch);
            if (why !== undefined) refusals.set(change.ref, why);
          }
        } catch (error) {
          // The hook is told, and refuses the push: nothing moves, and the intent goes.
          const noted = await noting?.catch(() => undefined);
          if (noted) await this.journal.discard(repo, noted);
          throw error;
        }
        const mayMove = perRef ? refusals.size < proposed.length : refusals.size === 0;
        const noted = await note();
        if (mayMove) intent = noted;
        else await this.journal.discard(repo, noted);
        return refusals;
      },
      onPushed: async (changes, headBranch) => {
        try {
          if (!intent) return;
          if (changes === null) return await intent.close(false);
          await this.recordChanges(repo, changes, headBranch ?? repo.default_branch, pusher, intent);
        } finally {
          over();
        }
      },
      onUnasked: async () => {
        try {
          const noted = await noting?.catch(() => undefined);
          if (noted) await this.journal.discard(repo, noted);
        } finally {
          over();
        }
      },
    };
  }

  /**
   * Compares the repository's refs in the database with git's and records what differs, with its events marked
   * `repohost_reconciled` (sent by nobody, found after the fact), and pull requests follow. Clears its intents. With
   * `backfill` (a repository from before refs other than branches were recorded) nothing is announced.
   *
   * With other instances (PostgreSQL), one of them may be moving refs of the repository meanwhile: the comparison is
   * recorded only if, inside the recording write, no running instance holds an intent on the repository and the
   * recorded refs are still those it compared (else a change that instance records itself would be recorded twice, or
   * one recorded after git was read would be taken back). It is tried again a few times, then refused.
   */
  async reconcile(repo: RepositoryRow, options: { backfill?: boolean } = {}): Promise<RefChange[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        const changes = await this.compareAndRecord(repo, options);
        if (changes.length > 0 && !options.backfill) await this.pulls.afterRefsMoved(repo, changes, undefined);
        return changes;
      } catch (error) {
        if (!(error instanceof RefsMovingElsewhere) || attempt >= RECONCILE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, RECONCILE_RETRY_MS * attempt));
      }
    }
  }

  /** One comparison, recorded unless another running instance may have overtaken it (then `RefsMovingElsewhere`). */
  private async compareAndRecord(repo: RepositoryRow, options: { backfill?: boolean }): Promise<RefChange[]> {
    const recorded = await recordedRefs(this.store, repo.id);
    if (await this.runningElsewhere(this.store, repo)) throw new RefsMovingElsewhere(repo);
    const clearHolders = await this.clearableHolders(repo);
    const changes = diffRefs(recorded, await this.git.refsOf(repo.owner_name, repo.name));
    const head = await this.git.afterPush(repo.owner_name, repo.name, changes);
    const unlessOutdated = this.sharedLocks
      ? async (tx: WriteTx) => (sameRefs(await recordedRefs(tx, repo.id), recorded) && !(await this.runningElsewhere(tx, repo)) ? undefined : new RefsMovingElsewhere(repo))
      : undefined;
    await this.repos.recordPush(repo, changes, head, undefined, { reconciled: !options.backfill, backfill: options.backfill, reconciling: true, clearHolders, unlessOutdated });
    return changes;
  }

  /**
   * At start, before the host answers: every repository an intent was left for (a crash while its refs moved) is
   * reconciled, and repositories from before refs other than branches were recorded are read once. One that cannot be
   * read keeps its intent for the next start. Returns what was found, per repository.
   */
  async reconcilePending(log: (message: string) => void = () => undefined): Promise<Array<{ repo: string; changes: RefChange[] }>> {
    const found: Array<{ repo: string; changes: RefChange[] }> = [];
    for (const pending of await repositoriesToReconcile(this.store)) {
      const repo = await repositoryById(this.store, pending.repo_id);
      if (!repo) continue;
      if (await this.runningElsewhere(this.store, repo)) {
        log(`repohost: ${repo.owner_name}/${repo.name}: refs are moving through another instance; left to it`);
        continue;
      }
      try {
        const changes = await this.reconcile(repo, { backfill: pending.backfill === 1 });
        if (pending.backfill !== 1) found.push({ repo: `${repo.owner_name}/${repo.name}`, changes });
        if (changes.length > 0 && pending.backfill !== 1) log(`repohost: ${repo.owner_name}/${repo.name}: recorded ${changes.length} ref change(s) made before a crash`);
      } catch (error) {
        log(`repohost: ${repo.owner_name}/${repo.name}: its refs could not be compared with the database (${(error as Error).message}); will try again at the next start`);
      }
    }
    return found;
  }

  /**
   * The instances whose intents on the repository a comparison settles: this one, those from before instances were
   * named (''), and those no longer running; undefined (every intent) when this process is the only one. Another
   * running instance's intent stays: its refs may be moving, and it records them itself.
   */
  private async clearableHolders(repo: RepositoryRow): Promise<string[] | undefined> {
    if (!this.sharedLocks) return undefined;
    const clearable: string[] = [];
    for (const holder of await refIntentHolders(this.store, repo.id)) {
      if (holder === '' || holder === this.sharedLocks.instance || !(await this.sharedLocks.isRunning(holder))) clearable.push(holder);
    }
    return clearable;
  }

  /**
   * True when an instance that still runs holds an intent on the repository: its refs may be moving right now, and that
   * instance records them (comparing now could record them twice). What a stopped instance left is ours to compare.
   */
  private async runningElsewhere(db: ReadTx, repo: RepositoryRow): Promise<boolean> {
    if (!this.sharedLocks) return false;
    for (const holder of await refIntentHolders(db, repo.id)) {
      if (holder !== '' && holder !== this.sharedLocks.instance && (await this.sharedLocks.isRunning(holder))) return true;
    }
    return false;
  }

  /** Creates, moves or deletes one ref as a push by `viewer` would (write access, protection, fast-forward). */
  async apply(repo: RepositoryRow, viewer: Viewer, update: RefUpdate): Promise<RefChange> {
    await requireAccess(this.store, viewer, repo, 'write', 'Changing refs needs write access');
    if (!isMovableRef(update.ref)) throw new RefUpdateRefused('Invalid reference name');
    // git runs in the repository's folder: a rename or a delete must not move it meanwhile (409 or 404 instead).
    return await this.repos.whileUnchanged(repo, (current) => this.applyHolding(current, viewer, update));
  }

  /** The protection's ask of a commit a branch moves to: which required checks it has not passed. */
  private unmetChecksOf(repo: RepositoryRow): UnmetChecks {
    return (sha, contexts) => this.gates.unmetContexts(repo, sha, contexts);
  }

  private async applyHolding(repo: RepositoryRow, viewer: Viewer, update: RefUpdate): Promise<RefChange> {
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
    const refusal = await pushRefusal(await this.protection.pushRules(repo, viewer), update.ref, before, after ?? ZERO(before), () => fastForward, this.unmetChecksOf(repo), repo.default_branch);
    // Deleting the default branch is a request GitHub's API refuses as invalid (422); what protection refuses, 403.
    if (refusal !== undefined) throw refusal === defaultBranchRefusal(update.ref, after ?? ZERO(before), repo.default_branch) ? invalid(refusal) : forbidden(refusal);
    const intent = await this.journal.open(repo);
    try {
      if (after === null) await deleteRef(gitDir, update.ref, current, 'repohost api');
      else await updateRef(gitDir, update.ref, after, current ?? null, 'repohost api');
    } catch (error) {
      await this.journal.discard(repo, intent);
      if (error instanceof RefMovedError) throw conflict(`${update.ref} moved meanwhile; read it again`);
      throw error;
    }
    const change: RefChange = { ref: update.ref, before, after: after ?? ZERO(before) };
    const head = await this.git.afterPush(repo.owner_name, repo.name, [change]).catch(async (error: unknown) => {
      await intent.close(false);
      throw error;
    });
    await this.recordChanges(repo, [change], head, viewer, intent);
    return change;
  }
}
