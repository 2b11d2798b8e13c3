import type { ConcurrencyGate } from '../concurrency-gate.js';
import type { Db, SharedLocks, WriteTx } from '../store/interface.js';
import { conflict, invalid, notFound, RepoHostError, RepositoryMoved, unavailable } from '../errors.js';
import {
  branchesOf,
  countPublicRepositories,
  countBranchesOf,
  countRepositoriesOfOwner,
  repositoryCountsOfOwner,
  deleteBranch,
  deleteRepository,
  insertRepository,
  publicRepositories,
  repositoriesOfOwner,
  repositoryById,
  repositoryByFullName,
  repositoryByName,
  redirectedRepository,
  renameRepository,
  dropRedirect,
  setDefaultBranch,
  setRepositoryDetails,
  upsertBranch,
  markPushed,
  type RepositoryRow,
} from '../store/queries/repositories.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { userById, type UserRow } from '../store/queries/users.js';
import { NOTHING_PUSHED, type EventRecorder } from '../events/index.js';
import { deleteRefBackfill, deleteRefIntent, deleteRefIntentsOf, recordedRef, setOtherRef } from '../store/queries/refs.js';
import type { FileEntry, GitBackend, RefChange } from './git-backend.js';
import { isPlausibleName, validateRepositoryName } from './names.js';
import { optionalText } from './text-fields.js';
import { NameReservations } from './name-reservations.js';
import { closeReferencedIssues } from './closing-keywords.js';
import { keptCount } from '../store/queries/list-counts.js';
import { writeToRepository } from './repository-write.js';
import { accessLevel, accessLevels, permissionFlags, requireAccess, type AccessLevel, type Viewer } from './permissions.js';

/** The repository summary of the API (spec §2), with a few Gitea-style extras. */
export interface RepositorySummary {
  id: number;
  name: string;
  user_name: string;
  full_name: string;
  description: string;
  private: boolean;
  default_branch: string;
  clone_url: string;
  /** The SSH clone URL (Gitea's field), '' when the host does not serve SSH. */
  ssh_url: string;
  /** What the caller may do, as GitHub's `permissions`. */
  permissions: { admin: boolean; push: boolean; pull: boolean };
}

export interface NewRepository {
  name: unknown;
  description?: unknown;
  visibility?: unknown;
  cloneUrl?: unknown;
}

export type { Viewer } from './permissions.js';

/** The longest description a repository takes. */
export const MAX_DESCRIPTION = 2048;
const IMPORT_RETRY_SECONDS = 10;
const BUSY = 'another change to this repository is in progress; try again';
const BUSY_OR_TAKEN = 'repository already exists, or another change to it is in progress';
const ZERO_SHA = /^0+$/;
const BRANCH_PREFIX = 'refs/heads/';

function parseVisibility(value: unknown): boolean {
  if (value === undefined || value === null || value === '' || value === 'public') return false;
  if (value === 'private') return true;
  throw invalid("repo_visibility must be 'public' or 'private'");
}

/** Gitea's `private` field: a boolean (or its text), as the visibility it names. */
function parsePrivateFlag(value: unknown): 'private' | 'public' {
  if (value === true || value === 'true') return 'private';
  if (value === false || value === 'false') return 'public';
  throw invalid('private must be true or false');
}

export class RepositoryService {
  /** Names an operation is changing right now: create, import, rename and delete all reserve them the same way. */
  private readonly names: NameReservations;

  constructor(
    private readonly store: Db,
    private readonly git: GitBackend,
    private readonly baseUrl: () => string,
    /** The SSH clone URL of `owner/name`, or '' without SSH. */
    private readonly sshUrl: (fullName: string) => string,
    private readonly now: () => string,
    /** Imports running at once, in all and per user. */
    private readonly imports: ConcurrencyGate,
    private readonly events: EventRecorder,
    /** Locks other instances of the database see (PostgreSQL); none when this process is the only one. */
    sharedLocks?: SharedLocks,
  ) {
    this.names = new NameReservations(sharedLocks);
  }

  async create(owner: UserRow, input: NewRepository): Promise<RepositoryRow> {
    const name = validateRepositoryName(input.name);
    const description = optionalText('description', input.description, MAX_DESCRIPTION);
    const isPrivate = parseVisibility(input.visibility);
    const cloneUrl = optionalText('clone_url', input.cloneUrl, 2048).trim();
    const place = cloneUrl ? this.imports.enter(String(owner.id)) : () => undefined;
    if (place === 'busy') throw unavailable('Too many imports are running; try again shortly', IMPORT_RETRY_SECONDS);
    if (place === 'client-busy') throw new RepoHostError('rate_limited', 'You have as many imports running as allowed; try again when one has finished', IMPORT_RETRY_SECONDS);
    try {
      return await this.createHolding(owner, { name, description, isPrivate, cloneUrl });
    } finally {
      place();
    }
  }

