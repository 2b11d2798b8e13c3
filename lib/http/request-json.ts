/**
 * What objects of a request's JSON that name their own `toString` or `valueOf` (`{"toString": "x"}`) inherit: text
 * of their own, as any other object has. Such keys shadow Object.prototype's methods, and `String(value)` or a
 * template literal would throw on them (a 500 where any other wrong type gets its 4xx). JSON keys cannot be symbols,
 * so nothing in a request can shadow this one.
 */
const PLAIN_OBJECT_TEXT: object = Object.create(Object.prototype, { [Symbol.toPrimitive]: { value: () => '[object Object]' } });

const shadowsText = (value: unknown): value is object =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && (Object.hasOwn(value, 'toString') || Object.hasOwn(value, 'valueOf'));

/** A request body's JSON, parsed (throws SyntaxError as JSON.parse does); its objects turn into text as objects do. */
export function parseRequestJson(text: string): unknown {
  // Only a body that spells one of those names (or escapes characters, which could spell one) needs the walk.
  if (!text.includes('toString') && !text.includes('valueOf') && !text.includes('\\u')) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown) => (shadowsText(value) ? Object.setPrototypeOf(value, PLAIN_OBJECT_TEXT) : value));
}
