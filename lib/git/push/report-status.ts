/** What receive-pack reported to the client: whether the pack unpacked, and the refs it updated (`ok <ref>`). */
export interface ReceiveReport {
  unpacked: boolean;
  updated: ReadonlySet<string>;
}

/** A flush packet (`0000`). */
const FLUSH = Symbol('flush');
/** Side-band channel 1 carries the report; 2 is progress, 3 a fatal error. */
const BAND_DATA = 1;

/** Bytes of a pkt-line stream as they arrive, handed out as whole packets. */
class PacketBuffer {
  #bytes: Buffer = Buffer.alloc(0);
  #broken = false;

  push(chunk: Buffer): void {
    if (!this.#broken) this.#bytes = this.#bytes.length === 0 ? chunk : Buffer.concat([this.#bytes, chunk]);
  }

  /** The whole packets received so far: payloads, or FLUSH. Anything that is not a pkt-line ends the stream. */
  *packets(): Generator<Buffer | typeof FLUSH> {
    while (!this.#broken && this.#bytes.length >= 4) {
      const length = Number.parseInt(this.#bytes.toString('latin1', 0, 4), 16);
      if (!Number.isInteger(length) || (length > 0 && length < 4)) {
        // Delimiter and response-end packets belong to protocol v2, which push does not use.
        this.#broken = true;
        this.#bytes = Buffer.alloc(0);
        return;
      }
      if (length === 0) {
        this.#bytes = this.#bytes.subarray(4);
        yield FLUSH;
        continue;
      }
      if (this.#bytes.length < length) return;
      const payload = this.#bytes.subarray(4, length);
      this.#bytes = this.#bytes.subarray(length);
      yield payload;
    }
  }
}

/**
 * Reads receive-pack's answer as it streams to the client and finds its report-status: `unpack ok`, then `ok <ref>` or
 * `ng <ref> <reason>` per ref, ended by a flush packet; inside side-band channel 1 when the client asked for side-band.
 * These are the refs git really moved (each from the old value it checked under lock), known as soon as git says so:
 * before receive-pack has exited, and without a hook process of its own. Every client that pushes asks for the report.
 */
export class ReportStatusReader {
  readonly #outer = new PacketBuffer();
  readonly #inner = new PacketBuffer();
  #sideBand: boolean | undefined;
  #done = false;
  #unpacked = false;
  readonly #updated = new Set<string>();
  /** Still in the ref advertisement, which a whole-session transport (SSH) sends first, ended by a flush. */
  #advertising: boolean;

  /** `afterAdvertisement`: the stream starts with receive-pack's ref advertisement (not stateless, as over SSH). */
  constructor(
    private readonly onReport: (report: ReceiveReport) => void,
    options: { afterAdvertisement?: boolean } = {},
  ) {
    this.#advertising = options.afterAdvertisement ?? false;
  }

  push(chunk: Buffer): void {
    if (this.#done) return;
    this.#outer.push(chunk);
    for (const packet of this.#outer.packets()) {
      if (this.#advertising) {
        if (packet === FLUSH) this.#advertising = false;
        continue;
      }
      // Without side-band the report ends with the first flush; with it, an outer flush ends the whole answer.
      if (packet === FLUSH) return this.#finish();
      this.#sideBand ??= packet.length > 0 && packet[0]! >= 1 && packet[0]! <= 3;
      if (!this.#sideBand) this.#line(packet);
      else if (packet[0] === BAND_DATA) {
        this.#inner.push(packet.subarray(1));
        for (const inner of this.#inner.packets()) {
          if (inner === FLUSH) return this.#finish();
          this.#line(inner);
        }
      }
    }
  }

  #line(payload: Buffer): void {
    const line = payload.toString('utf8').replace(/\n$/, '');
    if (line === 'unpack ok') this.#unpacked = true;
    else if (line.startsWith('ok ')) this.#updated.add(line.slice(3));
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.onReport({ unpacked: this.#unpacked, updated: this.#updated });
  }
}
