import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import type formidable from 'formidable';
import type { H3, H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { invalid, isRepoHostError, tooLarge, unsupported } from '../../../errors.js';
import { requireUserOrNotFound } from '../../auth.js';

/** Shown for users who have not uploaded an avatar. */
const DEFAULT_AVATAR =
  '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" fill="#d0d7de"/>' +
  '<circle cx="32" cy="24" r="12" fill="#8c959f"/><rect x="12" y="42" width="40" height="22" rx="11" fill="#8c959f"/></svg>';

interface Upload {
  bytes: Buffer;
  mimetype: string | null;
  /** The form's other fields (first value of each): the account page's form carries its request-forgery token. */
  fields: Record<string, string>;
}

/** Room for multipart boundaries, part headers and the small fields a form may carry besides the file. */
const MULTIPART_SLACK = 64 * 1024;

/**
 * Rejects with 413 once the whole request body (every part, kept or not) passes `limit`: by its Content-Length at
 * once, else as it arrives. Reading stops there; the 413 answer closes the connection.
 */
function requestOverLimit(req: IncomingMessage, limit: number): Promise<never> {
  return new Promise((_resolve, reject) => {
    const refuse = () => reject(tooLarge(`avatar upload must be at most ${limit} bytes in all`));
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

/**
 * Parses a multipart body with one `file` part, held in memory (bounded by the size limit) so a rejected
 * upload never touches the disk.
 */
export async function readAvatarUpload(event: H3Event, maxBytes: number): Promise<Upload> {
  const req = event.runtime?.node?.req;
  if (!req) throw unsupported('avatar upload needs a Node.js server');
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(type)) throw unsupported('avatar upload must be multipart/form-data with a file part named "file"');
  // formidable is loaded by the first upload, not by every host (issue 23).
  const { default: createForm, errors: formidableErrors } = await import('formidable');
  const buffers = new Map<string, Buffer[]>();
  const form = createForm({
    maxFiles: 1,
    maxFields: 10,
    maxFileSize: maxBytes,
    maxTotalFileSize: maxBytes,
    maxFieldsSize: 64 * 1024,
    allowEmptyFiles: true,
    minFileSize: 0,
    filter: (part) => part.name === 'file',
    fileWriteStreamHandler: (file) => {
      const chunks: Buffer[] = [];
      buffers.set((file as unknown as { newFilename: string }).newFilename, chunks);
      return new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk);
          done();
        },
      });
    },
  });
  const parsing = form.parse(req as IncomingMessage);
  // Refused for size, the parse is left to fail on the closed connection: nobody waits for it then.
  parsing.catch(() => undefined);
  let fields: formidable.Fields;
  let files: formidable.Files;
  try {
    [fields, files] = await Promise.race([parsing, requestOverLimit(req as IncomingMessage, maxBytes + MULTIPART_SLACK)]);
  } catch (error) {
    if (isRepoHostError(error)) throw error;
    const code = (error as { code?: number }).code;
    if (code === formidableErrors.biggerThanMaxFileSize || code === formidableErrors.biggerThanTotalMaxFileSize) {
      throw tooLarge(`avatar must be at most ${maxBytes} bytes`);
    }
    if (code === formidableErrors.maxFilesExceeded) throw invalid('send exactly one file part named "file"');
    throw invalid('malformed multipart body');
  }
  const file = files.file?.[0];
  if (!file) throw invalid('a file part named "file" is required');
  const firstValues = Object.fromEntries(Object.entries(fields).map(([name, values]) => [name, values?.[0] ?? '']));
  return { bytes: Buffer.concat(buffers.get(file.newFilename) ?? []), mimetype: file.mimetype, fields: firstValues };
}

export function mountAvatarRoutes(app: H3, ctx: AppContext): void {
  app.post('/api/v1/users/avatar', async (event) => {
    const user = await requireUserOrNotFound(ctx, event);
    const upload = await readAvatarUpload(event, ctx.options.maxAvatarBytes);
    await ctx.avatars.replace(user, upload.bytes, upload.mimetype);
    const updated = (await ctx.users.byId(user.id))!;
    return { success: true, ...ctx.users.summary(updated) };
  });

  app.get('/avatars/default.svg', () => new Response(DEFAULT_AVATAR, { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' } }));

  app.get('/avatars/:file', async (event) => {
    const { bytes, type } = await ctx.avatars.read(event.context.params?.file ?? '');
    return new Response(new Uint8Array(bytes), {
      headers: {
        'content-type': type.contentType,
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
      },
    });
  });
}
