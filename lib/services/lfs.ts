import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { RepoHostError, forbidden, invalid, notFound } from '../errors.js';
import type { GitRepositories } from '../git/repositories.js';
import { receiveFile } from './file-receiver.js';
import { atLeast, type AccessLevel } from './permissions.js';
import type { Db } from '../store/interface.js';
import { deleteLfsLock, insertLfsLock, insertLfsObject, lfsBytesOf, lfsLockById, lfsLockByPath, lfsLocks, lfsObjectsAmong, type LfsLockRow } from '../store/queries/lfs.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';

export type { LfsLockRow };

/** Where a repository's LFS objects live: inside its folder, so they move, go and are snapshotted with it. */
export const LFS_FOLDER = 'lfs/objects';
const OID = /^[0-9a-f]{64}$/;
/** Objects one batch request may name (git-lfs sends 100 at a time). */
const MAX_BATCH_OBJECTS = 1000;

/** What the caller of an LFS request may do, and as whom (a deploy key has no account). */
export interface LfsCaller {
  access: AccessLevel;
  user?: UserRow;
}

export interface LfsLimits {
  /** Largest single object, in bytes. */
  maxObjectBytes: number;
  /** Most bytes of objects one repository may hold. */
  maxRepositoryBytes: number;
}

/** A batch request's object as checked: a valid oid and size, or the error the API answers for it. */
type BatchObject = { oid: string; size: number };

/** One object of the batch answer: the actions to take, nothing (already there), or an error. */
export interface BatchAnswer {
  oid: string;
  size: number;
  actions?: Partial<Record<'upload' | 'download' | 'verify', true>>;
  error?: { code: number; message: string };
}

/** A lock refused because the path is locked already: 409 with the lock that holds it. */
export class LockTaken extends RepoHostError {
  constructor(readonly lock: LfsLockRow) {
    super('conflict', 'already created lock');
  }
}

/** A refusal only the LFS API has a status for (409 for a hash algorithm, 507 for the quota). */
export class LfsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'LfsError';
  }
}

function checkedObjects(input: unknown): Array<BatchObject | { oid: string; size: unknown; invalid: string }> {
  if (!Array.isArray(input)) throw invalid('objects must be a list');
  if (input.length > MAX_BATCH_OBJECTS) throw new RepoHostError('too_large', `a batch may name at most ${MAX_BATCH_OBJECTS} objects`);
  return input.map((entry: { oid?: unknown; size?: unknown } | null) => {
    const oid = entry?.oid;
    const size = entry?.size;
    // An object's error is told by its oid: without a string to echo, the request itself is malformed.
    if (typeof oid !== 'string') throw invalid('every object must have an oid string');
    if (!OID.test(oid)) return { oid, size, invalid: 'oid must be a SHA-256 in lower-case hexadecimal' };
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return { oid, size, invalid: 'size must be a non-negative integer' };
    return { oid, size };
  });
}

/**
 * Git LFS for one host: the batch API's decisions (basic transfer), objects stored by oid in the repository's folder
 * (streamed, their size and SHA-256 checked, never trusted from the client), a quota per repository, and the locking
 * API. Who may do what is the one permission check's answer, given by the caller.
 */
