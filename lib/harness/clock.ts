/**
 * A clock a harness moves from outside (`repohost serve --harness`): the real time, shifted by what it was advanced,
 * or a time it was set to, which then stands still until advanced or released. Give `now` to `createRepoHost`.
 */
export class HarnessClock {
  #fixed: number | undefined;
  #offset = 0;

  readonly now = (): Date => new Date(this.#fixed ?? Date.now() + this.#offset);

  /** Stops the clock at `at`, or lets it run with the real time again (`null`). */
  set(at: Date | null): void {
    this.#fixed = at === null ? undefined : at.getTime();
    this.#offset = 0;
  }

  advance(ms: number): void {
    if (this.#fixed === undefined) this.#offset += ms;
    else this.#fixed += ms;
  }

  get stopped(): boolean {
    return this.#fixed !== undefined;
  }
}
