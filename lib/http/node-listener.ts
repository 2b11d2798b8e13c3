import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import type { H3, NodeHandler } from 'h3';
import { toNodeHandler } from 'h3/node';

/** The port asked for is taken: repohost never quietly serves on another one. */
export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} is already in use`);
    this.name = 'PortInUseError';
  }
}

/** How long `closeListener` lets in-flight requests and git transfers finish before cutting their connections. */
const CLOSE_GRACE_MS = 30_000;

/**
 * The app as a Node request handler. Requests that arrive before `ready` resolves wait for it (a host started on
 * port 0 listens before it is ready, since only listening tells it its port and so its URL); when it resolves
 * false (start-up failed), they are answered 503.
 */
export function nodeHandlerOf(app: H3, ready: Promise<boolean>): NodeHandler {
  return heldUntil(ready, withReasonPhrase(toNodeHandler(app)));
}

/** A listening HTTP server of one host. */
export interface Listener {
  readonly server: Server;
  readonly address: { readonly port: number };
  /**
   * Stops accepting and resolves once every connection has ended: idle keep-alive connections are ended at once,
   * the others as soon as their response is finished (what listhen's http-shutdown did before, issue 23).
   */
  close(): Promise<void>;
}

/**
 * Listens on exactly the requested port (a busy one is `PortInUseError`, never another port), with a plain
 * `node:http` server: listhen cost 78 ms of every start (issue 23) for what is only a `listen` here.
 */
export async function listenStrict(handler: NodeHandler, port: number, hostname: string): Promise<Listener> {
  let closing: Promise<void> | undefined;
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    if (closing) res.shouldKeepAlive = false;
    res.once('finish', () => {
      if (closing) endSocket(socket);
    });
    return (handler as RequestListener)(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error);
    server.once('error', onError);
    server.listen({ port, host: hostname }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('repohost: the server has no TCP address');
  return {
    server,
    address: { port: address.port },
    close: () =>
      (closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      })),
  };
}

/** Ends a connection once what was written to it has gone out. */
function endSocket(socket: Socket): void {
  socket.end();
  if (socket.writableFinished) socket.destroy();
  else socket.once('finish', () => socket.destroy());
}

/**
 * Fails with `PortInUseError` when the port cannot be bound now, without keeping it: a host on a fixed port
 * listens only once it is ready (fixtures loaded), and a busy port should still stop it before it writes anything.
 */
export function checkPortFree(port: number, hostname: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error));
    probe.listen({ port, host: hostname, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** Stops accepting, lets in-flight requests finish for a bounded time, then cuts what is left. */
export async function closeListener(listener: Listener): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), CLOSE_GRACE_MS);
    timer.unref();
  });
  const closed = listener.close();
  if ((await Promise.race([closed, graceOver])) === 'timeout') {
    listener.server.closeAllConnections();
    await closed;
  }
  clearTimeout(timer);
}

function heldUntil(ready: Promise<boolean>, handler: NodeHandler): NodeHandler {
  let state: boolean | undefined;
  void ready.then((value) => (state = value));
  const refuse = (res: ServerResponse) => {
    if (res.headersSent) return;
    res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1', connection: 'close' });
    res.end('repohost is not running\n');
  };
  return (req, res) => {
    if (state === true) return handler(req, res);
    if (state === false) return refuse(res as ServerResponse);
    return ready.then((ok) => (ok ? handler(req, res) : refuse(res as ServerResponse)));
  };
}

/**
 * srvx (h3's Node adapter) passes a web Response's `statusText` to `writeHead`, and that is empty for nearly every
 * Response, so the status line went out as `HTTP/1.1 200 ` (issue 17 point 10a). An empty phrase becomes the
 * standard one.
 */
function withReasonPhrase(handler: NodeHandler): NodeHandler {
  return (req, res) => {
    const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
    (res as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = function (this: ServerResponse, statusCode: unknown, ...rest: unknown[]) {
      if (rest[0] === '' && typeof statusCode === 'number') rest[0] = STATUS_CODES[statusCode] ?? 'unknown';
      return writeHead.call(this, statusCode, ...rest);
    };
    return handler(req, res);
  };
}
