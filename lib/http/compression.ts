import { pipeline, Readable, type Transform } from 'node:stream';
import { promisify } from 'node:util';
import { brotliCompress, constants, createBrotliCompress, createGzip, gzip } from 'node:zlib';
import { HTTPResponse, type H3Event, type Middleware } from 'h3';

/** Bodies smaller than this go as they are: compressing them saves less than the work and the header cost. */
export const MIN_COMPRESSED_BYTES = 1024;
/** Brotli's quality for answers made per request: 4 compresses better than gzip -6 at about its speed (11 is ~50x slower). */
const BROTLI_QUALITY = 4;
/** Text: pages, JSON, scripts, styles, diffs and plain text; never images, archives or git's packs. */
const COMPRESSIBLE = /^\s*(?:text\/|application\/(?:json|javascript|xml|[\w.-]+\+(?:json|xml))\b|image\/svg\+xml\b)/i;
/** Git's smart HTTP (info/refs, upload-pack, receive-pack): its answers are never touched, whatever their type. */
const GIT_TRANSPORT = /\/(?:info\/refs|git-upload-pack|git-receive-pack)$/;
const NO_BODY_STATUS = new Set([101, 103, 204, 205, 304]);

export type ContentEncoding = 'br' | 'gzip';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const brotliOptions = (size?: number) => ({
  params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, ...(size ? { [constants.BROTLI_PARAM_SIZE_HINT]: size } : {}) },
});

/**
 * The encoding to answer with, of those `accept-encoding` allows (RFC 9110 §12.5.3, q-values and `*`): br, else
 * gzip; br when both are equally welcome; none when neither is (an explicit `q=0` refuses one).
 */
export function chooseEncoding(header: string | null | undefined): ContentEncoding | undefined {
  if (!header) return undefined;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim());
    if (!name) continue;
    const q = params.map((param) => /^q=([01](?:\.\d{0,3})?)$/.exec(param)?.[1]).find((value) => value !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  const weight = (name: string) => weights.get(name) ?? (name === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
  const [br, gz] = [weight('br'), weight('gzip')];
  if (br <= 0 && gz <= 0) return undefined;
  return br >= gz ? 'br' : 'gzip';
}

/** True for a content type worth compressing. */
export const isCompressible = (type: string | null | undefined): boolean => !!type && COMPRESSIBLE.test(type);

/** `vary` with Accept-Encoding added once. */
function withVary(value: string | null): string {
  const names = (value ?? '').split(',').map((name) => name.trim()).filter(Boolean);
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept-encoding')) return names.join(', ');
  return [...names, 'Accept-Encoding'].join(', ');
}

/** The headers of an answer whose bytes are now `encoding`ed: its length unknown or new, its ETag weak. */
function encodedHeaders(headers: Headers, encoding: ContentEncoding, length?: number): Headers {
  const out = new Headers(headers);
  out.set('content-encoding', encoding);
  out.set('vary', withVary(out.get('vary')));
  if (length === undefined) out.delete('content-length');
  else out.set('content-length', String(length));
  const etag = out.get('etag');
  // Other bytes than the strong validator named: a strong ETag becomes a weak one (as nginx does).
  if (etag && !etag.startsWith('W/')) out.set('etag', `W/${etag}`);
  return out;
}

/** Bytes as a body (a Buffer is one at run time; the DOM typings want an ArrayBuffer-backed view). */
const asBody = (bytes: Buffer) => bytes as unknown as BodyInit;

function compressBuffer(bytes: Buffer, encoding: ContentEncoding): Promise<Buffer> {
  // The asynchronous forms: zlib works on libuv's pool, never on the event loop.
  return encoding === 'br' ? brotliAsync(bytes, brotliOptions(bytes.length)) : gzipAsync(bytes);
}

/** `source` compressed as it streams; ending or failing either side ends the other (a client gone stops git). */
function compressStream(source: Readable, encoding: ContentEncoding): Transform {
  const encoder = encoding === 'br' ? createBrotliCompress(brotliOptions()) : createGzip();
  return pipeline(source, encoder, () => {
    /* an error reaches the encoder, whose reader (the response) sees it */
  }) as Transform;
}

/** The first bytes of a web stream, until at least `min` are read or it ends; the rest stays readable. */
async function readAtLeast(reader: ReadableStreamDefaultReader<Uint8Array>, min: number): Promise<{ head: Buffer[]; size: number; done: boolean }> {
  const head: Buffer[] = [];
  let size = 0;
  while (size < min) {
    const { value, done } = await reader.read();
    if (done) return { head, size, done: true };
    head.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    size += value.byteLength;
  }
  return { head, size, done: false };
}

/** A web Response's body compressed: whole in memory when short, else streamed from the bytes already read on. */
async function compressResponse(response: Response, encoding: ContentEncoding): Promise<Response> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared < MIN_COMPRESSED_BYTES) return withVaryOn(response);
  const reader = response.body!.getReader();
  const { head, size, done } = await readAtLeast(reader, MIN_COMPRESSED_BYTES);
  const init = { status: response.status, statusText: response.statusText };
  if (done) {
    const bytes = Buffer.concat(head, size);
    if (size < MIN_COMPRESSED_BYTES) return new Response(asBody(bytes), { ...init, headers: varied(response.headers) });
    const encoded = await compressBuffer(bytes, encoding);
    return new Response(asBody(encoded), { ...init, headers: encodedHeaders(response.headers, encoding, encoded.length) });
  }
  const rest = async function* () {
    let ended = false;
    try {
      yield* head;
      for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
      ended = true;
    } finally {
      // The client went away: the source is told so (what produces it stops), not left to fill a buffer.
      if (!ended) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  };
  const encoded = compressStream(Readable.from(rest(), { objectMode: false }), encoding);
  return new Response(Readable.toWeb(encoded) as ReadableStream, { ...init, headers: encodedHeaders(response.headers, encoding) });
}

