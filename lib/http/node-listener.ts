import { STATUS_CODES, type ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import type { H3, NodeHandler } from 'h3';
import { toNodeHandler } from 'h3/node';
import { listen, type Listener } from 'listhen';

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
  return heldUntil(ready, keepRequestSocket(withReasonPhrase(toNodeHandler(app))));
}

/** Listens on exactly the requested port: listhen would quietly pick another one when it is busy. */
export async function listenStrict(handler: NodeHandler, port: number, hostname: string): Promise<Listener> {
  const listener = await listen(handler as Parameters<typeof listen>[0], {
    port,
    hostname,
    showURL: false,
    isTest: true,
    autoClose: false,
    open: false,
    clipboard: false,
    qr: false,
  });
  if (port !== 0 && listener.address.port !== port) {
    await listener.close();
    throw new PortInUseError(port);
  }
  return listener;
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

/**
 * listhen's graceful shutdown (http-shutdown) sets `req.socket._isIdle` when each response finishes. Node clears
 * `req.socket` when a request stream is destroyed through `pipeline` or a web-stream cancel (a handler that stops
 * reading a body it refuses, git fed a corrupt body), and that hook then throws outside any handler, which would
 * end the process. Put the socket back before the hook runs.
 */
function keepRequestSocket(handler: NodeHandler): NodeHandler {
  return (req, res) => {
    const socket = req.socket;
    res.prependOnceListener('finish', () => {
      if (!req.socket) (req as { socket: typeof socket }).socket = socket;
    });
    return handler(req, res);
  };
}