  private createHolding(owner: UserRow, { name, description, isPrivate, cloneUrl }: { name: string; description: string; isPrivate: boolean; cloneUrl: string }): Promise<RepositoryRow> {
    return this.names.with(owner.id, [name], 'repository already exists', async () => {
      if (await repositoryByName(this.store, owner.id, name)) throw conflict('repository already exists');
      // A folder without a record is what a crash between the two left behind: nothing ever acknowledged it.
      if (await this.git.exists(owner.username, name)) await this.git.remove(owner.username, name);
      if (cloneUrl) await this.git.importFrom(owner.username, name, cloneUrl);
      else await this.git.create(owner.username, name);
      try {
        const refs = await this.git.refsOf(owner.username, name);
        const head = await this.git.headBranch(owner.username, name);
        const now = this.now();
        const id = await this.store.write(async (tx) => {
          if (await repositoryByName(tx, owner.id, name)) throw conflict('repository already exists');
          // HEAD is the default branch: `main` for a new repository, the source's for an import (as git clone does).
          const repoId = await insertRepository(tx, { ownerId: owner.id, name, description, isPrivate, defaultBranch: head, now });
          // A renamed repository's old name redirects only until a repository takes it again.
          await dropRedirect(tx, owner.id, name);
          for (const [ref, sha] of refs) {
            if (ref.startsWith(BRANCH_PREFIX)) await upsertBranch(tx, repoId, ref.slice(BRANCH_PREFIX.length), sha, now);
            else await setOtherRef(tx, repoId, ref, sha);
          }
          return repoId;
        });
        return (await repositoryById(this.store, id))!;
      } catch (error) {
        // Ours to remove: this operation made the folder and holds its name.
        await this.git.remove(owner.username, name).catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Runs `work` on the repository as it is now, while it can be neither deleted nor renamed (those answer 409 then):
   * the operations that change its contents in git (merges) take part in the same reservations as create, rename and
   * delete, so git never runs in a folder that moved. 404 when it is gone, 409 while a delete or rename runs.
   */
  async whileUnchanged<T>(repo: Pick<RepositoryRow, 'id' | 'owner_id' | 'name'>, work: (current: RepositoryRow) => Promise<T>): Promise<T> {
    const release = await this.names.share(repo.owner_id, repo.name, BUSY);
    try {
      const current = await repositoryById(this.store, repo.id);
      if (!current || current.name !== repo.name) throw notFound('Not found');
      return await work(current);
    } finally {
      await release();
    }
  }

  /** Deletes a repository: the record first (durable), then its folder, holding the name throughout. */
  async remove(viewer: Viewer, ownerName: string, repoName: string): Promise<void> {
    const repo = await this.administeredBy(viewer, ownerName, repoName);
    await this.names.with(repo.owner_id, [repo.name], BUSY, async () => {
      await writeToRepository(this.store, repo, async (tx) => await deleteRepository(tx, repo.id));
      this.git.forgetObjects(repo);
      await this.git.remove(repo.owner_name, repo.name);
    });
  }

  /** Renames a repository; the folder moves with the record, holding both names throughout. */
  async rename(viewer: Viewer, ownerName: string, repoName: string, newName: unknown): Promise<RepositoryRow> {
    const repo = await this.administeredBy(viewer, ownerName, repoName);
    const name = validateRepositoryName(newName);
    if (name === repo.name) return repo;
    const renamingCase = name.toLowerCase() === repo.name.toLowerCase();
    const release = await this.names.reserve(repo.owner_id, renamingCase ? [repo.name] : [repo.name, name], BUSY_OR_TAKEN);
    try {
      const clash = await repositoryByName(this.store, repo.owner_id, name);
      if (clash && clash.id !== repo.id) throw conflict('repository already exists');
      await this.git.rename(repo.owner_name, repo.name, name);
      try {
        const now = this.now();
        await writeToRepository(this.store, repo, async (tx) => {
          await renameRepository(tx, repo.id, name, now);
          await this.events.record(tx, repo, viewer, 'repository', { action: 'renamed', changes: { repository: { name: { from: repo.name } } } });
        });
      } catch (error) {
        await this.git.rename(repo.owner_name, name, repo.name).catch(() => undefined);
        throw error;
      }
      return (await repositoryById(this.store, repo.id))!;
    } finally {
      // Awaited: whoever hears the answer may use either name at once through another instance.
      await release();
    }
  }

  /**
   * PATCH of a repository, as Gitea takes it: any of `name` (a rename), `description`, and the visibility as
   * `private` (a boolean) or `visibility`. A body naming none of them is a rename without a name (400).
   */
  async update(viewer: Viewer, ownerName: string, repoName: string, input: { name?: unknown; description?: unknown; private?: unknown; visibility?: unknown }): Promise<RepositoryRow> {
    const visibility = input.private === undefined ? input.visibility : parsePrivateFlag(input.private);
    const details = input.description !== undefined || visibility !== undefined;
    // Checked before anything changes, so a bad field never leaves a half-done update behind.
    if (input.description !== undefined) optionalText('description', input.description, MAX_DESCRIPTION);
    if (visibility !== undefined) parseVisibility(visibility);
    let repo = input.name !== undefined || !details ? await this.rename(viewer, ownerName, repoName, input.name) : await this.administeredBy(viewer, ownerName, repoName);
    if (details) repo = await this.updateDetails(viewer, repo.owner_name, repo.name, { description: input.description, visibility });
    return repo;
  }

  /**
   * Changes the description and visibility (the settings page), telling hooks as GitHub does: `repository` `edited`
   * with the description it had, `privatized` or `publicized`.
   */
  async updateDetails(viewer: Viewer, ownerName: string, repoName: string, input: { description?: unknown; visibility?: unknown }): Promise<RepositoryRow> {
    const repo = await this.administeredBy(viewer, ownerName, repoName);
    const described = input.description === undefined ? undefined : optionalText('description', input.description, MAX_DESCRIPTION);
    const privately = input.visibility === undefined ? undefined : parseVisibility(input.visibility);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      // What is not changed is kept as it is now, not as it was read before the write (an edit of the other may have
      // come between).
      const before = (await repositoryById(tx, repo.id))!;
      const description = described ?? before.description;
      const isPrivate = privately ?? before.is_private === 1;
      await setRepositoryDetails(tx, repo.id, { description, isPrivate }, now);
      if (description !== before.description) await this.events.record(tx, repo, viewer, 'repository', { action: 'edited', changes: { description: { from: before.description || null } } });
      if (isPrivate !== (before.is_private === 1)) await this.events.record(tx, repo, viewer, 'repository', { action: isPrivate ? 'privatized' : 'publicized' });
    });
    return (await repositoryById(this.store, repo.id))!;
  }

  /**
   * Makes an existing branch the default (GitHub's `default_branch`): git's HEAD first, which the record follows
   * (a crash between the two is mended by the next push: recordPush takes HEAD's branch).
   */
  async setDefaultBranch(viewer: Viewer, ownerName: string, repoName: string, branch: unknown): Promise<RepositoryRow> {
    const repo = await this.administeredBy(viewer, ownerName, repoName);
    if (typeof branch !== 'string' || !(await this.git.refsOf(repo.owner_name, repo.name)).has(`${BRANCH_PREFIX}${branch}`)) throw invalid('default_branch must name a branch of the repository');
    if (branch === repo.default_branch) return repo;
    await this.git.setHeadBranch(repo.owner_name, repo.name, branch);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const before = (await repositoryById(tx, repo.id))!;
      await setDefaultBranch(tx, repo.id, branch, now);
      await this.events.record(tx, repo, viewer, 'repository', { action: 'edited', changes: { default_branch: { from: before.default_branch } } });
    });
    return (await repositoryById(this.store, repo.id))!;
  }

