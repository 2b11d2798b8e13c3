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
 * real damage from the torn final append a crash leaves.
 */
export class DurableMark {
  #wanted: Mark | undefined;
  #writing: Promise<void> | undefined;

  private constructor(private readonly file: FileHandle) {}

  static async open(path: string): Promise<DurableMark> {
    // Read-write without append mode: each mark overwrites the one before in place (one small write).
    return new DurableMark(await open(path, constants.O_RDWR | constants.O_CREAT, 0o644));
  }

  /** The mark on disk, or undefined when there is none or it was itself torn (then it says nothing). */
  static async read(path: string): Promise<Mark | undefined> {
    const bytes = await readIfExists(path);
    if (!bytes || bytes.length < SIZE || !bytes.subarray(0, 4).equals(MAGIC) || crc32(bytes.subarray(8, SIZE)) !== bytes.readUInt32LE(4)) return undefined;
    return { firstSeq: Number(bytes.readBigUInt64LE(8)), bytes: Number(bytes.readBigUInt64LE(16)) };
  }

  /** Records a new durable length; writes coalesce, the newest wins. */
  note(mark: Mark): void {
    this.#wanted = mark;
    this.#writing ??= this.#writeLoop();
  }

  async #writeLoop(): Promise<void> {
    try {
      while (this.#wanted) {
        const mark = this.#wanted;
        this.#wanted = undefined;
        const record = Buffer.alloc(SIZE);
        MAGIC.copy(record, 0);
        record.writeBigUInt64LE(BigInt(mark.firstSeq), 8);
        record.writeBigUInt64LE(BigInt(mark.bytes), 16);
        record.writeUInt32LE(crc32(record.subarray(8, SIZE)), 4);
        await this.file.write(record, 0, SIZE, 0);
        await this.file.datasync();
      }
    } catch {
      // A mark that cannot be written only makes recovery less strict; the log itself decides durability.
      this.#wanted = undefined;
    } finally {
      this.#writing = undefined;
    }
  }

  async close(): Promise<void> {
    while (this.#writing) await this.#writing;
    await this.file.close();
  }
}
