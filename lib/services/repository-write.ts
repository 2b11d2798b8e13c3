import { notFound } from '../errors.js';
import type { Db, WriteTx } from '../store/interface.js';
import { repositoryExists, type RepositoryRow } from '../store/queries/repositories.js';

/**
 * A write that belongs to a repository. The repository was looked up before the request's body arrived and may have
 * been deleted (or renamed away and deleted) meanwhile: the write re-checks inside its transaction and answers 404
 * instead of failing on a missing row.
 */
export async function writeToRepository<T>(store: Db, repo: Pick<RepositoryRow, 'id'>, work: (tx: WriteTx) => Promise<T>): Promise<T> {
  return await store.write(async (tx) => {
    if (!await repositoryExists(tx, repo.id)) throw notFound('Not found');
    return await work(tx);
  });
}
