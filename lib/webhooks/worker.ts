import type { Db, SharedLocks } from '../store/interface.js';
import {
  hookById,
  hooksWithPendingDeliveries,
  nextPendingDelivery,
  pruneDeliveries,
  recordAttempt,
  type DeliveryRow,
  type HookRow,
} from '../store/queries/webhooks.js';
import type { SendResult } from './send.js';

/** What sends a delivery (node:https, DNS checks), loaded by the first delivery rather than by every host (issue 23). */
let sending: Promise<[typeof import('./request.js'), typeof import('./send.js')]> | undefined;
const loadSending = () =>
  (sending ??= Promise.all([import('./request.js'), import('./send.js')]).catch((error: unknown) => {
    sending = undefined;
    throw error;
  }));

export interface DeliveryPolicy {
  /** Time limit of one attempt. */
  timeoutMs: number;
  /** Attempts before a delivery stays failed. */
  maxAttempts: number;
  /** Wait before the second attempt; each further wait is four times the one before. */
  retryDelayMs: number;
  allowLocalNetwork: boolean;
}

/** Finished deliveries kept per hook (the newest); older ones are dropped now and then. */
const KEPT_DELIVERIES = 500;
/** How long to wait before reading again when the store refused (a failed flush being rolled back). */
const STORE_RETRY_MS = 1000;
/**
 * With other instances on the database: how often each looks for deliveries nobody is sending (an instance that died
 * while sending leaves them pending; its locks went with its connection).
 */
const SWEEP_MS = 5000;
/** The second part of the shared lock a hook's sender holds (the first is the hook's id). */
const SENDER_LOCK = 'webhook-sender';

/**
 * Sends the outbox: one loop per hook with something due, so a slow or dead hook never delays another, and within a
 * hook one delivery at a time in the order of the events. Every attempt is recorded durably; a pending delivery whose
 * attempt was cut off (the process ended) is simply sent again after restart.
 */
export class DeliveryWorker {
  readonly #draining = new Map<number, Promise<void>>();
  /** Hooks woken while their drain ran: drained once more when it ends (see `wake`). */
  readonly #wokenWhileDraining = new Set<number>();
  readonly #timers = new Map<number, { at: number; timer: NodeJS.Timeout }>();
  readonly #stop = new AbortController();
  /** Cut off by `suspend`: the attempts of one generation of the outbox. */
  #generation = new AbortController();
  #suspended = false;
  /** Resolved whenever a retry timer fires or is dropped (see `settled`). */
  #timerEvent: Promise<void> | undefined;
  #timerEventResolve: (() => void) | undefined;

