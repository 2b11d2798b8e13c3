import { conflict } from '../errors.js';
import type { SharedLocks } from '../store/interface.js';

/**
 * Repository names held by an operation that is changing them (create, import, rename, delete) until its record is
 * durable. Every such operation reserves the names it touches here first, so two of them can never work on one
 * folder at once (the database's unique index only speaks at the end, after the disk work). Within the process an
 * in-memory set decides; when other instances share the database (PostgreSQL), its `sharedLocks` must agree too.
 */
export class NameReservations {
  readonly #held = new Set<string>();
  /** Names in use by operations that change a repository's contents (merges), which may run side by side. */
  readonly #shared = new Map<string, number>();

  constructor(private readonly locks?: SharedLocks) {}

  /** Holds every name or none: throws 409 `message` when any of them is held already, or shared, here or elsewhere. */
  async reserve(ownerId: number, names: readonly string[], message: string): Promise<() => Promise<void>> {
    const lowered = [...new Set(names.map((name) => name.toLowerCase()))];
    const keys = lowered.map((name) => `${ownerId}/${name}`);
    if (keys.some((key) => this.#held.has(key) || this.#shared.has(key))) throw conflict(message);
    // Marked here before waiting on other instances, so no operation of this process slips in meanwhile.
    for (const key of keys) this.#held.add(key);
    const releaseHere = () => {
      for (const key of keys) this.#held.delete(key);
    };
    const elsewhere = await this.#lockElsewhere(ownerId, lowered, 'exclusive', releaseHere, message);
    let released: Promise<void> | undefined;
    return () => (released ??= (releaseHere(), elsewhere()));
  }

  /**
   * Uses a name alongside others that also only share it (merges into one repository), while no operation may reserve
   * it (a delete or rename then answers 409); throws 409 `message` when it is reserved.
   */
  async share(ownerId: number, name: string, message: string): Promise<() => Promise<void>> {
    const key = `${ownerId}/${name.toLowerCase()}`;
    if (this.#held.has(key)) throw conflict(message);
    this.#shared.set(key, (this.#shared.get(key) ?? 0) + 1);
    const releaseHere = () => {
      const left = (this.#shared.get(key) ?? 1) - 1;
      if (left > 0) this.#shared.set(key, left);
      else this.#shared.delete(key);
    };
    const elsewhere = await this.#lockElsewhere(ownerId, [name.toLowerCase()], 'shared', releaseHere, message);
    let released: Promise<void> | undefined;
    return () => (released ??= (releaseHere(), elsewhere()));
  }

  /** Runs `work` while holding the names. */
  async with<T>(ownerId: number, names: readonly string[], message: string, work: () => Promise<T>): Promise<T> {
    const release = await this.reserve(ownerId, names, message);
    try {
      return await work();
    } finally {
      // Awaited: whoever hears the answer may try the name at once through another instance.
      await release();
    }
  }

  /** The same names locked for other instances; undoes `releaseHere` and throws 409 when one of them holds any. */
  async #lockElsewhere(ownerId: number, names: readonly string[], mode: 'exclusive' | 'shared', releaseHere: () => void, message: string): Promise<() => Promise<void>> {
    if (!this.locks) return async () => undefined;
    let release: (() => Promise<void>) | undefined;
    try {
      // Prefixed: other locks on the same connection pair a number with a text too (a hook's sender lock).
      release = await this.locks.tryLock(
        names.map((name) => [ownerId, `repository:${name}`] as const),
        mode,
      );
    } catch (error) {
      releaseHere();
      throw error;
    }
    if (!release) {
      releaseHere();
      throw conflict(message);
    }
    const unlock = release;
    // This process's set is free at once; other instances once the lock's connection has unlocked.
    return () => unlock().catch(() => undefined);
  }
}
