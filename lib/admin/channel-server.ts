import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRepoHostError } from '../errors.js';
import type { AdminOperations } from './operations.js';
import { removeChannelFile, writeChannelFile } from './channel-file.js';
import { isOperationName, type AdminRequest, type AdminResponse } from './protocol.js';

const MAX_REQUEST_BYTES = 1024 * 1024;

export interface AdminChannel {
  readonly url: string;
  close(): Promise<void>;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new Error('request too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function reply(res: ServerResponse, status: number, body: AdminResponse): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Serves the admin operations of a running host to `repohost` commands on the same machine, so their writes
 * go through the one process that owns the database. It listens on loopback only (never on the public
 * interface) and requires the random secret it writes to `<db>.admin` (mode 0600) beside the database.
 */
export async function startAdminChannel(dbPath: string, admin: AdminOperations): Promise<AdminChannel> {
  const secret = randomBytes(32).toString('hex');
  const expected = digest(`Bearer ${secret}`);
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Hashing both sides gives equal lengths for the constant-time comparison.
    if (!timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
      return reply(res, 401, { ok: false, kind: 'unauthorized', message: 'admin secret missing or wrong' });
    }
    if (req.method !== 'POST') return reply(res, 405, { ok: false, kind: 'invalid', message: 'POST only' });
    let request: AdminRequest;
    try {
      request = (await readJson(req)) as AdminRequest;
    } catch {
      return reply(res, 400, { ok: false, kind: 'invalid', message: 'Invalid request body' });
    }
    if (!isOperationName(request?.op) || !Array.isArray(request.args)) {
      return reply(res, 400, { ok: false, kind: 'invalid', message: `unknown admin operation ${String(request?.op)}` });
    }
    try {
      const operation = admin[request.op] as (...args: unknown[]) => unknown;
      const result = await operation(...request.args);
      reply(res, 200, { ok: true, result: result ?? null });
    } catch (error) {
      if (isRepoHostError(error)) reply(res, 200, { ok: false, kind: error.kind, message: error.message });
      else reply(res, 500, { ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  try {
    await writeChannelFile(dbPath, { pid: process.pid, url, secret });
  } catch (error) {
    server.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closing ??= (async () => {
        await removeChannelFile(dbPath);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
      })()),
  };
}
