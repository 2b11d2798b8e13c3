import { Readable } from 'node:stream';
import type { RefChange } from '../refs.js';

/** The most bytes of a push read ahead (its commands and, for a small push, all of it); past it the hook decides. */
const MAX_READ_AHEAD = 4 * 1024 * 1024;
/** The most bytes of a push's command list read ahead (about 10,000 refs). */
const MAX_COMMAND_BYTES = 1024 * 1024;
const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The next chunk of a paused stream, or null at its end (or when it was destroyed). */
function nextChunk(source: Readable): Promise<Buffer | null> {
  const chunk = source.read() as Buffer | null;
  if (chunk !== null) return Promise.resolve(chunk);
  if (source.readableEnded || source.destroyed) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const done = () => {
      source.off('readable', onReadable);
      source.off('end', onEnd);
      source.off('close', onEnd);
      source.off('error', onError);
    };
    const onReadable = () => {
      done();
      resolve(nextChunk(source));
    };
    const onEnd = () => {
      done();
      resolve(null);
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    source.on('readable', onReadable);
    source.once('end', onEnd);
    source.once('close', onEnd);
    source.once('error', onError);
  });
}

/** What has arrived of a stream without waiting for more: a chunk, null at its end, or `later` when none is there yet. */
async function arrivedChunk(source: Readable): Promise<Buffer | null | 'later'> {
  const chunk = source.read() as Buffer | null;
  if (chunk !== null) return chunk;
  if (source.readableEnded || source.destroyed) return null;
  // The end of a body that has arrived whole is told on the next turn of the event loop: wait that long, no longer,
  // and read nothing meanwhile (what comes later stays in the stream for git).
  const woke = await new Promise<'more' | 'later'>((resolve) => {
    const wake = (why: 'more' | 'later') => () => {
      clearImmediate(timer);
      source.off('readable', onMore);
      source.off('end', onMore);
      source.off('close', onMore);
      resolve(why);
    };
    const onMore = wake('more');
    const timer = setImmediate(wake('later'));
    source.once('readable', onMore);
    source.once('end', onMore);
    source.once('close', onMore);
  });
  if (woke === 'later') return 'later';
  const next = source.read() as Buffer | null;
  if (next !== null) return next;
  return source.readableEnded || source.destroyed ? null : 'later';
}

/** A push's commands read ahead of receive-pack, whether its whole body had arrived by then, and the body to give git. */
export interface PeekedPush {
  /** Undefined when they cannot be told for sure (a signed push, a malformed or very long list, a body cut short). */
  commands: RefChange[] | undefined;
  /** The whole body arrived with them (a small push): nothing the client sends later can be part of the push. */
  complete: boolean;
  /** The body again whole (what was read, then the rest, its end or failure included), for receive-pack. */
  body: Readable;
}

/**
 * The commands of a receive-pack request (git's `old new ref` pkt-lines before the first flush), read ahead from the
 * request body together with whatever else of it has already arrived (see PeekedPush). Each chunk is looked at once:
 * the commands are parsed as their lines complete, and the chunks are joined only to give the body back.
 */
export async function peekCommands(source: Readable): Promise<PeekedPush> {
  const chunks: Buffer[] = [];
  let size = 0;
  const list = new CommandList();
  let complete = false;
  try {
    while (size <= MAX_READ_AHEAD) {
      // Before the commands, wait for them; after them, take only what is already there.
      const chunk = list.done ? await arrivedChunk(source) : await nextChunk(source);
      if (chunk === 'later') break;
      if (chunk === null) {
        // Ended, not cut off (a stream destroyed by a failure or the idle limit has no proper end).
        complete = list.commands !== undefined && source.readableEnded;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
      if (!list.done && (!list.add(chunk) || size > MAX_COMMAND_BYTES)) break;
    }
  } catch {
    // The body failed: receive-pack reads what there was, and the failure, from the body given back.
    complete = false;
  }
  return { commands: list.commands, complete, body: Readable.from(prefixed(Buffer.concat(chunks, size), source), { objectMode: false }) };
}

/** What was read ahead, then the rest of the stream (its end or its failure too). */
async function* prefixed(head: Buffer, rest: Readable): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  if (!rest.readableEnded) for await (const chunk of rest) yield chunk as Buffer;
}

/**
 * A command list parsed as its bytes come: `add` takes the next chunk and answers false once the list is not one this
 * reads; `commands` is set once the list ended (at its flush) and held at least one command.
 */
class CommandList {
  commands: RefChange[] | undefined;
  done = false;
  #pending: Buffer = Buffer.alloc(0);
  readonly #parsed: RefChange[] = [];
  readonly #refs = new Set<string>();

  add(chunk: Buffer): boolean {
    let bytes = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (;;) {
      if (bytes.length < 4) break;
      const length = Number.parseInt(bytes.toString('latin1', 0, 4), 16);
      if (!/^[0-9a-f]{4}$/.test(bytes.toString('latin1', 0, 4)) || (length !== 0 && length < 4)) return this.#stop();
      if (length === 0) {
        this.done = true;
        this.commands = this.#parsed.length > 0 ? this.#parsed : undefined;
        return this.commands !== undefined;
      }
      if (bytes.length < length) break;
      const line = bytes.toString('utf8', 4, length).replace(/\n$/, '');
      bytes = bytes.subarray(length);
      // Shallow lines come first; a signed push (push-cert) is left to the hook.
      if (line.startsWith('shallow ')) continue;
      const [command] = line.split('\0', 1);
      const [before, after, ref, extra] = command!.split(' ');
      if (!before || !after || !ref || extra !== undefined || !OBJECT_ID.test(before) || !OBJECT_ID.test(after)) return this.#stop();
      // A ref named twice: which of its commands git carried out is not told by name (its hook sorts that out).
      if (this.#refs.has(ref)) return this.#stop();
      this.#refs.add(ref);
      this.#parsed.push({ ref, before, after });
    }
    // What is left is the start of a line (at most one line's worth): kept, never the whole buffer.
    this.#pending = Buffer.from(bytes);
    return true;
  }

  #stop(): false {
    this.done = true;
    this.commands = undefined;
    return false;
  }
}
