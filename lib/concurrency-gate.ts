/** A taken place: call once, when the work ends (further calls do nothing). */
export type Release = () => void;

/** Why no place was given: every place is taken, or the client's are. */
export type GateRefusal = 'busy' | 'client-busy';

interface Waiter {
  readonly client: string;
  settle(outcome: Release | GateRefusal | 'aborted'): void;
}

/**
 * Caps expensive operations running at once, in all and per client (an address, a user), so a few clients cannot
 * hold every place: git transfers, imports. `enter` answers at once; `wait` queues (FIFO) for a bounded time, as a
 * client running many jobs in parallel would otherwise see refusals a moment's wait avoids. Beyond a cap (or the
 * wait) the caller answers 503 with Retry-After.
 */
export class ConcurrencyGate {
  #running = 0;
  readonly #perClient = new Map<string, number>();
  readonly #waiting: Waiter[] = [];

  constructor(
    private readonly max: number,
    private readonly maxPerClient: number,
  ) {}

  /** Takes a place: a release function (call once, when the work ends), or the reason there is none. */
  enter(client: string): Release | GateRefusal {
    // Waiters left in the queue cannot enter (each release admits every one that fits), so one that can enter now
    // never overtakes a waiter of its own client: those are all held by the same per-client cap, or by the total.
    return this.#refusal(client) ?? this.#take(client);
  }

  /**
   * Takes a place, waiting for one up to `timeoutMs` behind earlier waiters (first come, first served among those
   * a freed place fits). Answers the reason after the wait, or `'aborted'` as soon as `signal` aborts (the client
   * left: its turn goes to the next one).
   */
  wait(client: string, timeoutMs: number, signal?: AbortSignal): Promise<Release | GateRefusal | 'aborted'> {
    if (signal?.aborted) return Promise.resolve('aborted');
    const now = this.enter(client);
    if (typeof now === 'function' || timeoutMs <= 0) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        client,
        settle: (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const index = this.#waiting.indexOf(waiter);
          if (index >= 0) this.#waiting.splice(index, 1);
          resolve(outcome);
        },
      };
      const onAbort = () => waiter.settle('aborted');
      const timer = setTimeout(() => waiter.settle(this.#refusal(client) ?? 'busy'), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Places taken and requests waiting, in all (tests, diagnostics). */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  #refusal(client: string): GateRefusal | undefined {
    if ((this.#perClient.get(client) ?? 0) >= this.maxPerClient) return 'client-busy';
    if (this.#running >= this.max) return 'busy';
    return undefined;
  }

  #take(client: string): Release {
    this.#running += 1;
    this.#perClient.set(client, (this.#perClient.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      const left = (this.#perClient.get(client) ?? 1) - 1;
      if (left > 0) this.#perClient.set(client, left);
      else this.#perClient.delete(client);
      this.#admitWaiters();
    };
  }

  /** Gives freed places to the oldest waiters that fit (a waiter held by its client's cap lets others pass). */
  #admitWaiters(): void {
    for (let index = 0; index < this.#waiting.length && this.#running < this.max; ) {
      const waiter = this.#waiting[index]!;
      if (this.#refusal(waiter.client) === undefined) waiter.settle(this.#take(waiter.client)); // removes it
      else index += 1;
    }
  }
}
