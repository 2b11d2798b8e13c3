import { conflict } from '../errors.js';

/**
 * Repository names held by an operation that is changing them (create, import, rename, delete) until its record is
 * durable. Every such operation reserves the names it touches here first, so two of them can never work on one
 * folder at once (the database's unique index only speaks at the end, after the disk work). One process owns the
 * database and the folders (the single-writer lock), so an in-memory set is the whole truth.
 */
export class NameReservations {
  readonly #held = new Set<string>();
  /** Names in use by operations that change a repository's contents (merges), which may run side by side. */
  readonly #shared = new Map<string, number>();

  /** Holds every name or none: throws 409 `message` when any of them is held already, or shared. */
  reserve(ownerId: number, names: readonly string[], message: string): () => void {
    const keys = [...new Set(names.map((name) => `${ownerId}/${name.toLowerCase()}`))];
    if (keys.some((key) => this.#held.has(key) || this.#shared.has(key))) throw conflict(message);
    for (const key of keys) this.#held.add(key);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) this.#held.delete(key);
    };
  }

  /**
   * Uses a name alongside others that also only share it (merges into one repository), while no operation may reserve
   * it (a delete or rename then answers 409); throws 409 `message` when it is reserved.
   */
  share(ownerId: number, name: string, message: string): () => void {
    const key = `${ownerId}/${name.toLowerCase()}`;
    if (this.#held.has(key)) throw conflict(message);
    this.#shared.set(key, (this.#shared.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#shared.get(key) ?? 1) - 1;
      if (left > 0) this.#shared.set(key, left);
      else this.#shared.delete(key);
    };
  }

  /** Runs `work` while holding the names. */
  async with<T>(ownerId: number, names: readonly string[], message: string, work: () => Promise<T>): Promise<T> {
    const release = this.reserve(ownerId, names, message);
    try {
      return await work();
    } finally {
      release();
    }
  }
}