  /** Settings need admin: others see 404 for a private repository they cannot read and 403 otherwise. */
  async administeredBy(viewer: Viewer, ownerName: string, repoName: string): Promise<RepositoryRow> {
    const repo = await this.visibleByName(viewer, ownerName, repoName);
    await requireAccess(this.store, viewer, repo, 'admin', 'Only admins may change this repository');
    return repo;
  }

  /** What the viewer may do with the repository (see permissions.ts). */
  async access(viewer: Viewer, repo: RepositoryRow): Promise<AccessLevel> {
    return await accessLevel(this.store, viewer, repo);
  }

  /** `access` to each of several repositories (a list's), by id, in one query. */
  async accessToEach(viewer: Viewer, repos: readonly RepositoryRow[]): Promise<Map<number, AccessLevel>> {
    return await accessLevels(this.store, viewer, repos);
  }

  /**
   * The repository if the viewer may see it; otherwise not found, so private repositories do not leak. A former name
   * of a repository the viewer may see answers RepositoryMoved (its new name), which every layer turns into a redirect.
   */
  async visibleByName(viewer: Viewer, ownerName: string, repoName: string): Promise<RepositoryRow> {
    const repo = await this.findByName(ownerName, repoName);
    if (repo && (await this.access(viewer, repo)) !== 'none') return repo;
    const moved = repo ? undefined : await this.movedTo(viewer, ownerName, repoName);
    if (moved) throw new RepositoryMoved({ owner: ownerName, name: repoName }, moved);
    throw notFound('Not found');
  }

