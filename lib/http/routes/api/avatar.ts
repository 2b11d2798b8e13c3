import type { H3, H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { invalid } from '../../../errors.js';
import { requireUserOrNotFound } from '../../auth.js';
import { readMultipart } from '../../multipart.js';

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

/**
 * Parses a multipart body with one `file` part, held in memory (bounded by the size limit) so a rejected
 * upload never touches the disk.
 */
export async function readAvatarUpload(event: H3Event, maxBytes: number): Promise<Upload> {
  const { files, fields } = await readMultipart(event, {
    field: 'file',
    maxFiles: 1,
    maxFileBytes: maxBytes,
    maxTotalBytes: maxBytes,
    into: 'memory',
    messages: {
      notMultipart: 'avatar upload must be multipart/form-data with a file part named "file"',
      fileTooLarge: `avatar must be at most ${maxBytes} bytes`,
      tooLargeInAll: (limit) => `avatar upload must be at most ${limit} bytes in all`,
      tooManyFiles: 'send exactly one file part named "file"',
    },
  });
  const file = files[0];
  if (!file) throw invalid('a file part named "file" is required');
  return { bytes: file.bytes!, mimetype: file.mimetype, fields };
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
