import { deflateSync } from 'node:zlib';
import { request } from 'undici';
import { expect } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { createApiToken, createRepo, http, register, type HttpResult } from './host.js';

/** A registered user with both credentials of spec §5. */
export interface TestUser {
  username: string;
  session: string;
  token: string;
}

/** Registers `username` through `/register` and mints an API token through the settings form. */
export async function newUser(host: RepoHost, username: string): Promise<TestUser> {
  const session = await register(host, username);
  const token = await createApiToken(host, session, username);
  return { username, session, token };
}

/** Creates a repository through `/new` and returns its summary (looked up as the owner). */
export async function newRepo(host: RepoHost, owner: TestUser, name: string, visibility: 'public' | 'private' = 'public'): Promise<{ id: number; name: string }> {
  await createRepo(host, owner.session, name, visibility);
  const result = await http(`${host.url}/api/v1/repos/${owner.username}/${name}`, { headers: { cookie: `token=${owner.session}` } });
  expect(result.status).toBe(200);
  return result.json as { id: number; name: string };
}

/** The `{ success: false, message }` error body with the given status; `text` must appear in the message. */
export function expectError(result: HttpResult, status: number, text?: string): void {
  expect({ status: result.status, body: result.text }).toMatchObject({ status });
  expect(String(result.headers['content-type'])).toMatch(/^application\/json/);
  expect(result.json).toMatchObject({ success: false });
  expect(typeof result.json.message).toBe('string');
  if (text !== undefined) {
    expect(result.text).toContain(text);
    expect(result.json.message).toContain(text);
  }
}

/** Checks the type of every field the spec lists for a record. */
export function expectShape(value: unknown, fields: Record<string, 'string' | 'number' | 'boolean' | 'integer'>): void {
  expect(value).toBeTypeOf('object');
  expect(value).not.toBeNull();
  const record = value as Record<string, unknown>;
  for (const [field, type] of Object.entries(fields)) {
    if (type === 'integer') {
      expect(Number.isInteger(record[field]), `${field} is an integer (got ${JSON.stringify(record[field])})`).toBe(true);
    } else {
      expect(typeof record[field], `${field} is a ${type}`).toBe(type);
    }
  }
}

export const USER_SUMMARY = { id: 'integer', username: 'string', full_name: 'string', avatar: 'string' } as const;
export const REPO_SUMMARY = { id: 'integer', name: 'string', user_name: 'string' } as const;
export const ISSUE_SUMMARY = { id: 'integer', number: 'integer', repo_id: 'integer', title: 'string', body: 'string', author: 'string', status: 'string' } as const;
export const PULL_SUMMARY = { id: 'integer', repo_id: 'integer', title: 'string', description: 'string', status: 'string' } as const;
export const COMMENT_SUMMARY = { id: 'integer', author: 'string', text: 'string' } as const;
export const FILE_ENTRY = { name: 'string', last_msg: 'string', last_hash: 'string', last_time: 'string', size: 'string' } as const;

/** `Set-Cookie` values of a response, as an array. */
export function setCookies(result: HttpResult): string[] {
  return [result.headers['set-cookie']].flat().filter((value): value is string => typeof value === 'string');
}

/** The `token` cookie line of a response, if any. */
export function tokenCookie(result: HttpResult): string | undefined {
  return setCookies(result).find((value) => value.startsWith('token='));
}

/** A real, minimal PNG image (`width` x 1 pixels, grey). */
export function pngBytes(width = 1): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(1, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const raw = Buffer.concat([Buffer.from([0]), Buffer.alloc(width, 0x80)]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A minimal JPEG-looking byte string (SOI, APP0 JFIF, EOI): enough for a signature check. */
export function jpegBytes(): Buffer {
  return Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
    Buffer.from('JFIF\0', 'latin1'),
    Buffer.from([0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]),
    Buffer.from([0xff, 0xd9]),
  ]);
}

export interface MultipartPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** Encodes `multipart/form-data` by hand, so tests control every byte (filenames, declared types, missing parts). */
export function multipart(parts: MultipartPart[]): { body: Buffer; contentType: string } {
  const boundary = `----repohost-test-${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Posts a multipart body to the avatar endpoint. */
export function uploadAvatar(host: RepoHost, headers: Record<string, string>, parts: MultipartPart[]): Promise<HttpResult> {
  const { body, contentType } = multipart(parts);
  return http(`${host.url}/api/v1/users/avatar`, { method: 'POST', headers: { ...headers, 'content-type': contentType }, body });
}

/** GETs a URL with undici and returns the raw bytes (for images). */
export async function getBytes(url: string): Promise<{ status: number; contentType: string; bytes: Buffer }> {
  const response = await request(url);
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), bytes };
}
