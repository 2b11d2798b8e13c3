import { open, readFile, type FileHandle } from 'node:fs/promises';
import { crc32 } from './crc32.js';

/** One committed write transaction: its sequence number and the statements it ran, with bound parameters. */
export interface LogRecord {
  seq: number;
  statements: Array<[sql: string, params: SqlParam[]]>;
}
export type SqlParam = string | number | null | Uint8Array;

// Record framing: u32 payload length, u32 CRC-32 of the payload, then the JSON payload.
const HEADER_BYTES = 8;
const MAGIC_BLOB = '$b64';

export function encodeRecord(record: LogRecord): Buffer {
  const json = JSON.stringify(record, (_key, value: unknown) =>
    value instanceof Uint8Array ? { [MAGIC_BLOB]: Buffer.from(value).toString('base64') } : value,
  );
  const payload = Buffer.from(json, 'utf8');
  const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  payload.copy(frame, HEADER_BYTES);
  return frame;
}

function decodePayload(payload: Buffer): LogRecord {
  return JSON.parse(payload.toString('utf8'), (_key, value: unknown) => {
    if (value && typeof value === 'object' && MAGIC_BLOB in value) {
      return new Uint8Array(Buffer.from((value as Record<string, string>)[MAGIC_BLOB]!, 'base64'));
    }
    return value;
  }) as LogRecord;
}

export interface ParsedLog {
  records: LogRecord[];
  /** Byte length of the valid prefix; anything after it is a torn tail. */
  validBytes: number;
  tornTail: boolean;
}

/**
 * Parses a log file. A damaged record that reaches the end of the file is a torn write (the process died
 * mid-append) and is reported as `tornTail`; a damaged record with more data after it is corruption and throws.
 */
export function parseLog(bytes: Buffer, fileName: string): ParsedLog {
  const records: LogRecord[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const remaining = bytes.length - offset;
    const length = remaining >= HEADER_BYTES ? bytes.readUInt32LE(offset) : Infinity;
    const end = offset + HEADER_BYTES + length;
    if (end > bytes.length) return { records, validBytes: offset, tornTail: true };
    const payload = bytes.subarray(offset + HEADER_BYTES, end);
    let record: LogRecord | undefined;
    if (crc32(payload) === bytes.readUInt32LE(offset + 4)) {
      try {
        record = decodePayload(payload);
      } catch {
        record = undefined;
      }
    }
    if (!record) {
      if (end === bytes.length) return { records, validBytes: offset, tornTail: true };
      throw new Error(`write log ${fileName} is corrupt at byte ${offset} (a damaged record is followed by more data)`);
    }
    records.push(record);
    offset = end;
  }
  return { records, validBytes: offset, tornTail: false };
}

export async function readLog(path: string): Promise<ParsedLog> {
  return parseLog(await readFile(path), path);
}

/**
 * An append-only log with group commit: records appended while a flush is under way share the next fsync.
 */
export class WriteLog {
  private pending: Buffer[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  bytes: number;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
    size: number,
  ) {
    this.bytes = size;
  }

  /** Opens (creating if needed) for appending, first cutting the file to `validBytes` to drop a torn tail. */
  static async open(path: string, validBytes?: number): Promise<WriteLog> {
    const file = await open(path, 'a+');
    try {
      const { size } = await file.stat();
      if (validBytes !== undefined && validBytes < size) {
        await file.truncate(validBytes);
        await file.sync();
      }
      return new WriteLog(path, file, Math.min(size, validBytes ?? size));
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** Appends a record; resolves once it is on disk. */
  append(record: LogRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const frame = encodeRecord(record);
    this.pending.push(frame);
    this.bytes += frame.length;
    const durable = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flushLoop();
    return durable;
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = Buffer.concat(this.pending);
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        await this.file.write(batch);
        await this.file.datasync();
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        // After a failed write the file's tail is unknown: refuse everything from now on.
        this.failure = error;
        for (const waiter of [...waiters, ...this.waiters]) waiter.reject(error);
        this.waiters = [];
        this.pending = [];
      }
    }
    this.flushing = undefined;
  }

  /** Waits for every appended record to be durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.file.close();
  }
}
