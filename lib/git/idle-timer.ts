import { Transform, type TransformCallback } from 'node:stream';

/**
 * Ends a transfer in which nothing moved for `timeoutMs`: a client that asks for a pack and never reads it holds a
 * git process (and its memory) only that long. Data through any `tap()` counts as movement.
 */
export class IdleTimer {
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, onIdle: () => void) {
    if (timeoutMs > 0) {
      this.#timer = setTimeout(onIdle, timeoutMs);
      this.#timer.unref();
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
