/**
 * What objects of a request's JSON that name their own `toString` or `valueOf` (`{"toString": "x"}`) inherit: text
 * of their own, as any other object has. Such keys shadow Object.prototype's methods, and `String(value)` or a
 * template literal would throw on them (a 500 where any other wrong type gets its 4xx). JSON keys cannot be symbols,
 * so nothing in a request can shadow this one.
 */
const PLAIN_OBJECT_TEXT: object = Object.create(Object.prototype, { [Symbol.toPrimitive]: { value: () => '[object Object]' } });

/**
 * A surrogate without its pair. Only a `\uD800`-style escape puts one in a string (bytes that are not UTF-8 decode as
 * U+FFFD), and `encodeURIComponent` throws on it (a label or a file named so answered 500 wherever its URL was made).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

const shadowsText = (value: unknown): value is object =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && (Object.hasOwn(value, 'toString') || Object.hasOwn(value, 'valueOf'));

function wellFormed(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  return shadowsText(value) ? Object.setPrototypeOf(value, PLAIN_OBJECT_TEXT) : value;
}

/**
 * A request body's JSON, parsed (throws SyntaxError as JSON.parse does): its objects turn into text as objects do, and
 * its strings are well-formed (a lone surrogate becomes U+FFFD, as it would in UTF-8).
 */
export function parseRequestJson(text: string): unknown {
  // Only a body that spells one of those names, or escapes a character, needs the walk.
  if (!text.includes('toString') && !text.includes('valueOf') && !text.includes('\\u')) return JSON.parse(text);
  return JSON.parse(text, wellFormed);
}
