import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { parseRefUpdates, type RefChange } from '../refs.js';

/**
 * What the host decides about the ref updates a push proposes, asked by its pre-receive hook: the refs it refuses,
 * each with the reason git shows the pusher. `quarantine` is where git keeps the pushed objects until the refs move
 * (they are not yet in the repository's own object store).
 */
export type PushCheck = (proposed: RefChange[], quarantine: string | undefined) => Promise<Map<string, string>>;

/** Largest request a hook may send (git's list of updates: about 100 bytes a ref). */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const IDLE_TIMEOUT_MS = 60_000;

/** Parses `token\nquarantine\n(old new ref\n)*\n`; undefined while incomplete. */
function parseRequest(text: string): { token: string; quarantine: string; changes: RefChange[] } | undefined {
  const first = text.indexOf('\n');
  const second = first < 0 ? -1 : text.indexOf('\n', first + 1);
  if (second < 0) return undefined;
  const rest = text.slice(second + 1);
  if (rest !== '\n' && !rest.endsWith('\n\n')) return undefined;
  return { token: text.slice(0, first), quarantine: text.slice(first + 1, second), changes: parseRefUpdates(rest) };
}

/**
 * A loopback TCP listener that the pre-receive hooks of this host's pushes talk to (bash reaches it through
 * `/dev/tcp`). Each push registers a check under a random token; a connection with an unknown token is dropped.
 */
export class HookChannel {
  #server: Promise<{ server: Server; port: number }> | undefined;
  readonly #checks = new Map<string, PushCheck>();
  readonly #sockets = new Set<Socket>();

  /** Registers `check` for one push; returns the environment its hooks need and a release for when it ends. */
  async register(check: PushCheck): Promise<{ port: number; token: string; release: () => void }> {
    const { port } = await (this.#server ??= this.#listen());
    const token = randomBytes(24).toString('hex');
    this.#checks.set(token, check);
    return { port, token, release: () => this.#checks.delete(token) };
  }

  #listen(): Promise<{ server: Server; port: number }> {
    const server = createServer((socket) => this.#serve(socket));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        server.unref();
        resolve({ server, port: (server.address() as { port: number }).port });
      });
    });
  }

  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.#sockets.delete(socket));
    let text = '';
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      text += chunk.toString('utf8');
      if (text.length > MAX_REQUEST_BYTES) return socket.destroy();
      const request = parseRequest(text);
      if (!request) return;
      answered = true;
      const check = this.#checks.get(request.token);
      if (!check) return socket.destroy();
      check(request.changes, request.quarantine || undefined).then(
        (refusals) => {
          const lines = [...refusals].map(([ref, reason]) => `refuse ${ref}\t${reason.replace(/[\r\n\t]+/g, ' ')}\n`);
          socket.end(`${lines.join('')}ok\n`);
        },
        (error: unknown) => socket.end(`error ${(error instanceof Error ? error.message : String(error)).replace(/[\r\n]+/g, ' ')}\n`),
      );
    });
  }

  /** Stops listening; hooks still connected are cut (their pushes are refused). */
  async close(): Promise<void> {
    const opened = this.#server;
    this.#server = undefined;
    if (!opened) return;
    const { server } = await opened.catch(() => ({ server: undefined }));
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
