import { LruCache } from './lru.js';
import { readBlob, readCommit, readTree, type CommitObject, type TreeEntry } from './objects.js';

/** Blobs up to this size are kept; larger ones are read from git each time. */
export const MAX_CACHED_BLOB_BYTES = 64 * 1024;
const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** What an ObjectCache key of a repository starts with: its row id and creation time. */
export const repositoryScope = (repo: { id: number; created_at: string }): string => `${repo.id}\0${repo.created_at}`;

/**
 * Git objects read for the API, kept by what names them for good: a commit by its id, a folder by its commit id and
 * path, a small blob by its id. Nothing here can go stale, so nothing is ever invalidated, except after a harness
 * restore. Every key starts with the repository's identity (`repositoryScope`), so a repository never answers with
 * another's objects; a deleted repository's are forgotten, since SQLite may give its id to the next repository made,
 * and a stopped clock (a harness's) its creation time too. What git does not
 * find is not kept: a push may bring it. Entries are shared: callers must not change what they get.
 */
export class ObjectCache {
  readonly #commits = new LruCache<string, Promise<CommitObject | undefined>>(2048);
  readonly #trees = new LruCache<string, Promise<TreeEntry[] | undefined>>(1024);
  readonly #blobs = new LruCache<string, Promise<Buffer | undefined>>(512);

  #kept<T>(cache: LruCache<string, Promise<T | undefined>>, key: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const known = cache.get(key);
    if (known) return known;
    const value = read();
    cache.set(key, value);
    value.then(
      (found) => found === undefined && cache.delete(key),
      () => cache.delete(key),
    );
    return value;
  }

  commit(scope: string, gitDir: string, id: string): Promise<CommitObject | undefined> {
    if (!FULL_ID.test(id)) return readCommit(gitDir, id);
    return this.#kept(this.#commits, `${scope}\0${id}`, () => readCommit(gitDir, id));
  }

  /** The entries of the folder `path` ('' for the top) of a commit (by full id), at most `limit` of them. */
  tree(scope: string, gitDir: string, commit: string, path: string, limit?: number): Promise<TreeEntry[] | undefined> {
    const treeish = path ? `${commit}:${path}` : commit;
    if (!FULL_ID.test(commit)) return readTree(gitDir, treeish, { limit });
    return this.#kept(this.#trees, `${scope}\0${treeish}\0${limit ?? ''}`, () => readTree(gitDir, treeish, { limit }));
  }

  /** A blob's bytes; kept when `size` (known from its tree entry) is small. */
  blob(scope: string, gitDir: string, id: string, size: number): Promise<Buffer | undefined> {
    if (size > MAX_CACHED_BLOB_BYTES || !FULL_ID.test(id)) return readBlob(gitDir, id);
    return this.#kept(this.#blobs, `${scope}\0${id}`, () => readBlob(gitDir, id));
  }

  /** Forgets the objects of one repository (deleted: its scope may come back for another). */
  forget(scope: string): void {
    const prefix = `${scope}\0`;
    for (const cache of [this.#commits, this.#trees, this.#blobs] as const) cache.deleteWhere((key) => key.startsWith(prefix));
  }

  clear(): void {
    this.#commits.clear();
    this.#trees.clear();
    this.#blobs.clear();
  }
}