function varied(headers: Headers): Headers {
  const out = new Headers(headers);
  out.set('vary', withVary(out.get('vary')));
  return out;
}

/** The same answer with `vary: Accept-Encoding` (its headers may be immutable: then a copy). */
function withVaryOn(response: Response): Response {
  try {
    response.headers.set('vary', withVary(response.headers.get('vary')));
    return response;
  } catch {
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: varied(response.headers) });
  }
}

const isPlainObject = (value: unknown): value is object => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return Array.isArray(value) || proto === Object.prototype || proto === null;
};

/** What a handler returned, compressed when the client asks for it and it is worth it; anything else unchanged. */
async function compressed(event: H3Event, result: unknown): Promise<unknown> {
  if (result === undefined || typeof result === 'symbol' || event.req.method === 'HEAD' || GIT_TRANSPORT.test(event.url.pathname)) return result;
  const encoding = chooseEncoding(event.req.headers.get('accept-encoding'));
  const prepared = event.res.headers;

  if (result instanceof Response) {
    const type = result.headers.get('content-type');
    if (!result.body || NO_BODY_STATUS.has(result.status) || !isCompressible(type) || !eligible(result.headers)) return result;
    return encoding ? compressResponse(result, encoding) : withVaryOn(result);
  }

  if (result instanceof HTTPResponse) {
    const body = result.body as unknown;
    const headers = result.headers;
    const status = result.status ?? event.res.status;
    const type = headers.get('content-type') ?? prepared.get('content-type');
    if (body === null || body === undefined || NO_BODY_STATUS.has(status ?? 200) || !isCompressible(type) || !eligible(headers) || !eligible(prepared)) return result;
    // h3 lays the event's own headers over these: one `vary` is kept, here.
    headers.set('vary', withVary(headers.get('vary') ?? prepared.get('vary')));
    prepared.delete('vary');
    if (!encoding) return result;
    if (body instanceof Readable) {
      const declared = Number(headers.get('content-length') ?? NaN);
      if (declared < MIN_COMPRESSED_BYTES) return result;
      return new HTTPResponse(compressStream(body, encoding) as unknown as BodyInit, { status, statusText: result.statusText, headers: encodedHeaders(headers, encoding) });
    }
    if (typeof body === 'string') return inMemory(Buffer.from(body), status, headers, encoding);
    if (body instanceof Uint8Array) return inMemory(Buffer.from(body.buffer, body.byteOffset, body.byteLength), status, headers, encoding, body);
    return result;
  }

  // Strings and JSON as h3 would send them (its content types), so that their bytes can be compressed here.
  const json = isPlainObject(result);
  if (typeof result !== 'string' && !json) return result;
  if (NO_BODY_STATUS.has(event.res.status ?? 200) || !eligible(prepared)) return result;
  const type = prepared.get('content-type') ?? (json ? 'application/json;charset=UTF-8' : 'text/plain; charset=UTF-8');
  if (!isCompressible(type)) return result;
  const headers = new Headers({ 'content-type': type, vary: withVary(prepared.get('vary')) });
  prepared.delete('vary');
  return inMemory(Buffer.from(json ? JSON.stringify(result) : (result as string)), undefined, headers, encoding);
}

/**
 * Each encoding of a body a handler gave as bytes, for as long as those bytes live: an answer kept in memory
 * (answer-cache.ts) is sent as the same bytes each time, and compressed once.
 */
const encodings = new WeakMap<Uint8Array, Partial<Record<ContentEncoding, Promise<Buffer>>>>();

/** `bytes` compressed, once per encoding for the same `source` object. */
function compressOnce(bytes: Buffer, encoding: ContentEncoding, source: Uint8Array): Promise<Buffer> {
  let known = encodings.get(source);
  if (!known) encodings.set(source, (known = {}));
  const encoded = (known[encoding] ??= compressBuffer(bytes, encoding));
  // A failure is not kept: the next answer tries again.
  encoded.catch(() => known[encoding] === encoded && delete known[encoding]);
  return encoded;
}

/**
 * A body held whole: compressed (asynchronously) when long enough and asked for, as it is otherwise. `source`: the
 * object the bytes came from, when it may be sent again (see `encodings`).
 */
async function inMemory(bytes: Buffer, status: number | undefined, headers: Headers, encoding: ContentEncoding | undefined, source?: Uint8Array): Promise<HTTPResponse> {
  if (!encoding || bytes.length < MIN_COMPRESSED_BYTES) {
    headers.set('content-length', String(bytes.length));
    return new HTTPResponse(asBody(bytes), { status, headers });
  }
  const encoded = await (source ? compressOnce(bytes, encoding, source) : compressBuffer(bytes, encoding));
  return new HTTPResponse(asBody(encoded), { status, headers: encodedHeaders(headers, encoding, encoded.length) });
}

/** Not already encoded (never compressed twice), and not marked `no-transform`. */
function eligible(headers: Headers): boolean {
  const encoding = headers.get('content-encoding');
  return (!encoding || encoding === 'identity') && !/\bno-transform\b/i.test(headers.get('cache-control') ?? '');
}

/**
 * Compression of every answer by `Accept-Encoding` (br or gzip), in one place: text types only (pages, JSON, CSS,
 * scripts, plain text), at least MIN_COMPRESSED_BYTES, never what is already encoded, never git's smart HTTP
 * (whatever its type), never HEAD. Every compressible answer says `Vary: Accept-Encoding`. Bodies held in memory are
 * compressed on zlib's thread pool; streamed bodies (raw files, diffs) stay streamed through a zlib stream.
 */
export function compression(): Middleware {
  return async (event, next) => compressed(event, await next());
}
