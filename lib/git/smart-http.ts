import { Readable, pipeline, type Transform } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { IdleTimer } from './idle-timer.js';
import { spawnGit, type GitChild } from './run-git.js';
import { peekCommands, type PeekedPush } from './push/commands.js';
import { ReportStatusReader, type ReceiveReport } from './push/report-status.js';
import type { RefChange } from './refs.js';
import { CHECK_RECEIVED_OBJECTS } from './dot-git.js';

/** The two git services smart HTTP serves. */
export type GitService = 'git-upload-pack' | 'git-receive-pack';

/** What `handleSmartHttp` needs from an HTTP request (a web Request fits, plus the sub-path). */
export interface SmartHttpRequest {
  method: string;
  /** Path below the repository: `info/refs`, `git-upload-pack` or `git-receive-pack`. */
  action: string;
  /** The `service` query parameter (info/refs only). */
  service?: string | null;
  headers: { get(name: string): string | null };
  /** Request body; a web stream or a Node stream (a Node IncomingMessage avoids one conversion). */
  body?: ReadableStream<Uint8Array> | Readable | null;
  /** Aborts when the client goes away: the git child is then stopped. */
  signal?: AbortSignal;
}

/** How one receive-pack runs: the hooks' settings, and what follows once it ended. */
export interface ReceiveSetup {
  /** Extra `-c` settings (the hooks folder). */
  config: string[];
  /** Extra environment (what the hooks need to reach the host). */
  env: Record<string, string | undefined>;
  /** Called with receive-pack's report-status as soon as it has gone by (the refs it moved), while the answer streams. */
  reported(report: ReceiveReport): void;
  /**
   * Called once receive-pack ended, before the answer ends (a push cut short may still have moved some refs, and the
   * host's records must follow the disk).
   */
  finish(): Promise<void>;
  /**
   * Set when no hook stands between receive-pack and the refs (a push the host admitted with no check to make): it
   * gets the body once this settles (what must be on disk first, the push's intent); rejected, the push is refused.
   */
  ready?: Promise<void>;
}

export interface SmartHttpOptions {
  /** A transfer in which no byte moved either way for this long is ended and its git killed; 0 for never. */
  idleTimeoutMs?: number;
  /** Read a push's commands ahead (see `receive`): only when the host may admit a push without its hook. */
  readAhead?: boolean;
  /**
   * Sets up one receive-pack (its hooks); called only when receive-pack is about to run, with the push's commands when
   * its whole body had arrived with them (see push/commands.ts): such a push may then run without a hook.
   */
  receive?: (commands?: RefChange[]) => Promise<ReceiveSetup>;
}

const SERVICES: readonly string[] = ['git-upload-pack', 'git-receive-pack'];
const SAFE_GIT_PROTOCOL = /^[0-9a-zA-Z]+=[0-9a-zA-Z]+(?::[0-9a-zA-Z]+=[0-9a-zA-Z]+)*$/;

/** The `GIT_PROTOCOL` value a client asked for (header or SSH environment) if it is well formed, for upload-pack only (git has no v2 push). */
export function gitProtocolFor(service: string, requested: string | null | undefined): string | undefined {
  const value = (requested ?? '').trim();
  return service === 'git-upload-pack' && SAFE_GIT_PROTOCOL.test(value) ? value : undefined;
}

/**
 * The settings each service runs with, over any transport. As Gitea: partial clone filters and wants by object id work
 * over protocol v0 as they do over v2 (which accepts any want); pushes may carry options (`git push -o`). As GitHub,
 * pushed objects are checked (see CHECK_RECEIVED_OBJECTS, issue 38).
 */
export function serviceConfig(service: GitService): string[] {
  return service === 'git-receive-pack'
    ? ['-c', 'receive.denyDeletes=false', '-c', 'receive.denyNonFastForwards=false', '-c', 'receive.autogc=false', '-c', 'receive.advertisePushOptions=true', ...CHECK_RECEIVED_OBJECTS]
    : ['-c', 'uploadpack.allowFilter=true', '-c', 'uploadpack.allowAnySHA1InWant=true'];
}

/** Headers every git response carries: proxies must never cache refs or packs. */
const NO_CACHE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
  Pragma: 'no-cache',
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
});

/**
 * The service a request asks for (so the route can decide which credentials it needs), or null
 * when it is not a smart-HTTP request we serve.
 */
export function requestedService(action: string, service: string | null | undefined): GitService | null {
  const name = action === 'info/refs' ? service : action;
  return name && SERVICES.includes(name) ? (name as GitService) : null;
}

