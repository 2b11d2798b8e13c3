import type { SqlParam } from '../write-log.js';

/**
 * The most values one `inList` should carry; longer lists are split with `inChunks` by the queries that may meet them
 * (a push moving thousands of branches). It keeps every statement far below the engines' limits on parameters
 * (32766 in SQLite, 65535 in PostgreSQL) even when a statement holds two lists.
 */
export const IN_LIST_CHUNK = 1024;

/**
 * `IN (?, ?, …)` over a list of values, in SQL every engine takes (no `json_each`). Prepared statements are cached by
 * their text, so the placeholders are rounded up, the extra ones repeating the last value (a duplicate in an `IN`
 * list changes nothing): to a power of two up to `IN_LIST_CHUNK`, then to a multiple of it. Lists of every length thus
 * share a bounded handful of statements (11 up to 1024 values, one more per further 1024). An empty list gives
 * `IN (NULL)`, which matches nothing on both engines. Only for `IN`, never `NOT IN` (`NOT IN (NULL)` is never true).
 */
export function inList(values: readonly SqlParam[]): { sql: string; params: SqlParam[] } {
  if (values.length === 0) return { sql: 'IN (NULL)', params: [] };
  let size = 1;
  while (size < values.length && size < IN_LIST_CHUNK) size *= 2;
  if (size < values.length) size = Math.ceil(values.length / IN_LIST_CHUNK) * IN_LIST_CHUNK;
  const params = [...values];
  while (params.length < size) params.push(values[values.length - 1]!);
  return { sql: `IN (${new Array(size).fill('?').join(', ')})`, params };
}

/** `values` in slices of at most `IN_LIST_CHUNK` (none for an empty list), one query each. */
export function inChunks<T>(values: readonly T[]): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += IN_LIST_CHUNK) chunks.push(values.slice(start, start + IN_LIST_CHUNK));
  return chunks;
}
