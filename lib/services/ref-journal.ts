import { deleteRefIntent, insertRefIntent } from '../store/queries/refs.js';
import type { Db } from '../store/interface.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { writeToRepository } from './repository-write.js';

/** Comparisons of a repository tried at most, and the wait before the next (times the attempt). */
const COMPARE_ATTEMPTS = 6;
const COMPARE_RETRY_MS = 1000;

/** An operation about to move refs of a repository, noted durably before git moves them. */
export interface RefIntent {
  readonly id: number;
  /**
   * Ends the operation in this process. `recorded`: the write that recorded its changes also cleared the intent. Not
   * recorded (git ended without saying what moved, or the record failed): the repository is compared with git once no
   * other operation on it runs here (see `RefUpdateService.reconcile`); a crash leaves the intent for the next start.
   */
  close(recorded: boolean): Promise<void>;
}

/**
 * The intents of operations that move refs (pushes, merges, API ref updates, branch deletions): one row per operation,
 * written before git moves a ref and cleared in the same write that records what moved. A crash in between leaves the
 * row, so the next start compares only those repositories with `git for-each-ref` instead of every one.
 */
export class RefJournal {
  readonly #running = new Map<number, number>();
  readonly #unrecorded = new Set<number>();
  /** Comparisons running: refs of that repository move only once it is done. */
  readonly #reconciling = new Map<number, Promise<void>>();
  readonly #retries = new Set<NodeJS.Timeout>();
  #closed = false;
  #reconcile: (repoId: number) => Promise<void> = async () => undefined;

  /** `holder`: this instance's name on the intents it writes ('' when the process is the database's only one). */
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly holder = '',
  ) {}

  /** Who compares a repository with git when an operation could not record what it moved. */
  reconcileWith(reconcile: (repoId: number) => Promise<void>): void {
    this.#reconcile = reconcile;
  }

  /** Notes durably that refs of `repo` are about to move (404 when the repository went away meanwhile). */
  async open(repo: Pick<RepositoryRow, 'id'>): Promise<RefIntent> {
    while (this.#reconciling.has(repo.id)) await this.#reconciling.get(repo.id);
    const now = this.now();
    this.#running.set(repo.id, (this.#running.get(repo.id) ?? 0) + 1);
    let id: number;
    try {
      id = await writeToRepository(this.store, repo, async (tx) => await insertRefIntent(tx, repo.id, now, this.holder));
    } catch (error) {
      await this.#leave(repo.id);
      throw error;
    }
    let closed = false;
    return {
      id,
      close: async (recorded) => {
        if (closed) return;
        closed = true;
        if (!recorded) this.#unrecorded.add(repo.id);
        await this.#leave(repo.id);
      },
    };
  }

  /** Clears an intent whose operation moved nothing (it failed before git touched a ref). */
  async discard(repo: Pick<RepositoryRow, 'id'>, intent: RefIntent): Promise<void> {
    const cleared = await this.store.write(async (tx) => await deleteRefIntent(tx, intent.id)).then(
      () => true,
      () => false,
    );
    await intent.close(cleared);
  }

  async #leave(repoId: number): Promise<void> {
    const left = (this.#running.get(repoId) ?? 1) - 1;
    if (left > 0) return void this.#running.set(repoId, left);
    this.#running.delete(repoId);
    // Compared only when nothing else moves its refs here: a running push's own record must not be taken for a lost one.
    if (!this.#unrecorded.delete(repoId)) return;
    await this.#compare(repoId, 1);
  }

  /**
   * Compares the repository with git. One that could not be compared (another instance kept moving its refs, or git or
   * the database failed) is tried again later, a bounded number of times; it is compared at the next start otherwise.
   */
  async #compare(repoId: number, attempt: number): Promise<void> {
    let failed = false;
    const reconciling = this.#reconcile(repoId)
      .catch(() => void (failed = true))
      .finally(() => this.#reconciling.delete(repoId));
    this.#reconciling.set(repoId, reconciling);
    await reconciling;
    if (!failed || attempt >= COMPARE_ATTEMPTS || this.#closed) return;
    const retry = setTimeout(() => {
      this.#retries.delete(retry);
      // An operation running here compares it when it ends.
      if (this.#running.has(repoId)) this.#unrecorded.add(repoId);
      else void this.#compare(repoId, attempt + 1);
    }, COMPARE_RETRY_MS * attempt);
    retry.unref();
    this.#retries.add(retry);
  }

  /** Stops the retries still waiting (the host closes). */
  close(): void {
    this.#closed = true;
    for (const retry of this.#retries) clearTimeout(retry);
    this.#retries.clear();
  }
}