/** A smart-HTTP answer before it becomes a web Response: the body is a Node stream (or text). */
export interface GitHttpResult {
  status: number;
  headers: Record<string, string>;
  body: Readable | string | null;
}

/** A short text answer with the no-cache headers (errors, refusals). */
export function plain(status: number, message: string, extra: Record<string, string> = {}): GitHttpResult {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...NO_CACHE_HEADERS, ...extra }, body: `${message}\n` };
}

/** Turns a result into a web Response (the child's stdout through `Readable.toWeb`). */
export function toWebResponse(result: GitHttpResult): Response {
  const body = result.body instanceof Readable ? (Readable.toWeb(result.body) as ReadableStream) : result.body;
  return new Response(body, { status: result.status, headers: result.headers });
}

async function readSmall(body: SmartHttpRequest['body'], limit: number): Promise<string | null> {
  if (!body) return '';
  const stream = body instanceof Readable ? body : Readable.fromWeb(body as import('node:stream/web').ReadableStream);
  let text = '';
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    text += Buffer.from(chunk).toString('latin1');
    if (text.length > limit) return null;
  }
  return text;
}

/** Ends a transfer whose client stopped reading: git is killed at once (a stalled pack is not worth a goodbye). */
function stall(child: GitChild, out: Readable): void {
  child.kill('SIGKILL');
  out.destroy();
}

function pktLine(text: string): string {
  return (text.length + 4).toString(16).padStart(4, '0') + text;
}

/**
 * Serves git smart HTTP for one repository by running `git upload-pack` / `git receive-pack`
 * with `--stateless-rpc`, streaming both ways with backpressure (the request body, decompressed
 * when gzip/deflate encoded, is piped into the child; the child's stdout is the response body, left a
 * Node stream so a Node server pipes it straight into the socket). Authorisation is the caller's job.
 * Protocol v2 is passed through `GIT_PROTOCOL` (upload-pack only: git has no v2 push).
 */