export class LfsService {
  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'gitDirOf'>,
    private readonly limits: LfsLimits,
    private readonly now: () => string,
    /** Runs work on a repository that can be neither deleted nor renamed meanwhile. */
    private readonly whileUnchanged: <T>(repo: RepositoryRow, work: (current: RepositoryRow) => Promise<T>) => Promise<T>,
  ) {}

  /** Decides, object by object, what a batch request may do: download what exists, upload what is missing. */
  async batch(repo: RepositoryRow, caller: LfsCaller, body: Record<string, unknown>): Promise<BatchAnswer[]> {
    const operation = body.operation;
    if (operation !== 'upload' && operation !== 'download') throw invalid("operation must be 'upload' or 'download'");
    if (body.hash_algo !== undefined && body.hash_algo !== 'sha256') throw new LfsError(409, 'only the sha256 hash algorithm is supported');
    if (body.transfers !== undefined && (!Array.isArray(body.transfers) || !body.transfers.includes('basic'))) throw invalid('only the basic transfer adapter is supported');
    this.require(caller, operation === 'upload' ? 'write' : 'read');
    const objects = checkedObjects(body.objects);
    const valid = objects.filter((object): object is BatchObject => !('invalid' in object));
    const held = await lfsObjectsAmong(this.store, repo.id, valid.map((object) => object.oid));
    let room = operation === 'upload' ? this.limits.maxRepositoryBytes - (await lfsBytesOf(this.store, repo.id)) : 0;
    return objects.map((object): BatchAnswer => {
      if ('invalid' in object) return { oid: object.oid, size: Number(object.size) || 0, error: { code: 422, message: object.invalid } };
      const size = held.get(object.oid);
      if (operation === 'download') {
        if (size === undefined) return { ...object, error: { code: 404, message: 'Object does not exist' } };
        return { oid: object.oid, size, actions: { download: true } };
      }
      if (size !== undefined) return { oid: object.oid, size };
      if (object.size > this.limits.maxObjectBytes) return { ...object, error: { code: 422, message: `objects may be at most ${this.limits.maxObjectBytes} bytes` } };
      if (object.size > room) return { ...object, error: { code: 507, message: `the repository's LFS quota (${this.limits.maxRepositoryBytes} bytes) would be exceeded` } };
      room -= object.size;
      return { ...object, actions: { upload: true, verify: true } };
    });
  }

  /**
   * Receives an object's bytes: streamed to disk, its SHA-256 checked against the oid, and its size against what was
   * declared (the request's length, and the size its batch was answered for) before it is kept; recorded once it is
   * on disk. A second upload of an object it holds is read and dropped.
   */
  async upload(repo: RepositoryRow, caller: LfsCaller, oid: string, body: Readable, declared: { length?: number; batch?: number }): Promise<void> {
    this.require(caller, 'write');
    if (!OID.test(oid)) throw notFound('Object does not exist');
    if (declared.batch !== undefined && !Number.isSafeInteger(declared.batch)) throw invalid('size must be a non-negative integer');
    const declaredLength = declared.length ?? declared.batch;
    if (declared.batch !== undefined && declaredLength !== declared.batch) throw invalid(`the batch declared ${declared.batch} bytes, the upload ${declaredLength}`);
    const used = await lfsBytesOf(this.store, repo.id);
    const limit = Math.min(this.limits.maxObjectBytes, this.limits.maxRepositoryBytes - used);
    if (declaredLength !== undefined && declaredLength > this.limits.maxObjectBytes) throw new RepoHostError('too_large', `objects may be at most ${this.limits.maxObjectBytes} bytes`);
    if (declaredLength !== undefined && declaredLength > limit) throw new LfsError(507, `the repository's LFS quota (${this.limits.maxRepositoryBytes} bytes) would be exceeded`);
    await this.whileUnchanged(repo, async (current) => {
      const gitDir = await this.git.gitDirOf(current.owner_name, current.name);
      const received = await receiveFile(join(gitDir, LFS_FOLDER), oid, body, {
        maxBytes: Math.max(0, limit),
        what: 'an LFS object',
        syncAlso: [join(gitDir, 'lfs'), gitDir],
        check: ({ size, sha256 }) => {
          if (sha256 !== oid) throw invalid(`the uploaded bytes do not match the oid (their SHA-256 is ${sha256})`);
          if (declaredLength !== undefined && size !== declaredLength) throw invalid(`expected ${declaredLength} bytes, received ${size}`);
        },
      });
      const now = this.now();
      await this.store.write(async (tx) => await insertLfsObject(tx, current.id, oid, received.size, now));
    });
  }

  /** Confirms an upload: the object is held, with the size the client expects. */
  async verify(repo: RepositoryRow, caller: LfsCaller, body: Record<string, unknown>): Promise<void> {
    this.require(caller, 'write');
    const [object] = checkedObjects([body]);
    if (!object || 'invalid' in object) throw invalid(object && 'invalid' in object ? object.invalid : 'oid is required');
    const size = (await lfsObjectsAmong(this.store, repo.id, [object.oid])).get(object.oid);
    if (size === undefined) throw notFound('Object does not exist');
    if (size !== object.size) throw invalid(`the object has ${size} bytes, not ${object.size}`);
  }

  /** An object's bytes and size; not found unless the repository holds it. */
  async download(repo: RepositoryRow, caller: LfsCaller, oid: string): Promise<{ body: Readable; size: number }> {
    this.require(caller, 'read');
    const object = await this.read(repo, oid);
    if (!object) throw notFound('Object does not exist');
    return object;
  }

  /** An object's bytes, for whoever already may read the repository (pages); undefined unless held. */
  async read(repo: RepositoryRow, oid: string): Promise<{ body: Readable; size: number } | undefined> {
    const size = OID.test(oid) ? (await lfsObjectsAmong(this.store, repo.id, [oid])).get(oid) : undefined;
    if (size === undefined) return undefined;
    const gitDir = await this.git.gitDirOf(repo.owner_name, repo.name);
    const handle = await open(join(gitDir, LFS_FOLDER, oid), 'r').catch(() => undefined);
    return handle ? { body: handle.createReadStream(), size } : undefined;
  }

  /** At most `limit` bytes from the start of a held object. */
  async readStart(repo: RepositoryRow, oid: string, limit: number): Promise<Buffer> {
    const gitDir = await this.git.gitDirOf(repo.owner_name, repo.name);
    const handle = await open(join(gitDir, LFS_FOLDER, oid), 'r');
    try {
      const buffer = Buffer.alloc(limit);
      const { bytesRead } = await handle.read(buffer, 0, limit, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** Whether the repository holds the object (pages and the contents API show LFS files as what they stand for). */
  async holds(repo: RepositoryRow, oid: string): Promise<boolean> {
    return OID.test(oid) && (await lfsObjectsAmong(this.store, repo.id, [oid])).has(oid);
  }

  async lock(repo: RepositoryRow, caller: LfsCaller, path: unknown): Promise<LfsLockRow> {
    const user = this.requireUser(caller, 'write');
    if (typeof path !== 'string' || path.trim() === '' || path.length > 4096) throw invalid('path is required');
    const now = this.now();
    const outcome = await this.store.write(async (tx) => {
      const id = await insertLfsLock(tx, repo.id, path, user.id, now);
      const taken = id === undefined ? await lfsLockByPath(tx, repo.id, path) : undefined;
      return { taken, lock: id === undefined ? undefined : await lfsLockById(tx, repo.id, id) };
    });
    if (outcome.taken) throw new LockTaken(outcome.taken);
    return outcome.lock!;
  }

  /** Locks in id order from a cursor (the last id seen), one path's when given. */
  async locks(repo: RepositoryRow, caller: LfsCaller, filter: { path?: string; id?: number; cursor?: number; limit: number }): Promise<{ locks: LfsLockRow[]; next?: number }> {
    this.require(caller, 'read');
    if (filter.id !== undefined) {
      const lock = await lfsLockById(this.store, repo.id, filter.id);
      return { locks: lock && (filter.path === undefined || lock.path === filter.path) ? [lock] : [] };
    }
    const rows = await lfsLocks(this.store, repo.id, { path: filter.path, afterId: filter.cursor ?? 0, limit: filter.limit + 1 });
    return { locks: rows.slice(0, filter.limit), next: rows.length > filter.limit ? rows[filter.limit - 1]!.id : undefined };
  }

  /** Removes a lock: its owner may, and with `force` an admin of the repository may remove anyone's. */
  async unlock(repo: RepositoryRow, caller: LfsCaller, id: number, force: boolean): Promise<LfsLockRow> {
    const user = this.requireUser(caller, 'write');
    const lock = await lfsLockById(this.store, repo.id, id);
    if (!lock) throw notFound('Lock does not exist');
    if (lock.owner_id !== user.id) {
      if (!force) throw forbidden(`the lock belongs to ${lock.owner_name}; only an admin may remove it, with --force`);
      if (!atLeast(caller.access, 'admin')) throw forbidden('only an admin of the repository may remove the locks of others');
    }
    await this.store.write(async (tx) => await deleteLfsLock(tx, lock.id));
    return lock;
  }

  private require(caller: LfsCaller, needed: AccessLevel): void {
    if (atLeast(caller.access, needed)) return;
    if (caller.access === 'none') throw notFound('Repository not found');
    throw forbidden(needed === 'write' ? 'write access is needed to upload LFS objects or lock files' : 'read access is needed');
  }

  private requireUser(caller: LfsCaller, needed: AccessLevel): UserRow {
    this.require(caller, needed);
    if (!caller.user) throw forbidden('locks belong to accounts: a deploy key cannot take or remove them');
    return caller.user;
  }
}
