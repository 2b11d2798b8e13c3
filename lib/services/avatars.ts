import { randomBytes } from 'node:crypto';
import type { Db } from '../store/interface.js';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { notFound, tooLarge, unsupported } from '../errors.js';
import { setAvatarFile, userById, type UserRow } from '../store/queries/users.js';

export interface ImageType {
  extension: string;
  contentType: string;
}

const PNG: ImageType = { extension: 'png', contentType: 'image/png' };
const JPEG: ImageType = { extension: 'jpg', contentType: 'image/jpeg' };
const GIF: ImageType = { extension: 'gif', contentType: 'image/gif' };
const WEBP: ImageType = { extension: 'webp', contentType: 'image/webp' };
const BY_EXTENSION = new Map([PNG, JPEG, GIF, WEBP].map((type) => [type.extension, type]));

/** Identifies an image by its leading bytes; a declared content type is never trusted alone. */
export function sniffImage(bytes: Uint8Array): ImageType | undefined {
  const head = Buffer.from(bytes.subarray(0, 12));
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return PNG;
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return JPEG;
  const ascii = head.toString('latin1');
  if (ascii.startsWith('GIF87a') || ascii.startsWith('GIF89a')) return GIF;
  if (ascii.startsWith('RIFF') && ascii.slice(8, 12) === 'WEBP') return WEBP;
  return undefined;
}

const AVATAR_FILE = /^(\d+)-([0-9a-f]{16})\.(png|jpg|gif|webp)$/;

/** Avatar images on disk under `<dataDir>/avatars`, one per user, replaced on upload. */
export class AvatarService {
  private readonly dir: string;

  constructor(
    private readonly store: Db,
    dataDir: string,
    readonly maxBytes: number,
  ) {
    this.dir = join(dataDir, 'avatars');
  }

  /** Stores a validated image as the user's avatar and removes the previous one. Returns the file name. */
  async replace(user: UserRow, bytes: Buffer, declaredType: string | null | undefined): Promise<string> {
    if (bytes.length > this.maxBytes) throw tooLarge(`avatar must be at most ${this.maxBytes} bytes`);
    if (!declaredType || !declaredType.toLowerCase().startsWith('image/')) throw unsupported('avatar must be an image (PNG, JPEG, GIF or WebP)');
    const type = sniffImage(bytes);
    if (!type) throw unsupported('avatar must be an image (PNG, JPEG, GIF or WebP)');
    await mkdir(this.dir, { recursive: true });
    const fileName = `${user.id}-${randomBytes(8).toString('hex')}.${type.extension}`;
    const temp = join(this.dir, `.${fileName}.tmp`);
    await writeFile(temp, bytes);
    let previous: string | null | undefined;
    try {
      await rename(temp, join(this.dir, fileName));
      // The file replaced is the one current when this write commits, not the one the request started with:
      // with concurrent uploads, the latter would leave every other upload's file behind.
      previous = await this.store.write(async (tx) => {
        const current = (await userById(tx, user.id))?.avatar_file;
        await setAvatarFile(tx, user.id, fileName);
        return current;
      });
    } catch (error) {
      await rm(temp, { force: true });
      await rm(join(this.dir, fileName), { force: true });
      throw error;
    }
    if (previous && AVATAR_FILE.test(previous)) await rm(join(this.dir, previous), { force: true });
    return fileName;
  }

  /** Reads a stored avatar by file name; names are checked so nothing outside the folder is reachable. */
  async read(fileName: string): Promise<{ bytes: Buffer; type: ImageType }> {
    const match = AVATAR_FILE.exec(fileName);
    if (!match) throw notFound('Not found');
    const bytes = await readFile(join(this.dir, fileName)).catch(() => {
      throw notFound('Not found');
    });
    return { bytes, type: BY_EXTENSION.get(match[3]!)! };
  }
}