export async function handleSmartHttp(gitDir: string, request: SmartHttpRequest, options: SmartHttpOptions = {}): Promise<GitHttpResult> {
  const service = requestedService(request.action, request.service);
  if (request.action === 'info/refs') {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(405, 'Method not allowed', { Allow: 'GET' });
    if (!service) return plain(403, 'Only the smart HTTP protocol is supported; please upgrade your git client');
  } else {
    if (!service) return plain(404, 'Not found');
    if (request.method !== 'POST') return plain(405, 'Method not allowed', { Allow: 'POST' });
    const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== `application/x-${service}-request`) return plain(415, `Content-Type must be application/x-${service}-request`);
  }
  let decoder: Transform | undefined;
  if (request.action !== 'info/refs') {
    const encoding = (request.headers.get('content-encoding') ?? '').trim().toLowerCase();
    if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
    else if (encoding === 'deflate') decoder = createInflate();
    else if (encoding !== '' && encoding !== 'identity') return plain(415, 'Unsupported Content-Encoding');
  }
  const protocol = gitProtocolFor(service, request.headers.get('git-protocol'));
  const command = service === 'git-upload-pack' ? 'upload-pack' : 'receive-pack';
  const config = serviceConfig(service);
  const env: Record<string, string | undefined> = { GIT_PROTOCOL: protocol };

  if (request.action === 'info/refs' && request.method === 'HEAD') {
    return { status: 200, headers: { 'Content-Type': `application/x-${service}-advertisement`, ...NO_CACHE_HEADERS }, body: null };
  }
  if (request.action === 'info/refs') {
    const child = spawnGit([...config, command, '--stateless-rpc', '--advertise-refs', '.'], { gitDir, env, signal: request.signal });
    child.stdin.end();
    const idle: IdleTimer = new IdleTimer(options.idleTimeoutMs ?? 0, (): boolean => out.readableLength > 0, () => stall(child, out));
    const out: Transform = idle.tap();
    const v2 = !!protocol && /(?:^|:)version=2(?::|$)/.test(protocol);
    if (!v2) out.write(`${pktLine(`# service=${service}\n`)}0000`);
    child.stdout.pipe(out, { end: false });
    child.done.then(
      () => out.end(),
      (error: Error) => out.destroy(error),
    );
    out.on('close', () => {
      idle.stop();
      child.kill('SIGTERM');
    });
    return { status: 200, headers: { 'Content-Type': `application/x-${service}-advertisement`, ...NO_CACHE_HEADERS }, body: out };
  }

  if (service === 'git-receive-pack' && !decoder && request.headers.get('content-length') === '4') {
    // git probes with a lone flush packet before a large push (to settle authentication first);
    // receive-pack would read it and print nothing, so answer without running anything.
    const bytes = await readSmall(request.body, 4);
    if (bytes === '0000') return { status: 200, headers: { 'Content-Type': `application/x-${service}-result`, ...NO_CACHE_HEADERS }, body: null };
    return plain(400, 'Bad request');
  }
  let bodyDone = false;
  let started: GitChild | undefined;
  let front: Readable | undefined;
  const idle: IdleTimer = new IdleTimer(options.idleTimeoutMs ?? 0, (): boolean => !bodyDone || out.readableLength > 0, () => {
    if (started) stall(started, out);
    else front?.destroy(new Error('the client sent nothing for too long'));
  });
  const body = request.body ? (request.body instanceof Readable ? request.body : Readable.fromWeb(request.body as import('node:stream/web').ReadableStream)) : Readable.from([]);
  const input = idle.tap();
  input.once('end', () => (bodyDone = true));
  const stages: NodeJS.ReadableStream[] = decoder ? [body, input, decoder] : [body, input];
  // Made before any wait: the idle timer looks at it.
  const out: Transform = idle.tap();
  let setup: ReceiveSetup | undefined;
  let child: GitChild;
  if (service === 'git-receive-pack' && options.receive && options.readAhead) {
    // A push's commands are read ahead, with whatever else of its body is already here: a small push the host admits
    // needs no hook. Its body is given to git whole (see push/commands.ts).
    let failed = false;
    const onFrontError = (error: NodeJS.ErrnoException | null) => {
      if (!error) return;
      failed = true;
      started?.kill('SIGTERM');
    };
    const joined: Readable = decoder ? pipeline(body, input, decoder, onFrontError) : pipeline(body, input, onFrontError);
    front = joined;
    let peeked: PeekedPush;
    try {
      peeked = await peekCommands(joined);
      setup = await options.receive(peeked.complete ? peeked.commands : undefined);
    } catch (error) {
      // Nothing runs: the idle timer and the streams end with the request.
      idle.stop();
      joined.destroy();
      out.destroy();
      throw error;
    }
    const admittedSetup = setup;
    try {
      child = started = spawnGit([...config, ...setup.config, command, '--stateless-rpc', '.'], { gitDir, env: { ...env, ...setup.env }, signal: request.signal });
    } catch (error) {
      // git never ran: what the push set going (its intent, its admission) ends here.
      idle.stop();
      joined.destroy();
      await admittedSetup.finish().catch(() => undefined);
      throw error;
    }
    if (failed) child.kill('SIGTERM');
    const admitted = setup.ready ? setup.ready.then(() => true, () => false) : Promise.resolve(true);
    void admitted.then((go) => {
      // Refused before anything reached git: nothing moves.
      if (!go) {
        child.kill('SIGTERM');
        peeked.body.destroy();
        return;
      }
      pipeline(peeked.body, child.stdin, (error) => {
        if (error) child.kill('SIGTERM');
      });
    });
  } else {
    setup = service === 'git-receive-pack' ? await options.receive?.() : undefined;
    child = started = spawnGit([...config, ...(setup?.config ?? []), command, '--stateless-rpc', '.'], { gitDir, env: { ...env, ...setup?.env }, signal: request.signal });
    pipeline([...stages, child.stdin] as unknown as [Readable, NodeJS.WritableStream], (error) => {
      // A client that disconnects, or a corrupt gzip body: stop git rather than let it wait for input.
      if (error) child.kill('SIGTERM');
    });
  }
  out.on('close', () => {
    idle.stop();
    child.kill('SIGTERM');
  });
  // git that could not start ends the answer (its output would never end it).
  child.once('error', (error: Error) => out.destroy(error));
  if (!setup) child.stdout.pipe(out);
  else {
    const receiving = setup;
    // What git moved is read from its own report as it goes by, and recorded while receive-pack finishes.
    const report = new ReportStatusReader((moved) => receiving.reported(moved));
    child.stdout.on('data', (chunk: Buffer) => report.push(chunk));
    child.stdout.pipe(out, { end: false });
    // The answer ends only once what the push changed is recorded: the client never learns of a push the host
    // has not recorded (a crash before that is reconciled at the next start).
    child.done
      .catch(() => undefined)
      .then(() => receiving.finish())
      .catch(() => undefined)
      .finally(() => out.end());
  }
  return { status: 200, headers: { 'Content-Type': `application/x-${service}-result`, ...NO_CACHE_HEADERS }, body: out };
}
