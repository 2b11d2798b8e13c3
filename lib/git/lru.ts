/** A small least-recently-used map: reading an entry refreshes it, the oldest is dropped past `limit`. */
export class LruCache<K, V> {
  readonly #map = new Map<K, V>();
  readonly #limit: number;
  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value === undefined) return undefined;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }
  clear(): void {
    this.#map.clear();
  }
  delete(key: K): void {
    this.#map.delete(key);
  }
  /** Drops every entry whose key `matches`. */
  deleteWhere(matches: (key: K) => boolean): void {
    for (const key of [...this.#map.keys()]) if (matches(key)) this.#map.delete(key);
  }
  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#limit) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
  }
}

/**
 * The promise `cache` keeps under `key`, or `compute()`'s, now kept there: work keyed by what it depends on is done
 * once, by concurrent askers too. A failure is not kept: the next ask computes again.
 */
export function remembered<K, T>(cache: LruCache<K, Promise<T>>, key: K, compute: () => Promise<T>): Promise<T> {
  let value = cache.get(key);
  if (!value) {
    value = compute();
    value.catch(() => cache.delete(key));
    cache.set(key, value);
  }
  return value;
}
