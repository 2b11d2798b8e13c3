import { getQuery, getRequestHeader, getRouterParam, type H3Event } from 'h3';
import { invalid, notFound, tooLarge, unsupported } from '../errors.js';
import { RequestForgeryGuard } from './csrf.js';
import { parseRequestJson } from './request-json.js';
import { ownValue } from '../own-value.js';

/** Reads the request body as text, refusing more than `limit` bytes without buffering past it. */
export async function readLimitedText(event: H3Event, limit: number): Promise<string> {
  const declared = Number(getRequestHeader(event, 'content-length') ?? NaN);
  if (declared > limit) throw tooLarge(`request body must be at most ${limit} bytes`);
  const body = event.req.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The client went away mid-body: its failure, not ours (answered 400, logged as nothing).
      throw invalid('request body ended before it was complete');
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Stop reading but leave the request stream alone (cancelling destroys it mid-body, see keepRequestSocket
      // in host.ts); the 413 response closes the connection, so the rest of the body is never read.
      reader.releaseLock();
      throw tooLarge(`request body must be at most ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export type FormFields = Record<string, unknown>;

/**
 * Reads a form body: `application/x-www-form-urlencoded` (the spec's forms) or a JSON object (what scripts send).
 * An empty body is an empty form.
 */
export async function readForm(event: H3Event, limit: number): Promise<FormFields> {
  const text = await readLimitedText(event, limit);
  const type = (getRequestHeader(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const fields = parseForm(text, type);
  RequestForgeryGuard.verifyForm(event, fields);
  return fields;
}

function parseForm(text: string, type: string): FormFields {
  if (text.length === 0) return {};
  if (type === 'application/json') return parseJsonObject(text, 'request body must be a JSON object');
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    // The first value of each name, kept by a Map: a field may be called 'constructor' or '__proto__'.
    const fields = new Map<string, string>();
    for (const [key, value] of new URLSearchParams(text)) if (!fields.has(key)) fields.set(key, value);
    return Object.fromEntries(fields);
  }
  throw unsupported('request body must be application/x-www-form-urlencoded or application/json');
}

/** The names of a form's checked boxes called `<prefix><name>` (a checkbox per account, say `assignee.alice`). */
export function checkedNames(form: FormFields, prefix: string): string[] {
  return Object.keys(form).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
}

/** Parses text as a JSON object, or throws `invalid(message)`. */
export function parseJsonObject(text: string, message: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseRequestJson(text);
  } catch {
    throw invalid(message);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid(message);
  return value as Record<string, unknown>;
}

/**
 * A fully decoded path segment (`%2F` included: h3's own decoding keeps separators encoded, which would
 * make a branch such as `topic/x` unreachable); a missing or badly encoded one is a route that does not exist.
 */
export function pathParam(event: H3Event, name: string): string {
  const raw = getRouterParam(event, name);
  let value: string | undefined;
  try {
    value = raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    throw notFound('Not found');
  }
  if (value === undefined || value === '') throw notFound('Not found');
  return value;
}

/** A decimal id path segment; anything else cannot name a record, so it is not found. */
export function idParam(event: H3Event, name: string): number {
  const raw = pathParam(event, name);
  if (!/^\d{1,15}$/.test(raw)) throw notFound('Not found');
  return Number(raw);
}

/** A single string query parameter (the first when repeated), or undefined. */
export function queryString(event: H3Event, name: string): string | undefined {
  const value = ownValue(getQuery(event), name);
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : undefined;
}
