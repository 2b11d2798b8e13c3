import { Readable } from 'node:stream';
import type { RefChange } from '../refs.js';

/** The most bytes of a push read ahead (its commands and, for a small push, all of it); past it the hook decides. */
const MAX_READ_AHEAD = 4 * 1024 * 1024;
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
 * request body together with whatever else of it has already arrived (see PeekedPush).
 */
export async function peekCommands(source: Readable): Promise<PeekedPush> {
  let buffered: Buffer = Buffer.alloc(0);
  let commands: RefChange[] | undefined;
  let complete = false;
  try {
    for (;;) {
      if (buffered.length > MAX_READ_AHEAD) break;
      if (commands === undefined) {
        const parsed = parseCommands(buffered);
        if (parsed === undefined) break;
        if (parsed !== 'more') commands = parsed;
      }
      // Before the commands, wait for them; after them, take only what is already there.
      const chunk = commands === undefined ? await nextChunk(source) : await arrivedChunk(source);
      if (chunk === 'later') break;
      if (chunk === null) {
        // Ended, not cut off (a stream destroyed by a failure or the idle limit has no proper end).
        complete = commands !== undefined && source.readableEnded;
        break;
      }
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    }
  } catch {
    // The body failed: receive-pack reads what there was, and the failure, from the body given back.
    complete = false;
  }
  return { commands, complete, body: Readable.from(prefixed(buffered, source), { objectMode: false }) };
}

/** What was read ahead, then the rest of the stream (its end or its failure too). */
async function* prefixed(head: Buffer, rest: Readable): AsyncGenerator<Buffer> {
  if (head.length > 0) yield head;
  if (!rest.readableEnded) for await (const chunk of rest) yield chunk as Buffer;
}

/** The commands of a whole command list, `more` while it is not all there, undefined when it is not one this reads. */
function parseCommands(bytes: Buffer): RefChange[] | 'more' | undefined {
  const commands: RefChange[] = [];
  for (let at = 0; ; ) {
    if (bytes.length < at + 4) return 'more';
    const length = Number.parseInt(bytes.toString('latin1', at, at + 4), 16);
    if (!Number.isInteger(length) || (length !== 0 && length < 4)) return undefined;
    if (length === 0) return commands.length > 0 ? commands : undefined;
    if (bytes.length < at + length) return 'more';
    const line = bytes.toString('utf8', at + 4, at + length).replace(/\n$/, '');
    at += length;
    // Shallow lines come first; a signed push (push-cert) is left to the hook.
    if (line.startsWith('shallow ')) continue;
    const [command] = line.split('\0', 1);
    const [before, after, ref, extra] = command!.split(' ');
    if (!before || !after || !ref || extra !== undefined || !OBJECT_ID.test(before) || !OBJECT_ID.test(after)) return undefined;
    commands.push({ ref, before, after });
  }
}
