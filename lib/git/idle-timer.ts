import { Transform, type TransformCallback } from 'node:stream';

/**
 * Ends a transfer in which nothing moved for `timeoutMs` because of the client: one that asks for a pack and never
 * reads it, or stops sending its body, holds a git process (and its memory) only that long. Data through any
 * `tap()` counts as movement; when the time is up, `waitingOnClient()` tells a stalled client (answer bytes left
 * unread, body unfinished) from git still at work (a large push being indexed), which is given more time.
 */
export class IdleTimer {
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, waitingOnClient: () => boolean, onIdle: () => void) {
    if (timeoutMs > 0) {
      const timer = setTimeout(() => (waitingOnClient() ? onIdle() : timer.refresh()), timeoutMs);
      timer.unref();
      this.#timer = timer;
    }
  }

  /** A pass-through stream whose every chunk restarts the clock. */
  tap(): Transform {
    const timer = this.#timer;
    return new Transform({
      transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
        timer?.refresh();
        done(null, chunk);
      },
    });
  }

  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
  }
}
