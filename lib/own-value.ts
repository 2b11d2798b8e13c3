/**
 * The value an object holds under `key` itself, never one that Object.prototype lends it: `table['constructor']` is
 * `Object` and `table['__proto__']` is `Object.prototype` for any object literal, so a key a user chose (a file name,
 * a JSON key, a status word) must not index one directly (issue 38; the lint rule scripts/eslint/own-keys.js keeps
 * the class out). Where the table is built at run time, a Map is the better choice.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  // eslint-disable-next-line repohost/own-keys -- checked to be the object's own just before
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
