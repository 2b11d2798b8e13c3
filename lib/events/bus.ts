import type { HostEvent, RepoEventMap, RepoEventName } from './types.js';

export type EventListener<N extends RepoEventName> = (payload: RepoEventMap[N], event: HostEvent<N>) => void | Promise<void>;

export interface WaitForOptions {
  /** Rejects after this many milliseconds. @default 5000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Raised by `waitFor` when no matching event came in time. */
export class EventTimeoutError extends Error {
  constructor(readonly eventName: string, readonly timeoutMs: number) {
    super(`no matching '${eventName}' event within ${timeoutMs} ms`);
    this.name = 'EventTimeoutError';
  }
}

/**
 * The host's events for code in the same process: the same events, with the same payloads, that webhooks carry,
 * emitted once the change that caused them is durable. A listener that throws (or rejects) never breaks the server.
 */
export class HostEvents {
  readonly #listeners = new Map<RepoEventName | '*', Set<EventListener<RepoEventName>>>();

  /** Calls `listener` for every event of that name (`'*'`: every event); returns a function that stops it. */
  on<N extends RepoEventName>(name: N, listener: EventListener<N>): () => void;
  on(name: '*', listener: EventListener<RepoEventName>): () => void;
  on(name: RepoEventName | '*', listener: EventListener<never>): () => void {
    let set = this.#listeners.get(name);
    if (!set) this.#listeners.set(name, (set = new Set()));
    set.add(listener as EventListener<RepoEventName>);
    return () => this.off(name, listener);
  }

  /** Whether anyone in the process listens for events of that name. */
  hears(name: RepoEventName): boolean {
    return (this.#listeners.get(name)?.size ?? 0) > 0 || (this.#listeners.get('*')?.size ?? 0) > 0;
  }

  off(name: RepoEventName | '*', listener: EventListener<never>): void {
    this.#listeners.get(name)?.delete(listener as EventListener<RepoEventName>);
  }

  /**
   * Resolves with the payload of the first event of that name, emitted after this call, that `predicate` accepts.
   * Start waiting before the action that causes the event: a push acknowledged to git has already emitted its events.
   */
  waitFor<N extends RepoEventName>(name: N, predicate?: (payload: RepoEventMap[N]) => boolean, options: WaitForOptions = {}): Promise<RepoEventMap[N]> {
    const timeoutMs = options.timeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      const finish = () => {
        stop();
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', aborted);
      };
      const stop = this.on(name, (payload: RepoEventMap[N]) => {
        if (predicate && !predicate(payload)) return;
        finish();
        resolve(payload);
      });
      const timer = setTimeout(() => {
        finish();
        reject(new EventTimeoutError(name, timeoutMs));
      }, timeoutMs);
      const aborted = () => {
        finish();
        reject(options.signal!.reason);
      };
      if (options.signal?.aborted) aborted();
      else options.signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Delivers one event to its listeners (a predicate that throws counts as not matching). */
  emit<N extends RepoEventName>(event: HostEvent<N>): void {
    for (const key of [event.name, '*'] as const) {
      for (const listener of [...(this.#listeners.get(key) ?? [])]) {
        try {
          const result = (listener as EventListener<N>)(event.payload, event);
          if (result instanceof Promise) result.catch(() => undefined);
        } catch {
          /* a listener's failure is its own */
        }
      }
    }
  }
}
