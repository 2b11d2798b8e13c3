import { invalid, notFound } from '../errors.js';
import { parsePublicKey } from './ssh-key-format.js';
import type { Db } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import {
  countDeployKeys,
  countUserSshKeys,
  deleteSshKey,
  deployKey,
  deployKeys,
  insertSshKey,
  sshKeyByFingerprint,
  userSshKey,
  userSshKeys,
  type SshKeyRow,
} from '../store/queries/ssh-keys.js';
import { userById, userByName, type UserRow } from '../store/queries/users.js';
import { accessLevel, deployKeyAccess, requireAccess, type AccessLevel, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';

export type { SshKeyRow };

const MAX_TITLE = 255;
const IN_USE = 'key is already in use';

/** Who an SSH key authenticates: an account (all it may do), or one repository's deploy key. */
export type SshPrincipal = { kind: 'user'; user: UserRow; key: SshKeyRow } | { kind: 'deploy'; key: SshKeyRow };

/** What a new key gives: its text, and a title (the key's comment when none). */
export interface KeyInput {
  title?: unknown;
  key?: unknown;
}

function titleOf(input: KeyInput, comment: string, fingerprint: string): string {
  if (input.title !== undefined && input.title !== null && typeof input.title !== 'string') throw invalid('title must be a string');
  const title = (typeof input.title === 'string' ? input.title : '').trim() || comment.trim() || fingerprint;
  if (title.length > MAX_TITLE) throw invalid(`title is longer than ${MAX_TITLE} characters`);
  return title;
}

/**
 * Public SSH keys: each account's own, and each repository's deploy keys (read-only unless made writable). A key
 * belongs to one account or one repository, so that a key names exactly whom it authenticates. Managing deploy keys
 * needs admin on the repository, as on GitHub.
 */
export class SshKeyService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
  ) {}

  async list(user: UserRow, page: PageWindow): Promise<{ items: SshKeyRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await userSshKeys(tx, user.id, page), total: await countUserSshKeys(tx, user.id) }));
  }

  /** The keys of any account, as GitHub lists them to everyone (`GET /users/:username/keys`). */
  async publicKeysOf(username: string, page: PageWindow): Promise<{ items: SshKeyRow[]; total: number }> {
    const user = await userByName(this.store, username);
    if (!user) throw notFound('Not Found');
    return await this.list(user, page);
  }

  async get(user: UserRow, id: number): Promise<SshKeyRow> {
    const key = await userSshKey(this.store, user.id, id);
    if (!key) throw notFound('Not Found');
    return key;
  }

  async add(user: UserRow, input: KeyInput): Promise<SshKeyRow> {
    const parsed = await parsePublicKey(input.key);
    const title = titleOf(input, parsed.comment, parsed.fingerprint);
    const now = this.now();
    const row = await this.store.write(async (tx) => await insertSshKey(tx, { owner: { user_id: user.id }, title, key: parsed.key, fingerprint: parsed.fingerprint, created_at: now }));
    if (!row) throw invalid(IN_USE);
    return row;
  }

  async remove(user: UserRow, id: number): Promise<void> {
    const removed = await this.store.write(async (tx) => (await userSshKey(tx, user.id, id)) !== undefined && (await deleteSshKey(tx, id)));
    if (!removed) throw notFound('Not Found');
  }

  async listDeploy(repo: RepositoryRow, viewer: Viewer, page: PageWindow): Promise<{ items: SshKeyRow[]; total: number }> {
    await this.requireAdmin(repo, viewer);
    return await this.store.read(async (tx) => ({ items: await deployKeys(tx, repo.id, page), total: await countDeployKeys(tx, repo.id) }));
  }

  async getDeploy(repo: RepositoryRow, viewer: Viewer, id: number): Promise<SshKeyRow> {
    await this.requireAdmin(repo, viewer);
    const key = await deployKey(this.store, repo.id, id);
    if (!key) throw notFound('Not Found');
    return key;
  }

  async addDeploy(repo: RepositoryRow, viewer: Viewer, input: KeyInput & { read_only?: unknown }): Promise<SshKeyRow> {
    await this.requireAdmin(repo, viewer);
    if (input.read_only !== undefined && input.read_only !== null && typeof input.read_only !== 'boolean') throw invalid('read_only must be a boolean');
    const parsed = await parsePublicKey(input.key);
    const title = titleOf(input, parsed.comment, parsed.fingerprint);
    const readOnly = input.read_only !== false;
    const now = this.now();
    const row = await writeToRepository(this.store, repo, async (tx) =>
      await insertSshKey(tx, { owner: { repo_id: repo.id, read_only: readOnly }, title, key: parsed.key, fingerprint: parsed.fingerprint, created_at: now }),
    );
    if (!row) throw invalid(IN_USE);
    return row;
  }

  async removeDeploy(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await this.requireAdmin(repo, viewer);
    const removed = await writeToRepository(this.store, repo, async (tx) => (await deployKey(tx, repo.id, id)) !== undefined && (await deleteSshKey(tx, id)));
    if (!removed) throw notFound('Not Found');
  }

  /** Whom a key (by its fingerprint) authenticates, if anyone. */
  async principalOf(fingerprint: string): Promise<SshPrincipal | undefined> {
    return await this.store.read(async (tx) => {
      const key = await sshKeyByFingerprint(tx, fingerprint);
      if (!key) return undefined;
      if (key.repo_id !== null) return { kind: 'deploy', key };
      const user = await userById(tx, key.user_id!);
      return user ? { kind: 'user', user, key } : undefined;
    });
  }

  /** A deploy key of the repository by id, as a principal (LFS tokens name deploy keys this way). */
  async deployPrincipal(repo: RepositoryRow, id: number): Promise<SshPrincipal | undefined> {
    const key = await deployKey(this.store, repo.id, id);
    return key ? { kind: 'deploy', key } : undefined;
  }

  /**
   * What a principal may do with a repository: an account what the one permission check says, a deploy key read (or
   * write when writable) on its own repository and nothing anywhere else.
   */
  async access(principal: SshPrincipal, repo: RepositoryRow): Promise<AccessLevel> {
    return principal.kind === 'user' ? await accessLevel(this.store, principal.user, repo) : deployKeyAccess(principal.key, repo);
  }

  private async requireAdmin(repo: RepositoryRow, viewer: Viewer): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Managing deploy keys needs admin access');
  }
}
