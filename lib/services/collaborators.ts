import { invalid, notFound } from '../errors.js';
import type { Db } from '../store/interface.js';
import { writeToRepository } from './repository-write.js';
import type { EventRecorder } from '../events/index.js';
import {
  collaboratorPermission,
  collaboratorsOf,
  countCollaborators,
  deleteCollaborator,
  upsertCollaborator,
  type CollaboratorPermission,
  type CollaboratorRow,
} from '../store/queries/collaborators.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { userByName, usersByNames, type UserRow } from '../store/queries/users.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { accessLevel, requireAccess, type AccessLevel, type Viewer } from './permissions.js';

const PERMISSIONS: readonly string[] = ['read', 'write', 'admin'];

/** A collaborator of the API: the user summary plus the permission granted. */
export interface Collaborator {
  id: number;
  username: string;
  full_name: string;
  avatar: string;
  permission: CollaboratorPermission;
}

/**
 * Who besides the owner may read, write or administer a repository. Listing needs write access (as on GitHub);
 * changing the list needs admin.
 */
export class CollaboratorService {
  constructor(
    private readonly store: Db,
    private readonly avatarUrl: (user: { avatar_file: string | null; username: string }) => string,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  async list(repo: RepositoryRow, viewer: Viewer, page: PageWindow): Promise<{ items: Collaborator[]; total: number }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Listing collaborators needs write access');
    return await this.store.read(async (tx) => ({ items: (await collaboratorsOf(tx, repo.id, page)).map((row) => this.summary(row)), total: await countCollaborators(tx, repo.id) }));
  }

  /**
   * The owner (an admin, first) and the collaborators by name, as GitHub lists them (`withOwner` false: the
   * collaborators alone); the same write access needed, in GitHub's words. A fixed three statements.
   */
  async listWithOwner(repo: RepositoryRow, viewer: Viewer, page: PageWindow, withOwner: boolean): Promise<{ items: Array<{ user: UserRow; permission: AccessLevel }>; total: number }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Must have push access to view repository collaborators.');
    const before = withOwner ? 1 : 0;
    const ownerShown = withOwner && page.offset === 0 && page.limit > 0;
    return await this.store.read(async (tx) => {
      const rows = await collaboratorsOf(tx, repo.id, { offset: Math.max(0, page.offset - before), limit: ownerShown ? page.limit - 1 : page.limit });
      const total = (await countCollaborators(tx, repo.id)) + before;
      const listed: Array<{ name: string; permission: AccessLevel }> = [...(ownerShown ? [{ name: repo.owner_name, permission: 'admin' as const }] : []), ...rows.map((row) => ({ name: row.username, permission: row.permission }))];
      const accounts = await usersByNames(tx, listed.map((entry) => entry.name));
      return { items: listed.flatMap(({ name, permission }) => (accounts.has(name.toLowerCase()) ? [{ user: accounts.get(name.toLowerCase())!, permission }] : [])), total };
    });
  }

  /** What `user` may do with the repository: anyone may ask about themselves, others need write (as for the list). */
  async permissionOf(repo: RepositoryRow, viewer: Viewer, user: UserRow): Promise<AccessLevel> {
    if (viewer?.id !== user.id) await requireAccess(this.store, viewer, repo, 'write', 'Reading the permissions of others needs write access');
    return await accessLevel(this.store, user, repo);
  }

  async set(repo: RepositoryRow, viewer: Viewer, username: string, permission: unknown): Promise<Collaborator> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Only admins may change collaborators');
    const granted = permission === undefined || permission === null || permission === '' ? 'write' : permission;
    if (typeof granted !== 'string' || !PERMISSIONS.includes(granted)) throw invalid("permission must be 'read', 'write' or 'admin'");
    const user = await this.user(username);
    if (user.id === repo.owner_id) throw invalid('the owner is always an admin of the repository');
    const now = this.now();
    const to = granted as CollaboratorPermission;
    await writeToRepository(this.store, repo, async (tx) => {
      const from = await collaboratorPermission(tx, repo.id, user.id);
      await upsertCollaborator(tx, repo.id, user.id, to, now);
      // GitHub's `member` event: added, or edited when the permission changed.
      if (from === to) return;
      const member = this.events.github.user(user);
      await this.events.record(tx, repo, viewer!, 'member', from === undefined
        ? { action: 'added', member, changes: { permission: { to } } }
        : { action: 'edited', member, changes: { old_permission: { from }, permission: { from, to } } });
    });
    return { id: user.id, ...this.userSummary(user), permission: granted as CollaboratorPermission };
  }

  async remove(repo: RepositoryRow, viewer: Viewer, username: string): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Only admins may change collaborators');
    const user = await this.user(username);
    const removed = await writeToRepository(this.store, repo, async (tx) => {
      const gone = await deleteCollaborator(tx, repo.id, user.id);
      if (gone) await this.events.record(tx, repo, viewer!, 'member', { action: 'removed', member: this.events.github.user(user) });
      return gone;
    });
    if (!removed) throw notFound('Collaborator not found');
  }

  private async user(username: string): Promise<UserRow> {
    const user = await userByName(this.store, username);
    if (!user) throw notFound('User not found');
    return user;
  }

  private userSummary(user: { username: string; full_name: string; avatar_file: string | null }): Omit<Collaborator, 'id' | 'permission'> {
    return { username: user.username, full_name: user.full_name, avatar: this.avatarUrl(user) };
  }

  private summary(row: CollaboratorRow): Collaborator {
    return { id: row.user_id, ...this.userSummary(row), permission: row.permission };
  }
}