  /** Where a former name of a repository leads, if the viewer may see that repository (nothing leaks otherwise). */
  async movedTo(viewer: Viewer, ownerName: string, repoName: string): Promise<RepositoryRow | undefined> {
    const moved = await redirectedRepository(this.store, ownerName, repoName);
    return moved && (await this.access(viewer, moved)) !== 'none' ? moved : undefined;
  }

  async visibleById(viewer: Viewer, id: number): Promise<RepositoryRow> {
    const repo = Number.isSafeInteger(id) ? await repositoryById(this.store, id) : undefined;
    if (!repo || await this.access(viewer, repo) === 'none') throw notFound('Not found');
    return repo;
  }

  async findByName(ownerName: string, repoName: string): Promise<RepositoryRow | undefined> {
    if (!isPlausibleName(ownerName) || !isPlausibleName(repoName)) return undefined;
    return await repositoryByFullName(this.store, ownerName, repoName);
  }

  /** The owner's repositories the viewer may read, a page at a time. */
  async listOfOwner(viewer: Viewer, owner: UserRow, page: PageWindow): Promise<{ items: RepositoryRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await repositoriesOfOwner(tx, owner.id, viewer?.id, page), total: await countRepositoriesOfOwner(tx, owner.id, viewer?.id) }));
  }

  /** How many public and private repositories an account owns. */
  async countsOf(owner: UserRow): Promise<{ public: number; private: number }> {
    return await repositoryCountsOfOwner(this.store, owner.id);
  }

  /** Public repositories whose name contains `search`, newest first, a page at a time (the Explore page). */
  async explore(search: string, page: PageWindow): Promise<{ items: RepositoryRow[]; total: number }> {
    const text = search.trim().slice(0, 100);
    return await this.store.read(async (tx) => ({ items: await publicRepositories(tx, text, page), total: await countPublicRepositories(tx, text) }));
  }

  async summary(repo: RepositoryRow, viewer?: Viewer): Promise<RepositorySummary> {
    return {
      id: repo.id,
      name: repo.name,
      user_name: repo.owner_name,
      full_name: `${repo.owner_name}/${repo.name}`,
      description: repo.description,
      private: repo.is_private === 1,
      default_branch: repo.default_branch,
      clone_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}.git`,
      ssh_url: this.sshUrl(`${repo.owner_name}/${repo.name}`),
      permissions: permissionFlags(await this.access(viewer, repo)),
    };
  }

  countBranches(repo: RepositoryRow): Promise<number> {
    return this.git.countBranches(repo.owner_name, repo.name);
  }

  countCommits(repo: RepositoryRow, branch: string): Promise<number> {
    return this.git.countCommits(repo.owner_name, repo.name, branch);
  }

  listFiles(repo: RepositoryRow, branch: string, path?: string): Promise<FileEntry[]> {
    return this.git.listFiles(repo.owner_name, repo.name, branch, path);
  }

  async branches(repo: RepositoryRow, page: PageWindow): Promise<{ items: Array<{ name: string; commit_sha: string }>; total: number }> {
    return await this.store.read(async (tx) => ({ items: await branchesOf(tx, repo.id, page), total: await countBranchesOf(tx, repo.id) }));
  }

  /**
   * Records what a push changed (branches and other refs created, moved and deleted, the default branch as git's
   * HEAD) with its events, in one write that also clears the push's intent (see ref-updates.ts): `create`/`delete`
   * for refs that appeared or went, and a `push` per ref. `reconciled` marks changes found after a crash.
   */
  async recordPush(
    repo: RepositoryRow,
    changes: readonly RefChange[],
    headBranch: string,
    pusher: UserRow | undefined,
    extra: {
      intentId?: number;
      reconciled?: boolean;
      backfill?: boolean;
      reconciling?: boolean;
      clearHolders?: readonly string[];
      /** Checked first inside the write: an error to refuse it with when what `changes` was computed from is outdated. */
      unlessOutdated?: (tx: WriteTx) => Promise<Error | undefined>;
    } = {},
  ): Promise<{ inOrder: boolean }> {
    // The commits are read before the write (git runs cannot happen inside it), and only when someone will hear of
    // them; without them the refs still count.
    // Apps that write checks and hear `check_suite` are asked for suites of the new heads (see CheckEvents.requestSuites).
    const heard = changes.length > 0 && !extra.backfill && ((await this.events.anyoneHears(this.store, repo.id, ['push', 'create', 'delete'])) || (await this.events.installationsHearing(this.store, repo.id, 'check_suite')).length > 0);
    // Commits reaching the default branch may close issues (closing keywords): theirs are read whoever hears.
    // Read only where an open issue could be closed: most pushes pay nothing for it.
    const toDefault =
      !extra.backfill && changes.some((change) => change.ref === `${BRANCH_PREFIX}${headBranch}` && !ZERO_SHA.test(change.after)) && (await keptCount(this.store, repo.id, 'issue', ['open'])) > 0;
    const pushed = heard || toDefault ? await this.git.pushedRefs(repo.owner_name, repo.name, changes).catch(() => changes.map(() => NOTHING_PUSHED)) : changes.map(() => NOTHING_PUSHED);
    const messages = changes.flatMap((change, index) => (change.ref === `${BRANCH_PREFIX}${headBranch}` ? (pushed[index]?.commits ?? []).map((commit) => commit.message) : []));
    const now = this.now();
    return await writeToRepository(this.store, repo, async (tx) => {
      const outdated = await extra.unlessOutdated?.(tx);
      if (outdated) throw outdated;
      // A change recorded after a later one of the same ref (two pushes whose records crossed) would take the record
      // back: it is left out, and the intent kept, so the repository is compared with git once this write is done.
      let inOrder = true;
      // Deletes of a ref already gone: git answers "ok" to deleting a ref that no longer exists (from nothing to
      // nothing, or from a value the record no longer has), so deletes racing each other all report success; only the
      // one that removed it is recorded and told of.
      const alreadyGone = new Set<RefChange>();
      for (const change of changes) {
        if (ZERO_SHA.test(change.before) && ZERO_SHA.test(change.after)) {
          alreadyGone.add(change);
          continue;
        }
        const before = ZERO_SHA.test(change.before) ? undefined : change.before;
        const recorded = extra.reconciling || extra.backfill ? before : await recordedRef(tx, repo.id, change.ref);
        if (recorded !== before) {
          inOrder = false;
          if (ZERO_SHA.test(change.after) && recorded === undefined) alreadyGone.add(change);
          continue;
        }
        const after = ZERO_SHA.test(change.after) ? null : change.after;
        if (!change.ref.startsWith(BRANCH_PREFIX)) await setOtherRef(tx, repo.id, change.ref, after);
        else if (after === null) await deleteBranch(tx, repo.id, change.ref.slice(BRANCH_PREFIX.length));
        else await upsertBranch(tx, repo.id, change.ref.slice(BRANCH_PREFIX.length), after, now);
      }
      if (headBranch !== repo.default_branch) await setDefaultBranch(tx, repo.id, headBranch, now);
      if (changes.some((change) => !alreadyGone.has(change))) await markPushed(tx, repo.id, now);
      if (extra.intentId !== undefined && inOrder) await deleteRefIntent(tx, extra.intentId);
      if (extra.reconciling) {
        // Only intents of instances that no longer move refs (another instance's push may be under way).
        await deleteRefIntentsOf(tx, repo.id, extra.clearHolders);
        await deleteRefBackfill(tx, repo.id);
      }
      if (heard) {
        const told = changes.flatMap((change, index) => (alreadyGone.has(change) ? [] : [{ change, pushed: pushed[index]! }]));
        await this.events.recordRefChanges(tx, repo, pusher, told.map((item) => item.change), told.map((item) => item.pushed), { reconciled: extra.reconciled });
      }
      if (messages.length > 0) await closeReferencedIssues(tx, this.events, repo, pusher ?? (await userById(tx, repo.owner_id))!, messages, now);
      return { inOrder };
    });
  }
}
