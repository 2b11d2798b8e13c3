import { open, readFile, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from './crc32.js';

/** One committed write transaction: its sequence number and the statements it ran, with bound parameters. */
export interface LogRecord {
  seq: number;
  statements: Array<[sql: string, params: SqlParam[]]>;
}
export type SqlParam = string | number | null | Uint8Array;

// Record framing (little-endian u32s): magic, CRC-32 of everything after it, payload length, offset of the
// frame inside its group-commit batch (for diagnosis), then the JSON payload. Which damage is a torn final
// append and which is corruption is decided with the durable mark (durable-mark.ts), not from the bytes alone.
const MAGIC = Buffer.from('RHL1', 'latin1');
const HEADER_BYTES = 16;
const MAGIC_BLOB = '$b64';

function encodePayload(record: LogRecord): Buffer {
  const json = JSON.stringify(record, (_key, value: unknown) =>
    value instanceof Uint8Array ? { [MAGIC_BLOB]: Buffer.from(value).toString('base64') } : value,
  );
  return Buffer.from(json, 'utf8');
}

/** Frames payloads as one batch (one write, one fsync). */
export function encodeBatch(payloads: readonly Buffer[]): Buffer {
  const total = payloads.reduce((sum, payload) => sum + HEADER_BYTES + payload.length, 0);
  const batch = Buffer.allocUnsafe(total);
  let offset = 0;
  for (const payload of payloads) {
    MAGIC.copy(batch, offset);
    batch.writeUInt32LE(payload.length, offset + 8);
    batch.writeUInt32LE(offset, offset + 12);
    payload.copy(batch, offset + HEADER_BYTES);
    const end = offset + HEADER_BYTES + payload.length;
    batch.writeUInt32LE(crc32(batch.subarray(offset + 8, end)), offset + 4);
    offset = end;
  }
  return batch;
}

export function encodeRecord(record: LogRecord): Buffer {
  return encodeBatch([encodePayload(record)]);
}

function decodePayload(payload: Buffer): LogRecord {
  const record = JSON.parse(payload.toString('utf8'), (_key, value: unknown) => {
    if (value && typeof value === 'object' && MAGIC_BLOB in value) {
      return new Uint8Array(Buffer.from((value as Record<string, string>)[MAGIC_BLOB]!, 'base64'));
    }
    return value;
  }) as LogRecord;
  if (!Number.isSafeInteger(record.seq) || !Array.isArray(record.statements)) throw new Error('not a log record');
  return record;
}

interface Frame {
  record: LogRecord;
  end: number;
}

/** The frame at `offset`: a record, `incomplete` when the file ends inside it, or `damaged`. */
function frameAt(bytes: Buffer, offset: number): Frame | 'incomplete' | 'damaged' {
  const available = bytes.length - offset;
  if (available < HEADER_BYTES) {
    // Only a header cut short by the end of the file, not other bytes, is an unfinished append.
    const prefix = bytes.subarray(offset, offset + Math.min(available, MAGIC.length));
    return prefix.equals(MAGIC.subarray(0, prefix.length)) ? 'incomplete' : 'damaged';
  }
  if (!bytes.subarray(offset, offset + 4).equals(MAGIC)) return 'damaged';
  const end = offset + HEADER_BYTES + bytes.readUInt32LE(offset + 8);
  // Running past the end is an unfinished append, unless a whole frame follows: then the length field is damaged.
  if (end > bytes.length) return wholeFrameAfter(bytes, offset) ? 'damaged' : 'incomplete';
  if (crc32(bytes.subarray(offset + 8, end)) !== bytes.readUInt32LE(offset + 4)) return 'damaged';
  try {
    return { record: decodePayload(bytes.subarray(offset + HEADER_BYTES, end)), end };
  } catch {
    return 'damaged';
  }
}

const allZero = (bytes: Buffer) => bytes.every((byte) => byte === 0);

function wholeFrameAfter(bytes: Buffer, offset: number): boolean {
  for (let at = bytes.indexOf(MAGIC, offset + 1); at !== -1; at = bytes.indexOf(MAGIC, at + 1)) {
    if (bytes.length - at < HEADER_BYTES) return false;
    const end = at + HEADER_BYTES + bytes.readUInt32LE(at + 8);
    if (end <= bytes.length && crc32(bytes.subarray(at + 8, end)) === bytes.readUInt32LE(at + 4)) return true;
  }
  return false;
}

export interface ParsedLog {
  records: LogRecord[];
  /** Byte length of the valid prefix; anything after it is a torn tail. */
  validBytes: number;
  tornTail: boolean;
  totalBytes: number;
  /**
   * Set only when `acceptLoss` let through damage that lost (or may have lost) acknowledged writes: what it was.
   * Undefined for a clean log and for an unfinished final append past the acknowledged length.
   */
  loss?: string;
}

/** How to start anyway, named in every refusal that `acceptLogLoss` would let through. */
const ACCEPT_LOSS_HINT =
  'If these writes cannot be restored (from a backup of the database files), start once with `repohost serve --accept-log-loss` ' +
  '(option acceptLogLoss) to keep the records before the damage and move the damaged bytes aside';

/**
 * The write log's end is damaged or gone in a way that may have lost acknowledged writes, and nothing shows it
 * harmless: startup is refused and no file is changed. Starting with `acceptLogLoss` (`repohost serve
 * --accept-log-loss`) keeps every record before the damage and moves the damaged bytes aside. Damage that intact
 * records follow is never accepted this way (that would drop them); it throws a plain Error.
 */
export class LogLossError extends Error {
  override readonly name = 'LogLossError';
  readonly code = 'REPOHOST_LOG_LOSS';
  /** @param problem what is wrong with `logPath`, continuing "write log <path> ..." */
  constructor(
    readonly logPath: string,
    problem: string,
  ) {
    super(`write log ${logPath} ${problem}; refusing to start, no file was changed. ${ACCEPT_LOSS_HINT}`);
  }
}

/**
 * Parses a log file. Only an unfinished final append may be discarded as a torn write: a last frame that the end
 * of the file cuts short, or zeros to the end of the file (a file extended by a crash before its data arrived),
 * and only past `acknowledgedBytes`, the length known durable (see DurableMark); whether that length is known at
 * all is the caller's to judge. Anything else is damage that would lose acknowledged records, and throws: a
 * complete frame with a bad checksum, bytes that are not a frame, or a file shorter than what was acknowledged
 * (`LogLossError`, or with `acceptLoss` the records before it are returned and `loss` says what was given up).
 * Damage that a whole frame follows always throws: accepting it would drop intact records.
 */
export function parseLog(bytes: Buffer, fileName: string, acknowledgedBytes = 0, acceptLoss = false): ParsedLog {
  let loss: string | undefined;
  if (bytes.length < acknowledgedBytes) {
    loss = `has ${bytes.length} bytes but ${acknowledgedBytes} were acknowledged as written: it was cut short`;
    if (!acceptLoss) throw new LogLossError(fileName, loss);
  }
  const records: LogRecord[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const frame = frameAt(bytes, offset);
    if (typeof frame === 'string') {
      const unfinished = frame === 'incomplete' || allZero(bytes.subarray(offset));
      if (!unfinished || offset < acknowledgedBytes) {
        const damage = `is corrupt at byte ${offset} (damage where acknowledged records were written)`;
        // Intact records after the damage: a hole in the history, which no flag may paper over.
        if (wholeFrameAfter(bytes, offset)) throw new Error(`write log ${fileName} ${damage}; refusing to start`);
        if (!acceptLoss) throw new LogLossError(fileName, damage);
        loss ??= damage;
      }
      return { records, validBytes: offset, tornTail: true, totalBytes: bytes.length, loss };
    }
    records.push(frame.record);
    offset = frame.end;
  }
  return { records, validBytes: offset, tornTail: false, totalBytes: bytes.length, loss };
}

export async function readLog(path: string, acknowledgedBytes = 0, acceptLoss = false): Promise<ParsedLog> {
  return parseLog(await readFile(path), path, acknowledgedBytes, acceptLoss);
}

/** fsync a folder so a created, renamed or removed entry in it survives a power cut. */
export async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * An append-only log with group commit: records appended while a flush is under way share the next fsync.
 */
export class WriteLog {
  private pending: Buffer[] = [];
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  private failure: unknown;
  /** The previous log's close: nothing is written here before it, so a later record is never durable before an earlier one. */
  private predecessor: Promise<void> | undefined;
  bytes: number;
  /** Bytes known on disk (written and fsync'd). */
  private durableBytes: number;
  /** Told the durable length after every fsync'd batch (the durable mark). */
  onDurable: ((bytes: number) => void) | undefined;
  /** False for a database thrown away on close (':memory:'): written, but never waited on to reach the disk. */
  syncToDisk = true;

  private constructor(
    readonly path: string,
    private readonly file: FileHandle,
    size: number,
  ) {
    this.bytes = size;
    this.durableBytes = size;
  }

  /**
   * Opens (creating if needed) for appending, first cutting the file to `validBytes` to drop a torn tail. `sync`
   * false (a ':memory:' database) skips the fsyncs, and the log's own (`syncToDisk`).
   */
  static async open(path: string, validBytes?: number, sync = true): Promise<WriteLog> {
    let file: FileHandle;
    let created = true;
    try {
      file = await open(path, 'ax');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      file = await open(path, 'a');
      created = false;
    }
    try {
      // A new file's name must be durable before records in it are acknowledged.
      if (created && sync) await fsyncDir(dirname(path));
      const { size } = await file.stat();
      if (validBytes !== undefined && validBytes < size) {
        await file.truncate(validBytes);
        if (sync) await file.sync();
      }
      const log = new WriteLog(path, file, Math.min(size, validBytes ?? size));
      log.syncToDisk = sync;
      return log;
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** Holds this log's writes until `previous` (the prior log's close) has settled; its failure fails them. */
  follow(previous: Promise<void>): void {
    this.predecessor = previous;
    previous.catch(() => undefined);
  }

  /** Appends a record; resolves once it is on disk. */
  append(record: LogRecord): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const payload = encodePayload(record);
    this.pending.push(payload);
    this.bytes += HEADER_BYTES + payload.length;
    const durable = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.flushing ??= this.flushLoop();
    return durable;
  }

  private async flushLoop(): Promise<void> {
    if (this.predecessor) {
      try {
        await this.predecessor;
        this.predecessor = undefined;
      } catch (error) {
        this.fail(error, []);
      }
    }
    while (this.pending.length > 0) {
      const batch = encodeBatch(this.pending);
      const waiters = this.waiters;
      this.pending = [];
      this.waiters = [];
      try {
        // A write may be short (a nearly full disk takes what fits and reports no error): loop until all of
        // the batch is written, or fail on the error that follows.
        for (let written = 0; written < batch.length; ) {
          written += (await this.file.write(batch, written, batch.length - written)).bytesWritten;
        }
        if (this.syncToDisk) await this.file.datasync();
        this.durableBytes += batch.length;
        this.onDurable?.(this.durableBytes);
        for (const waiter of waiters) waiter.resolve();
      } catch (error) {
        this.fail(error, waiters);
      }
    }
    this.flushing = undefined;
  }

  /** After a failed write the file's tail is unknown: refuse everything from now on. */
  private fail(error: unknown, inFlight: WriteLog['waiters']): void {
    this.failure = error;
    for (const waiter of [...inFlight, ...this.waiters]) waiter.reject(error);
    this.waiters = [];
    this.pending = [];
  }

  /** Bytes of the file known on disk (written and fsync'd). */
  get durableLength(): number {
    return this.durableBytes;
  }

  /** Gives up a failed log: its file is closed without waiting for anything more. */
  async abandon(): Promise<void> {
    this.failure ??= new Error('abandoned');
    await this.file.close().catch(() => undefined);
  }

  /** Waits for every appended record to be durable. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.file.close();
    if (this.failure) throw this.failure;
  }
}
