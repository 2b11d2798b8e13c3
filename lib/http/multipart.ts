import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import type formidable from 'formidable';
import type { H3Event } from 'h3';
import { invalid, isRepoHostError, tooLarge, unsupported } from '../errors.js';
import { ownValue } from '../own-value.js';

/** Room for multipart boundaries, part headers and the small fields a form may carry besides its files. */
const MULTIPART_SLACK = 64 * 1024;

/** What a multipart reader takes, and what it says when a body is refused. */
export interface MultipartOptions {
  /** The name of the file parts; other file parts are passed over. */
  field: string;
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
  /** Where the files go: kept in memory (a refused upload never touches the disk), or written into this folder. */
  into: 'memory' | string;
  messages: { notMultipart: string; fileTooLarge: string; tooLargeInAll: (limit: number) => string; tooManyFiles: string };
}

/** One file part: in memory (`bytes`) or in the folder asked for (`path`, the caller's to remove). */
export interface MultipartFile {
  /** The name the browser gave (a file name, possibly with folders), or ''. */
  name: string;
  mimetype: string | null;
  size: number;
  bytes?: Buffer;
  path?: string;
}

/**
 * Rejects with 413 once the whole request body (every part, kept or not) passes `limit`: by its Content-Length at
 * once, else as it arrives. Reading stops there; the 413 answer closes the connection.
 */
function requestOverLimit(req: IncomingMessage, limit: number, message: string): Promise<never> {
  return new Promise((_resolve, reject) => {
    const refuse = () => reject(tooLarge(message));
    if (Number(req.headers['content-length'] ?? 0) > limit) return refuse();
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limit) return;
      req.off('data', count);
      req.pause();
      refuse();
    };
    req.on('data', count);
  });
}

/** Parses a multipart/form-data body within the limits: its file parts named `options.field`, and the first value of each other field. */
export async function readMultipart(event: H3Event, options: MultipartOptions): Promise<{ files: MultipartFile[]; fields: Record<string, string> }> {
  const req = event.runtime?.node?.req;
  if (!req) throw unsupported('uploads need a Node.js server');
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) throw unsupported(options.messages.notMultipart);
  // formidable is loaded by the first upload, not by every host (issue 23).
  const { default: createForm, errors: formidableErrors } = await import('formidable');
  const buffers = new Map<string, Buffer[]>();
  const form = createForm({
    maxFiles: options.maxFiles,
    maxFields: 20,
    maxFileSize: options.maxFileBytes,
    maxTotalFileSize: options.maxTotalBytes,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    filter: (part) => part.name === options.field,
    ...(options.into === 'memory'
      ? {
          fileWriteStreamHandler: (file?: unknown) => {
            const chunks: Buffer[] = [];
            buffers.set((file as { newFilename: string }).newFilename, chunks);
            return new Writable({
              write(chunk: Buffer, _encoding, done) {
                chunks.push(chunk);
                done();
              },
            });
          },
        }
      : { uploadDir: options.into }),
  });
  const parsing = form.parse(req as IncomingMessage);
  // Refused for size, the parse is left to fail on the closed connection: nobody waits for it then.
  parsing.catch(() => undefined);
  const limit = options.maxTotalBytes + MULTIPART_SLACK;
  let fields: formidable.Fields;
  let files: formidable.Files;
  try {
    [fields, files] = await Promise.race([parsing, requestOverLimit(req as IncomingMessage, limit, options.messages.tooLargeInAll(limit))]);
  } catch (error) {
    if (isRepoHostError(error)) throw error;
    const code = (error as { code?: number }).code;
    if (code === formidableErrors.biggerThanMaxFileSize || code === formidableErrors.biggerThanTotalMaxFileSize) throw tooLarge(options.messages.fileTooLarge);
    if (code === formidableErrors.maxFilesExceeded) throw invalid(options.messages.tooManyFiles);
    throw invalid('malformed multipart body');
  }
  const received = (ownValue(files, options.field) ?? []).map((file) => ({
    name: file.originalFilename ?? '',
    mimetype: file.mimetype,
    size: file.size,
    ...(options.into === 'memory' ? { bytes: Buffer.concat(buffers.get(file.newFilename) ?? []) } : { path: file.filepath }),
  }));
  return { files: received, fields: Object.fromEntries(Object.entries(fields).map(([name, values]) => [name, values?.[0] ?? ''])) };
}
