import { conflict } from '../errors.js';

/**
 * Repository names held by an operation that is changing them (create, import, rename, delete) until its record is
 * durable. Every such operation reserves the names it touches here first, so two of them can never work on one
 * folder at once (the database's unique index only speaks at the end, after the disk work). One process owns the
 * database and the folders (the single-writer lock), so an in-memory set is the whole truth.
 */
export class NameReservations {
  readonly #held = new Set<string>();

  /** Holds every name or none: throws 409 `message` when any of them is held already. */
  reserve(ownerId: number, names: readonly string[], message: string): () => void {
    const keys = [...new Set(names.map((name) => `${ownerId}/${name.toLowerCase()}`))];
    if (keys.some((key) => this.#held.has(key))) throw conflict(message);
    for (const key of keys) this.#held.add(key);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const key of keys) this.#held.delete(key);
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
