// undici (the tests' client) is loaded before node:http: loaded after Node's own copy of it (which node:http or the
// global FormData wakes), its FormData bodies are no longer sent ("action is not a function", test/api/avatar.test.ts).
import 'undici';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Server, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { afterAll, expect } from 'vitest';
import { ANSWERS_DIR } from './report.js';
import { checkAnswer, type Answer } from './validate.js';
import { usedExceptions, type Mismatch } from './exceptions.js';

/**
 * vitest setupFile (issue 41): every answer under `/api/v3` that a host of this test process sends, whichever client
 * asked (undici, octokit, PyGithub, octokit.rb, Probot, gh), is kept and, after the file's tests, checked against
 * GitHub's OpenAPI description (validate.ts). A mismatch fails the file and names the operation, the field and the rule.
 * The tap is on node's ServerResponse, below repohost: nothing in the host knows it is watched.
 */
const TAPPED = Symbol.for('repohost.openapi.tapped');
const BODY = Symbol('repohost.openapi.body');
/** Bodies past this are not kept (archives, big blobs); their status and headers still are. */
const BODY_LIMIT = 16 * 1024 * 1024;

/** GitHub's API and its uploads host (release assets). */
const API = /^\/api\/(?:v3|uploads)(?:[/?]|$)/;

type Tapped = ServerResponse & { [BODY]?: { chunks: Buffer[]; size: number } };
const answers: Answer[] = [];
const sink = (globalThis as { [TAPPED]?: Answer[][] });

/**
 * Node's Server emits each request; its response gets write and end of its own that keep a copy of what goes out.
 * (Patching ServerResponse.prototype instead changes how undici's own FormData bodies are sent in the same process.)
 */
function tap(): void {
  const prototype = Server.prototype as unknown as { [TAPPED]?: boolean };
  if (prototype[TAPPED]) return;
  prototype[TAPPED] = true;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (this: Server, name: string | symbol, ...args: unknown[]) {
    if (name === 'request') {
      const [request, response] = args as [IncomingMessage, Tapped];
      if (API.test(request.url ?? '')) watch(response, request.url!);
    }
    return (emit as (...all: unknown[]) => boolean).call(this, name, ...args);
  } as typeof emit;
}

function watch(response: Tapped, url: string): void {
  const write = response.write;
  const end = response.end;
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const state = (response[BODY] ??= { chunks: [], size: 0 });
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    state.size += buffer.length;
    if (state.size <= BODY_LIMIT) state.chunks.push(buffer);
  };
  response.write = function (this: Tapped, chunk: unknown, ...rest: unknown[]) {
    keep(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof write;
  response.end = function (this: Tapped, ...args: unknown[]) {
    keep(args[0], args[1]);
    const result = (end as (...all: unknown[]) => ServerResponse).apply(this, args);
    (sink[TAPPED] ?? []).forEach((list) => list.push(answerOf(this, url)));
    return result;
  } as typeof end;
}

function answerOf(response: Tapped, url: string): Answer {
  const head = (response as unknown as { _header?: string })._header ?? '';
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  for (const [name, value] of Object.entries(response.getHeaders())) headers[name] ??= String(value);
  const state = response[BODY];
  let body = state && state.size <= BODY_LIMIT ? Buffer.concat(state.chunks) : Buffer.alloc(0);
  const encoding = headers['content-encoding'];
  try {
    if (encoding === 'gzip') body = gunzipSync(body);
    else if (encoding === 'br') body = brotliDecompressSync(body);
    else if (encoding === 'deflate') body = inflateSync(body);
  } catch {
    // A body cut short by a client that left: its status and headers are still checked.
  }
  const path = url.replace(/^\/api\/(?:v3|uploads)/, '').replace(/\?.*$/, '') || '/';
  return { method: response.req.method ?? 'GET', path, status: response.statusCode, headers, body: body.toString('utf8'), accept: response.req.headers.accept };
}

tap();
(sink[TAPPED] ??= []).push(answers);

afterAll(() => {
  sink[TAPPED] = (sink[TAPPED] ?? []).filter((list) => list !== answers);
  const operations: Record<string, { answers: number; conforming: boolean }> = {};
  const unserved = new Set<string>();
  const mismatches = new Map<string, Mismatch>();
  for (const answer of answers) {
    const verdict = checkAnswer(answer);
    if (verdict.kind === 'extra') continue;
    if (verdict.kind === 'unserved') {
      unserved.add(verdict.key);
      continue;
    }
    const entry = (operations[verdict.operation.key] ??= { answers: 0, conforming: true });
    entry.answers++;
    if (verdict.mismatches.length > 0) entry.conforming = false;
    // One line for a field of every item of a list (`/3/user/url` as `/*/user/url`).
    for (const mismatch of verdict.mismatches) {
      const field = mismatch.field.replace(/\/\d+(?=\/|$)/g, '/*');
      mismatches.set(`${mismatch.operation} ${mismatch.status} ${field} ${mismatch.rule}`, { ...mismatch, field });
    }
  }
  mkdirSync(ANSWERS_DIR, { recursive: true });
  const file = expect.getState().testPath ?? 'unknown';
  writeFileSync(join(ANSWERS_DIR, `${randomUUID()}.json`), JSON.stringify({ file, operations, unserved: [...unserved], exceptions: usedExceptions(), mismatches: [...mismatches.values()] }));
  if (mismatches.size > 0) {
    const lines = [...mismatches.values()].map((m) => `${m.operation} → ${m.status}: ${m.field || '(answer)'} [${m.rule}] ${m.message}`);
    throw new Error(`${mismatches.size} answers differ from GitHub's OpenAPI description (test/helpers/openapi/exceptions.ts lists the reviewed exceptions):\n${lines.join('\n')}`);
  }
});
