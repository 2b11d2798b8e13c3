import { invalid } from '../errors.js';

/** A required, non-blank text field of at most `maxLength` characters (surrounding white space trimmed). */
export function requiredText(field: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string' || value.trim().length === 0) throw invalid(`${field} is required`);
  const text = value.trim();
  if (text.length > maxLength) throw invalid(`${field} must be at most ${maxLength} characters`);
  return text;
}

/** An optional text field: absent means empty. */
export function optionalText(field: string, value: unknown, maxLength: number): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (value.length > maxLength) throw invalid(`${field} must be at most ${maxLength} characters`);
  return value;
}

/** An optional text field kept as given, absent or null being null (GitHub's nullable strings). */
export function nullableText(field: string, value: unknown, maxLength: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (value.length > maxLength) throw invalid(`${field} must be at most ${maxLength} characters`);
  return value;
}

/** An optional yes/no field: a JSON boolean, or 'true'/'false'/'1'/'0' from a form; absent means `fallback`. */
export function optionalFlag(field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw invalid(`${field} must be true or false`);
}

/** An optional http or https URL (at most 2,048 characters), as given but normalised; absent or blank is null. */
export function optionalHttpUrl(field: string, value: unknown): string | null {
  const text = optionalText(field, value, 2048).trim();
  if (!text) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${field} must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(`${field} must be an http or https URL`);
  return url.href;
}
