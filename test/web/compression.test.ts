import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { git } from '../helpers/git-cli.js';
import { http, startHost, tempDir } from '../helpers/host.js';

/** A GET with undici, which (unlike a browser) never decodes: the bytes as they came, and the headers. */
async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: Buffer }> {
  const response = await request(url, { headers });
  return { status: response.statusCode, headers: response.headers, bytes: Buffer.from(await response.body.arrayBuffer()) };
}

const decode = (encoding: string, bytes: Buffer) => (encoding === 'br' ? brotliDecompressSync(bytes) : gunzipSync(bytes));
const varies = (headers: Record<string, unknown>) => String(headers.vary ?? '').split(',').map((name) => name.trim().toLowerCase()).includes('accept-encoding');

describe('answers compressed by Accept-Encoding', () => {
  let host: RepoHost;
  let token: string;
  /** 60 KB of text, committed through the contents API. */
  const notes = Array.from({ length: 1500 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog`).join('\n');

  beforeAll(async () => {
    host = await startHost();
    await host.admin.createUser({ username: 'alice', email: 'alice@example.com', password: 'password123' });
    token = await host.admin.createToken('alice', 'api');
    await host.admin.createRepo({ owner: 'alice', name: 'site' });
    const put = await http(`${host.url}/api/v3/repos/alice/site/contents/notes.txt`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}` },
      json: { message: 'Notes', content: Buffer.from(notes).toString('base64') },
    });
    expect(put.status).toBe(201);
    for (let i = 0; i < 4; i += 1) {
      const issue = await http(`${host.url}/api/v1/repos/alice/site/issues`, { headers: { authorization: `Bearer ${token}` }, form: { title: `Issue ${i}`, body: notes.slice(0, 400) } });
      expect(issue.status).toBe(200);
    }
  });

  afterAll(async () => {
    await host?.close();
  });

  const cases = () => [
    { what: 'a page', url: `${host.url}/alice/site/src/branch/main/notes.txt`, type: /^text\/html/ },
    { what: 'a JSON answer', url: `${host.url}/api/v3/repos/alice/site/contents/notes.txt`, type: /^application\/json/ },
    { what: 'a JSON list of /api/v1', url: `${host.url}/api/v1/repos/alice/site/issues`, type: /^application\/json/ },
    { what: 'a streamed raw file', url: `${host.url}/alice/site/raw/branch/main/notes.txt`, type: /^text\/plain/ },
  ];

  it('compresses pages, JSON and streamed text with br or gzip when asked, decoding to the same bytes', async () => {
    for (const { what, url, type } of cases()) {
      const plain = await get(url, { accept: 'text/html' });
      expect(plain.status, what).toBe(200);
      expect(String(plain.headers['content-type']), what).toMatch(type);
      expect(plain.headers['content-encoding'], what).toBeUndefined();
      expect(varies(plain.headers), what).toBe(true);
      expect(plain.bytes.length, what).toBeGreaterThan(1024);
      for (const [asked, encoding] of [['gzip', 'gzip'], ['br', 'br'], ['gzip, deflate, br', 'br'], ['br;q=0.5, gzip', 'gzip'], ['*', 'br']] as const) {
        const packed = await get(url, { accept: 'text/html', 'accept-encoding': asked });
        expect(packed.status, `${what}, ${asked}`).toBe(200);
        expect(packed.headers['content-encoding'], `${what}, ${asked}`).toBe(encoding);
        expect(varies(packed.headers), what).toBe(true);
        expect(packed.bytes.length, `${what}, ${asked}`).toBeLessThan(plain.bytes.length / 2);
        if (packed.headers['content-length'] !== undefined) expect(Number(packed.headers['content-length'])).toBe(packed.bytes.length);
        const decoded = decode(encoding, packed.bytes);
        // A page carries a per-request form token only for signed-in viewers: anonymous pages are byte for byte equal.
        expect(decoded.equals(plain.bytes), `${what}, ${asked}`).toBe(true);
      }
    }
    const raw = await get(`${host.url}/alice/site/raw/branch/main/notes.txt`, { 'accept-encoding': 'gzip' });
    expect(decode('gzip', raw.bytes).toString('utf8')).toBe(notes);
  });

  it('sends as they are: nothing asked, encodings refused, small answers, HEAD', async () => {
    const { url } = cases()[0]!;
    for (const asked of ['identity', 'gzip;q=0, br;q=0', 'deflate', 'br;q=0, *;q=0']) {
      const result = await get(url, { 'accept-encoding': asked });
      expect(result.headers['content-encoding'], asked).toBeUndefined();
    }
    // Below 1 KB, compressing costs more than it saves.
    const small = await get(`${host.url}/api/v1/users/alice`, { 'accept-encoding': 'gzip, br' });
    expect(small.status).toBe(200);
    expect(small.bytes.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.bytes.toString('utf8'))).toMatchObject({ username: 'alice' });
    const head = await request(url, { method: 'HEAD', headers: { 'accept-encoding': 'gzip' } });
    await head.body.dump();
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-encoding']).toBeUndefined();
  });

  it('keeps the ETag weak and 304s working on a compressed JSON answer', async () => {
    const url = `${host.url}/api/v3/repos/alice/site/contents/notes.txt`;
    const first = await get(url, { 'accept-encoding': 'gzip' });
    expect(first.headers['content-encoding']).toBe('gzip');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\//);
    expect(String(first.headers.vary)).toMatch(/Accept, Authorization, Cookie, Accept-Encoding/);
    const again = await get(url, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
  });

  it('never compresses git smart HTTP, and git clones as before', async () => {
    const refs = await get(`${host.url}/alice/site.git/info/refs?service=git-upload-pack`, {
      authorization: `Basic ${Buffer.from(`alice:${token}`).toString('base64')}`,
      'accept-encoding': 'gzip, br',
    });
    expect(refs.status).toBe(200);
    expect(refs.headers['content-type']).toBe('application/x-git-upload-pack-advertisement');
    expect(refs.headers['content-encoding']).toBeUndefined();
    expect(refs.bytes.subarray(0, 30).toString('latin1')).toBe('001e# service=git-upload-pack\n');
    const upload = await request(`${host.url}/alice/site.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'accept-encoding': 'gzip, br', authorization: `Basic ${Buffer.from(`alice:${token}`).toString('base64')}` },
      body: '0000',
    });
    await upload.body.dump();
    expect(upload.headers['content-encoding']).toBeUndefined();

    // git itself asks for compressed answers (curl sends Accept-Encoding); the clone must still work.
    const work = await tempDir('repohost-compress-clone-');
    try {
      const remote = new URL(`${host.url}/alice/site.git`);
      remote.username = 'alice';
      remote.password = token;
      await git(work.path, ['clone', '-q', remote.href, 'clone'], work.path);
      expect(await git(`${work.path}/clone`, ['show', 'HEAD:notes.txt'], work.path)).toBe(notes);
    } finally {
      await work.cleanup();
    }
  });
});
