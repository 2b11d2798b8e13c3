/**
 * Caps expensive operations running at once, in all and per client (an address, a user), so a few clients cannot
 * hold every place: git transfers, imports. Beyond a cap the caller answers 503 with Retry-After.
 */
export class ConcurrencyGate {
  #running = 0;
  readonly #perClient = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly maxPerClient: number,
  ) {}

  /** Takes a place: a release function (call once, when the transfer ends), or the reason there is none. */
  enter(client: string): (() => void) | 'busy' | 'client-busy' {
    const mine = this.#perClient.get(client) ?? 0;
    if (mine >= this.maxPerClient) return 'client-busy';
    if (this.#running >= this.max) return 'busy';
    this.#running += 1;
    this.#perClient.set(client, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
      const left = (this.#perClient.get(client) ?? 1) - 1;
      if (left > 0) this.#perClient.set(client, left);
      else this.#perClient.delete(client);
    };
  }
}
