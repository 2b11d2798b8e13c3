import { notFound } from '../errors.js';
import type { Store, WriteTx } from '../store/database.js';
import { repositoryExists, type RepositoryRow } from '../store/queries/repositories.js';

/**
 * A write that belongs to a repository. The repository was looked up before the request's body arrived and may have
 * been deleted (or renamed away and deleted) meanwhile: the write re-checks inside its transaction and answers 404
 * instead of failing on a missing row.
 */
export function writeToRepository<T>(store: Store, repo: Pick<RepositoryRow, 'id'>, work: (tx: WriteTx) => T): Promise<T> {
  return store.write((tx) => {
    if (!repositoryExists(tx, repo.id)) throw notFound('Not found');
    return work(tx);
  });
}