  #sweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Db,
    private readonly policy: DeliveryPolicy,
    private readonly now: () => Date = () => new Date(),
    /**
     * Locks other instances of the database see (PostgreSQL): one instance at a time sends a hook's deliveries, in
     * order; without them this process is the only sender.
     */
    private readonly sharedLocks?: SharedLocks,
  ) {}

  #started = false;

  /** Starts sending (a serving host does; admin commands on a stopped host only record), beginning with what was pending. */
  async start(): Promise<void> {
    this.#started = true;
    this.wake(await hooksWithPendingDeliveries(this.store));
    if (this.sharedLocks) {
      this.#sweep = setInterval(() => {
        hooksWithPendingDeliveries(this.store).then(
          (hookIds) => this.wake(hookIds),
          () => undefined,
        );
      }, SWEEP_MS);
      this.#sweep.unref();
    }
  }

  /** Sends what is due for these hooks (called once the deliveries they got are durable). */
  wake(hookIds: readonly number[]): void {
    for (const hookId of hookIds) {
      if (!this.#started || this.#suspended || this.#stop.signal.aborted) continue;
      if (this.#draining.has(hookId)) {
        // What woke it may have committed after the running drain last looked (on PostgreSQL a look takes a while).
        this.#wokenWhileDraining.add(hookId);
        continue;
      }
      // A failure outside a delivery's own handling (the store, a malformed stored URL) tries again later; it never
      // reaches the process as an unhandled rejection.
      const drain = this.#drainAlone(hookId)
        .catch(() => this.#wakeAt(hookId, Date.now() + STORE_RETRY_MS))
        .finally(() => {
          this.#draining.delete(hookId);
          if (this.#wokenWhileDraining.delete(hookId)) this.wake([hookId]);
        });
      this.#draining.set(hookId, drain);
    }
  }

  /** Resolves once nothing is being sent right now (deliveries waiting for a retry may remain). */
  async idle(): Promise<void> {
    while (this.#draining.size > 0) await Promise.all(this.#draining.values());
  }

  /**
   * Resolves once every delivery recorded so far has reached its end, delivered or failed, its retries included
   * (`host.idle()`): a receiver that stays down makes this wait for every retry (see `webhookRetryDelayMs`).
   */
  async settled(): Promise<void> {
    for (;;) {
      if (this.#draining.size > 0) await Promise.all(this.#draining.values());
      else if (this.#timers.size > 0 && !this.#suspended) await (this.#timerEvent ??= new Promise<void>((resolve) => (this.#timerEventResolve = resolve)));
      else return;
    }
  }

  /**
   * Stops sending while the outbox is replaced under it (host.restore): attempts in flight are cut off and not
   * recorded, retry timers dropped. The returned function resumes with what the store then holds pending.
   */
  async suspend(): Promise<() => Promise<void>> {
    this.#suspended = true;
    this.#generation.abort();
    this.#dropTimers();
    await Promise.all(this.#draining.values());
    return async () => {
      this.#generation = new AbortController();
      this.#suspended = false;
      if (this.#started) this.wake(await hooksWithPendingDeliveries(this.store));
    };
  }

  /** Stops sending: attempts in flight are cut off and not recorded; what is pending stays pending on disk. */
  async close(): Promise<void> {
    this.#stop.abort();
    clearInterval(this.#sweep);
    this.#dropTimers();
    await Promise.all(this.#draining.values());
  }

  #dropTimers(): void {
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#timerFired();
  }

  #timerFired(): void {
    const resolve = this.#timerEventResolve;
    this.#timerEvent = this.#timerEventResolve = undefined;
    resolve?.();
  }

  /**
   * Drains the hook while no other instance does. Another instance that holds it sees what this one's wake was for: it
   * looks once more after letting go (below), so nothing committed meanwhile is left unsent.
   */
  async #drainAlone(hookId: number): Promise<void> {
    if (!this.sharedLocks) return await this.#drain(hookId);
    const release = await this.sharedLocks.tryLock([[hookId, SENDER_LOCK]], 'exclusive').catch(() => undefined);
    if (!release) return;
    try {
      await this.#drain(hookId);
    } finally {
      await release().catch(() => undefined);
    }
    // A delivery committed elsewhere while this drain was ending found the hook held: its instance skipped it. A drain
    // that stopped on a retry timer (a failed attempt, a store error) waits for it instead.
    if (this.#timers.has(hookId)) return;
    const next = await nextPendingDelivery(this.store, hookId).catch(() => undefined);
    if (next && next.next_attempt_at <= Date.now()) this.#wokenWhileDraining.add(hookId);
  }

  async #drain(hookId: number): Promise<void> {
    const signal = AbortSignal.any([this.#stop.signal, this.#generation.signal]);
    const modules = await loadSending().catch(() => undefined);
    if (!modules) return this.#wakeAt(hookId, Date.now() + STORE_RETRY_MS);
    const [{ deliveryRequest }, { postWebhook }] = modules;
    while (!signal.aborted) {
      let delivery: DeliveryRow | undefined;
      let hook: Awaited<ReturnType<typeof hookById>>;
      try {
        delivery = await nextPendingDelivery(this.store, hookId);
        hook = delivery && await hookById(this.store, hookId);
      } catch {
        return this.#wakeAt(hookId, Date.now() + STORE_RETRY_MS);
      }
      if (!delivery || !hook) return;
      if (delivery.next_attempt_at > Date.now()) return this.#wakeAt(hookId, delivery.next_attempt_at);
      const outgoing = deliveryRequest(hook, delivery, hook.repo_id);
      const result: SendResult =
        hook.active === 1
          ? await postWebhook(outgoing, { timeoutMs: this.policy.timeoutMs, allowLocal: this.policy.allowLocalNetwork, signal })
          : { statusCode: null, headers: null, body: null, error: 'not sent: the hook is not active', durationMs: 0 };
      if (signal.aborted) return;
      const recorded = await this.#record(hook, delivery, outgoing.headers, result);
      if (!recorded) return this.#wakeAt(hookId, Date.now() + STORE_RETRY_MS);
    }
  }

  /** Writes the attempt; false when the store refused it (the attempt is made again later). */
  async #record(hook: HookRow, delivery: DeliveryRow, requestHeaders: Record<string, string>, result: SendResult): Promise<boolean> {
    const attempts = delivery.attempts + 1;
    const succeeded = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const retry = !succeeded && hook.active === 1 && attempts < this.policy.maxAttempts;
    const at = this.now();
    try {
      await this.store.write(async (tx) => {
        await recordAttempt(tx, delivery.id, {
          state: succeeded ? 'delivered' : retry ? 'pending' : 'failed',
          // Retries are timers (real time); only the recorded time follows the host's clock.
          nextAttemptAt: retry ? Date.now() + this.policy.retryDelayMs * 4 ** (attempts - 1) : 0,
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          requestHeaders: JSON.stringify(requestHeaders),
          responseHeaders: result.headers && JSON.stringify(result.headers),
          responseBody: result.body,
          error: result.error ?? (succeeded ? null : `the receiver answered ${result.statusCode}`),
          at: at.toISOString(),
        });
        if (delivery.id % 50 === 0) await pruneDeliveries(tx, hook.id, KEPT_DELIVERIES);
      });
      return true;
    } catch {
      return false;
    }
  }

  #wakeAt(hookId: number, at: number): void {
    if (this.#suspended || this.#stop.signal.aborted) return;
    const existing = this.#timers.get(hookId);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(hookId);
      this.wake([hookId]);
      this.#timerFired();
    }, Math.max(0, at - Date.now()));
    // A retry due later never keeps the process alive on its own; close() clears it anyway.
    timer.unref();
    this.#timers.set(hookId, { at, timer });
  }
}
