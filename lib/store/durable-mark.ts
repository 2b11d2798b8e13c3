import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from './crc32.js';
import { readIfExists } from './read-if-exists.js';

// magic, CRC-32 of the rest, the log's first sequence number, its durable length (u32s and u64s, little-endian).
const MAGIC = Buffer.from('RHM1', 'latin1');
const SIZE = 24;

/** Which log and how many of its bytes were known durable. */
export interface Mark {
  firstSeq: number;
  bytes: number;
}

/**
 * A small side file (`<db>.wal-mark`) that remembers how long the current write log was known to be on disk. It is
 * written after each fsync'd batch, in the background (acknowledgements never wait for it), so it lags the log by a
 * batch at most: a log found shorter than its mark, or damaged before it, lost acknowledged writes, which tells
 * real damage from the torn final append a crash leaves. A log is named in the mark (`set`) before its first byte is
 * written, so a mark naming another log, or no mark at all, means the mark cannot vouch for that log's tail.
 */
export class DurableMark {
  #wanted: Mark | undefined;
  /** `set` callers waiting for `#wanted` (or a newer mark) to be on disk. */
  #waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  #writing: Promise<void> | undefined;

  private constructor(
    private readonly file: FileHandle,
    private readonly sync: boolean,
  ) {}

  /** `sync` false (a ':memory:' database, removed on close): the mark is written but never fsync'd. */
  static async open(path: string, sync = true): Promise<DurableMark> {
    // Read-write without append mode: each mark overwrites the one before in place (one small write).
    return new DurableMark(await open(path, constants.O_RDWR | constants.O_CREAT, 0o644), sync);
  }

  /** The mark on disk, or undefined when there is none or it was itself torn (then it says nothing). */
  static async read(path: string): Promise<Mark | undefined> {
    const bytes = await readIfExists(path);
    if (!bytes || bytes.length < SIZE || !bytes.subarray(0, 4).equals(MAGIC) || crc32(bytes.subarray(8, SIZE)) !== bytes.readUInt32LE(4)) return undefined;
    return { firstSeq: Number(bytes.readBigUInt64LE(8)), bytes: Number(bytes.readBigUInt64LE(16)) };
  }

  /**
   * Records a new durable length, in the background; writes coalesce, the newest wins. One that fails is
   * dropped: the mark then lags further, which only makes recovery less strict.
   */
  note(mark: Mark): void {
    this.#wanted = mark;
    this.#writing ??= this.#writeLoop();
  }

  /** Records `mark` and resolves once it (or a newer one) is on disk; rejects when it cannot be written. */
  set(mark: Mark): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      this.note(mark);
    });
  }

  async #writeLoop(): Promise<void> {
    try {
      while (this.#wanted) {
        const mark = this.#wanted;
        const waiters = this.#waiters;
        this.#wanted = undefined;
        this.#waiters = [];
        const record = Buffer.alloc(SIZE);
        MAGIC.copy(record, 0);
        record.writeBigUInt64LE(BigInt(mark.firstSeq), 8);
        record.writeBigUInt64LE(BigInt(mark.bytes), 16);
        record.writeUInt32LE(crc32(record.subarray(8, SIZE)), 4);
        try {
          await this.file.write(record, 0, SIZE, 0);
          if (this.sync) await this.file.datasync();
          for (const waiter of waiters) waiter.resolve();
        } catch (error) {
          for (const waiter of waiters) waiter.reject(error);
        }
      }
    } finally {
      this.#writing = undefined;
    }
  }

  async close(): Promise<void> {
    while (this.#writing) await this.#writing;
    await this.file.close();
  }
}
