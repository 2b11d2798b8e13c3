import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FormData, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { bearer, cookie, http, startHost } from '../helpers/host.js';
import { expectError, expectShape, getBytes, jpegBytes, multipart, newUser, pngBytes, uploadAvatar, USER_SUMMARY, type MultipartPart, type TestUser } from '../helpers/api.js';

const MAX_AVATAR = 4096;

describe('POST /api/v1/users/avatar (spec §4.1 endpoint 17)', () => {
  let host: RepoHost;
  let alice: TestUser;
  let bob: TestUser;

  const avatarFiles = async () => (await readdir(join(host.options.dataDir, 'avatars')).catch(() => [] as string[])).sort();
  const me = async (user: TestUser) => (await http(`${host.url}/api/v1/me`, { headers: bearer(user.token) })).json;
  const png = (data: Buffer = pngBytes(), extra: Partial<MultipartPart> = {}): MultipartPart[] => [
    { name: 'file', filename: 'avatar.png', contentType: 'image/png', data, ...extra },
  ];

  beforeAll(async () => {
    host = await startHost({ maxAvatarBytes: MAX_AVATAR });
    alice = await newUser(host, 'alice');
    bob = await newUser(host, 'bob');
  });
  afterAll(() => host?.close());

  it('gives every user an avatar URL that serves an image before any upload', async () => {
    const summary = await me(alice);
    const image = await http(summary.avatar);
    expect(image.status).toBe(200);
    expect(String(image.headers['content-type'])).toMatch(/^image\//);
  });

  describe('rejections write nothing to the avatars folder', () => {
    it('answers 404 without credentials, and with a wrong token or cookie', async () => {
      const before = await avatarFiles();
      expectError(await uploadAvatar(host, {}, png()), 404);
      expectError(await uploadAvatar(host, bearer('0'.repeat(64)), png()), 404);
      expectError(await uploadAvatar(host, cookie('stale'), png()), 404);
      expect(await avatarFiles()).toEqual(before);
    });

    it('answers 415 to bytes that are not an image, even with an image content type', async () => {
      const before = await avatarFiles();
      const avatarBefore = (await me(alice)).avatar;
      expectError(await uploadAvatar(host, bearer(alice.token), png(Buffer.from('<?php echo "hi"; ?>'))), 415);
      expectError(await uploadAvatar(host, bearer(alice.token), png(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), { contentType: 'image/svg+xml' })), 415);
      expectError(await uploadAvatar(host, bearer(alice.token), png(Buffer.from('GIF8'), { contentType: 'image/gif' })), 415);
      expect(await avatarFiles()).toEqual(before);
      expect((await me(alice)).avatar).toBe(avatarBefore);
    });

    it('answers 415 to image bytes declared with a non-image content type', async () => {
      const before = await avatarFiles();
      expectError(await uploadAvatar(host, bearer(alice.token), png(pngBytes(), { contentType: 'text/plain' })), 415);
      expect(await avatarFiles()).toEqual(before);
    });

    it('answers 415 to an empty file', async () => {
      expectError(await uploadAvatar(host, bearer(alice.token), png(Buffer.alloc(0))), 415);
    });

    it('answers 413 to an image larger than the limit', async () => {
      const before = await avatarFiles();
      const big = Buffer.concat([pngBytes(), Buffer.alloc(MAX_AVATAR)]);
      expect(big.length).toBeGreaterThan(MAX_AVATAR);
      expectError(await uploadAvatar(host, bearer(alice.token), png(big)), 413);
      const huge = Buffer.concat([pngBytes(), Buffer.alloc(3 * 1024 * 1024)]);
      expectError(await uploadAvatar(host, bearer(alice.token), png(huge)), 413);
      expect(await avatarFiles()).toEqual(before);
    });

    it('answers 413 to an oversized upload streamed without a length, and keeps serving', async () => {
      const before = await avatarFiles();
      const { body, contentType } = multipart(png(Buffer.concat([pngBytes(), Buffer.alloc(2 * 1024 * 1024)])));
      async function* chunks() {
        for (let offset = 0; offset < body.length; offset += 64 * 1024) yield body.subarray(offset, offset + 64 * 1024);
      }
      const response = await request(`${host.url}/api/v1/users/avatar`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': contentType },
        body: Readable.from(chunks()),
      });
      expect(response.statusCode).toBe(413);
      expect(JSON.parse(await response.body.text())).toMatchObject({ success: false });
      expect(await avatarFiles()).toEqual(before);
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) })).status).toBe(200);
    });

    it('bounds the whole request: a huge part not named file is refused with 413 without being read (issue 7 point 10)', async () => {
      const before = await avatarFiles();
      // 64 MiB of a part the upload would discard, then the image: streamed, no length given.
      const head = Buffer.from('--b\r\ncontent-disposition: form-data; name="padding"; filename="pad.bin"\r\ncontent-type: application/octet-stream\r\n\r\n');
      const tail = multipart(png()).body;
      let sent = 0;
      async function* chunks() {
        yield head;
        const block = Buffer.alloc(256 * 1024, 0x61);
        for (let i = 0; i < 256; i++) {
          sent += block.length;
          yield block;
        }
        yield Buffer.from('\r\n');
        yield tail;
      }
      const response = await request(`${host.url}/api/v1/users/avatar`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': 'multipart/form-data; boundary=b' },
        body: Readable.from(chunks()),
      }).catch((error: Error) => error);
      if (response instanceof Error) {
        // The server may close before the client finished sending; what matters is it did not read it all.
        expect(sent).toBeLessThan(64 * 1024 * 1024);
      } else {
        expect(response.statusCode).toBe(413);
        expect(JSON.parse(await response.body.text())).toMatchObject({ success: false, message: expect.stringContaining('at most') });
      }
      expect(sent).toBeLessThan(32 * 1024 * 1024);
      expect(await avatarFiles()).toEqual(before);
      expect((await http(`${host.url}/api/v1/me`, { headers: bearer(alice.token) })).status).toBe(200);
    });

    it('answers 400 when the file part named file is missing', async () => {
      const before = await avatarFiles();
      expectError(await uploadAvatar(host, bearer(alice.token), [{ name: 'other', data: 'x' }]), 400);
      expectError(await uploadAvatar(host, bearer(alice.token), [{ name: 'avatar', filename: 'a.png', contentType: 'image/png', data: pngBytes() }]), 400);
      expectError(await uploadAvatar(host, bearer(alice.token), []), 400);
      expect(await avatarFiles()).toEqual(before);
    });

    it('answers 400 to two file parts', async () => {
      const before = await avatarFiles();
      expectError(await uploadAvatar(host, bearer(alice.token), [...png(), ...png()]), 400);
      expect(await avatarFiles()).toEqual(before);
    });

    it('answers 415 to a body that is not multipart', async () => {
      expectError(await http(`${host.url}/api/v1/users/avatar`, { headers: bearer(alice.token), json: { file: 'x' } }), 415);
      expectError(await http(`${host.url}/api/v1/users/avatar`, { method: 'POST', headers: { ...bearer(alice.token), 'content-type': 'image/png' }, body: pngBytes() }), 415);
    });

    it('answers 400 to a malformed multipart body', async () => {
      const result = await http(`${host.url}/api/v1/users/avatar`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': 'multipart/form-data; boundary=abc' },
        body: 'this is not multipart at all',
      });
      expect(result.status).toBe(400);
      expectError(result, 400);
    });
  });

  describe('accepted uploads', () => {
    it('accepts a PNG with the bearer token; the avatar URL then serves the same bytes', async () => {
      const bytes = pngBytes(3);
      const result = await uploadAvatar(host, bearer(alice.token), png(bytes));
      expect(result.status).toBe(200);
      // Chosen where the spec is silent: success true plus the updated user summary.
      expect(result.json.success).toBe(true);
      expectShape(result.json, USER_SUMMARY);
      const summary = await me(alice);
      expectShape(summary, USER_SUMMARY);
      expect(result.json.avatar).toBe(summary.avatar);
      const image = await http(summary.avatar);
      expect(image.status).toBe(200);
      expect(String(image.headers['content-type'])).toBe('image/png');
      expect((await getBytes(summary.avatar)).bytes).toEqual(bytes);
      // The public user lookup shows the same URL.
      expect((await http(`${host.url}/api/v1/users/alice`)).json.avatar).toBe(summary.avatar);
      expect((await avatarFiles()).length).toBe(1);
    });

    it('accepts a FormData body built by undici (a Blob part named file)', async () => {
      const frank = await newUser(host, 'frank');
      const before = (await avatarFiles()).length;
      const bytes = pngBytes(4);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'avatar.png');
      const response = await request(`${host.url}/api/v1/users/avatar`, { method: 'POST', headers: bearer(frank.token), body: form });
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(await response.body.text())).toMatchObject({ success: true, username: 'frank' });
      expect((await getBytes((await me(frank)).avatar)).bytes).toEqual(bytes);
      expect(await avatarFiles()).toHaveLength(before + 1);
    });

    it('accepts a JPEG with the session cookie and replaces the previous file', async () => {
      const previous = (await me(alice)).avatar;
      const count = (await avatarFiles()).length;
      const bytes = jpegBytes();
      const result = await uploadAvatar(host, cookie(alice.session), [{ name: 'file', filename: 'me.jpg', contentType: 'image/jpeg', data: bytes }]);
      expect(result.status).toBe(200);
      const summary = await me(alice);
      expect(summary.avatar).not.toBe(previous);
      const image = await getBytes(summary.avatar);
      expect(image).toMatchObject({ status: 200, contentType: 'image/jpeg' });
      expect(image.bytes).toEqual(bytes);
      expect((await getBytes(previous)).status).toBe(404);
      expect((await avatarFiles()).length).toBe(count);
    });

    it.each([
      ['GIF', 'image/gif', Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])])],
      ['WebP', 'image/webp', Buffer.concat([Buffer.from('RIFF', 'latin1'), Buffer.from([12, 0, 0, 0]), Buffer.from('WEBPVP8 ', 'latin1'), Buffer.alloc(4)])],
    ])('accepts a %s image and serves it with its type', async (_kind, contentType, bytes) => {
      const dave = await newUser(host, `dave-${contentType.slice(6)}`);
      const result = await uploadAvatar(host, bearer(dave.token), [{ name: 'file', filename: 'x', contentType, data: bytes }]);
      expect(result.status).toBe(200);
      const image = await getBytes((await me(dave)).avatar);
      expect(image).toMatchObject({ status: 200, contentType });
      expect(image.bytes).toEqual(bytes);
    });

    it('trusts the bytes over the declared image type', async () => {
      const erin = await newUser(host, 'erin');
      const bytes = pngBytes(2);
      expect((await uploadAvatar(host, bearer(erin.token), [{ name: 'file', filename: 'a.jpg', contentType: 'image/jpeg', data: bytes }])).status).toBe(200);
      expect((await getBytes((await me(erin)).avatar)).contentType).toBe('image/png');
    });

    it('keeps users’ avatars apart', async () => {
      const bytes = pngBytes(7);
      const before = (await avatarFiles()).length;
      expect((await uploadAvatar(host, bearer(bob.token), png(bytes))).status).toBe(200);
      const bobAvatar = (await me(bob)).avatar;
      const aliceAvatar = (await me(alice)).avatar;
      expect(bobAvatar).not.toBe(aliceAvatar);
      expect((await getBytes(bobAvatar)).bytes).toEqual(bytes);
      expect(await avatarFiles()).toHaveLength(before + 1);
    });

    it('ignores the client file name: a traversal name stays inside the avatars folder', async () => {
      const bytes = pngBytes(5);
      const before = (await avatarFiles()).length;
      const result = await uploadAvatar(host, bearer(bob.token), png(bytes, { filename: '../../../../evil.png' }));
      expect(result.status).toBe(200);
      const avatar = (await me(bob)).avatar;
      expect(avatar).not.toContain('evil');
      expect((await getBytes(avatar)).bytes).toEqual(bytes);
      expect(await avatarFiles()).toHaveLength(before);
      expect((await avatarFiles()).some((name) => name.includes('evil'))).toBe(false);
    });

    it('keeps exactly one file per user when uploads race', async () => {
      const carol = await newUser(host, 'carol');
      const others = (await avatarFiles()).length;
      const uploads = await Promise.all(Array.from({ length: 6 }, (_, i) => uploadAvatar(host, bearer(carol.token), png(pngBytes(10 + i)))));
      for (const upload of uploads) expect(upload.status).toBe(200);
      expect(await avatarFiles()).toHaveLength(others + 1);
      const image = await getBytes((await me(carol)).avatar);
      expect(image.status).toBe(200);
    });

    it('accepts an image exactly at the size limit', async () => {
      const exact = Buffer.concat([pngBytes(), Buffer.alloc(MAX_AVATAR - pngBytes().length)]);
      expect(exact.length).toBe(MAX_AVATAR);
      expect((await uploadAvatar(host, bearer(bob.token), png(exact))).status).toBe(200);
    });

    it('serves 404 for avatar names outside the stored files', async () => {
      for (const name of ['..%2F..%2Fetc%2Fpasswd', '1-0000000000000000.png', 'nothing', '..png', 'default.png']) {
        const result = await http(`${host.url}/avatars/${name}`);
        expect(result.status, name).toBe(404);
      }
    });
  });
});

describe('avatar size limit default', () => {
  it('is 1 MiB', async () => {
    const host = await startHost();
    try {
      const user = await newUser(host, 'dave');
      const justUnder = Buffer.concat([pngBytes(), Buffer.alloc(1024 * 1024 - pngBytes().length)]);
      expect((await uploadAvatar(host, bearer(user.token), [{ name: 'file', filename: 'a.png', contentType: 'image/png', data: justUnder }])).status).toBe(200);
      const over = Buffer.concat([justUnder, Buffer.alloc(1)]);
      expectError(await uploadAvatar(host, bearer(user.token), [{ name: 'file', filename: 'a.png', contentType: 'image/png', data: over }]), 413);
    } finally {
      await host.close();
    }
  });
});
