import { isIPv6 } from 'node:net';
import { LruCache } from '../git/lru.js';

/** Key fingerprints that authenticated before, remembered for the reserved slots (see SshSlots). */
const KNOWN_KEYS = 4096;

/** The source connections are counted by: an IPv4 address as it is, an IPv6 one by its /64 (one host holds a /64). */
export function sourceOf(address: string): string {
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back] : front;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** A connection as the slots see it. */
export interface SlotHolder {
  readonly source: string;
  /** When it connected (ms). */
  readonly since: number;
  /** Whether it has authenticated: such a connection is never pushed out. */
  authenticated(): boolean;
  /** Ends it at once (pushed out for a newcomer). */
  end(): void;
}

/** How a connection was let in: to any slot, or to one kept for keys that authenticated before. */
export type Admission = 'open' | 'reserved';

/**
 * Who may hold the SSH server's connection slots (issue 38), so that a few sources of silent sockets cannot keep
 * everyone else out:
 * - at most `perSource` connections from one source (IPv6 counted per /64);
 * - the last eighth of the slots is kept for keys that authenticated before: a connection let into one must sign in
 *   with such a key (`mayUse`), and is held to the short grace of silent connections until it has;
 * - when every slot is taken, a newcomer takes the place of the oldest unauthenticated connection of the source that
 *   holds the most of them, if that is more than one above the newcomer's own; authenticated ones are never pushed out.
 */
export class SshSlots {
  readonly #holders = new Set<SlotHolder>();
  readonly #perSource = new Map<string, number>();
  readonly #known = new LruCache<string, true>(KNOWN_KEYS);
  readonly #reserved: number;

  constructor(private readonly limits: { total: number; perSource: number }) {
    this.#reserved = Math.floor(limits.total / 8);
  }

  get size(): number {
    return this.#holders.size;
  }

  /** Lets a connection in, or undefined when there is no room for it. */
  admit(holder: SlotHolder): Admission | undefined {
    if ((this.#perSource.get(holder.source) ?? 0) >= this.limits.perSource) return undefined;
    let admission: Admission | undefined;
    if (this.#holders.size < this.limits.total - this.#reserved) admission = 'open';
    else if (this.#holders.size < this.limits.total) admission = 'reserved';
    else if (this.#pushOutFor(holder.source)) admission = 'open';
    if (!admission) return undefined;
    this.#holders.add(holder);
    this.#perSource.set(holder.source, (this.#perSource.get(holder.source) ?? 0) + 1);
    return admission;
  }

  /** Gives a connection's slot back (idempotent). */
  release(holder: SlotHolder): void {
    if (!this.#holders.delete(holder)) return;
    const left = (this.#perSource.get(holder.source) ?? 1) - 1;
    if (left > 0) this.#perSource.set(holder.source, left);
    else this.#perSource.delete(holder.source);
  }

  /** Remembers a key that authenticated, for the reserved slots. */
  remember(fingerprint: string): void {
    this.#known.set(fingerprint, true);
  }

  /** Whether a connection let in as `admission` may sign in with the key of `fingerprint`. */
  mayUse(admission: Admission, fingerprint: string): boolean {
    return admission === 'open' || this.#known.get(fingerprint) === true;
  }

  #pushOutFor(source: string): boolean {
    const waiting = new Map<string, SlotHolder[]>();
    for (const holder of this.#holders) {
      if (holder.authenticated()) continue;
      const list = waiting.get(holder.source);
      if (list) list.push(holder);
      else waiting.set(holder.source, [holder]);
    }
    let crowded: SlotHolder[] = [];
    for (const holders of waiting.values()) if (holders.length > crowded.length) crowded = holders;
    if (crowded.length <= (waiting.get(source)?.length ?? 0) + 1) return false;
    const oldest = crowded.reduce((first, holder) => (holder.since < first.since ? holder : first));
    this.release(oldest);
    oldest.end();
    return true;
  }
}
