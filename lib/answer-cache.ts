import { createHash } from 'node:crypto';

// Kept apart from http/answer-cache.ts (how a request is answered from it) so that the host's context can hold one
// without importing the HTTP layer.

/** A JSON answer serialized once: its bytes, their weak ETag, and the headers its page set (`link`, `x-total-count`). */
export class PreparedJson {
  readonly etag: string;

  constructor(
    readonly bytes: Buffer,
    readonly headers: ReadonlyArray<readonly [string, string]>,
  ) {
    this.etag = `W/"${createHash('sha1').update(bytes).digest('hex')}"`;
  }
}

/** The most bytes of answers kept, and of one answer (a larger one is served, not kept). */
const MAX_BYTES = 16 << 20;
const MAX_ANSWER_BYTES = 1 << 20;
/** The most keys remembered as asked for once (see `askedOnce`). */
const MAX_ASKED_ONCE = 4096;

/**
 * Answers to reads kept while the database's `dataVersion` stays the same: a poller asking for the same list again
 * (bots do, every few seconds) is answered without a query or a serialization. Any commit changes the version and
 * so forgets every answer; an engine without an exact version (PostgreSQL, written by other instances) keeps none.
 * What the key does not name must not change an answer: callers check access first and name the request's URL, its
 * `Accept` and its viewer.
 */
export class AnswerCache {
  private version: number | undefined;
  /** Oldest use first (a Map keeps insertion order; a hit moves its entry to the end). */
  private readonly answers = new Map<string, PreparedJson>();
  private bytes = 0;
  /**
   * Keys asked for once at this version, their answers not kept: an answer is kept when it is asked for again (a
   * poller's), not for every URL asked once (each would be kept, then evicted, and the garbage collector would pay).
   */
  private readonly askedOnce = new Set<string>();

  constructor(private readonly dataVersion: () => number | undefined) {}

  async answer(key: string, make: () => Promise<PreparedJson>): Promise<PreparedJson> {
    const version = this.dataVersion();
    if (version === undefined) return await make();
    if (version !== this.version) this.forget(version);
    const kept = this.answers.get(key);
    if (kept) {
      this.answers.delete(key);
      this.answers.set(key, kept);
      return kept;
    }
    const made = await make();
    // Kept only when nothing was committed while it was made (its reads all saw this one version), and asked before.
    if (this.dataVersion() !== version || this.version !== version || made.bytes.length > MAX_ANSWER_BYTES) return made;
    if (this.askedOnce.delete(key)) this.keep(key, made);
    else this.remember(key);
    return made;
  }

  private keep(key: string, answer: PreparedJson): void {
    const previous = this.answers.get(key);
    if (previous) this.bytes -= previous.bytes.length;
    this.answers.set(key, answer);
    this.bytes += answer.bytes.length;
    for (const [oldest, dropped] of this.answers) {
      if (this.bytes <= MAX_BYTES) break;
      this.answers.delete(oldest);
      this.bytes -= dropped.bytes.length;
    }
  }

  private remember(key: string): void {
    if (this.askedOnce.size >= MAX_ASKED_ONCE) this.askedOnce.delete(this.askedOnce.values().next().value!);
    this.askedOnce.add(key);
  }

  private forget(version: number): void {
    this.answers.clear();
    this.askedOnce.clear();
    this.bytes = 0;
    this.version = version;
  }
}

