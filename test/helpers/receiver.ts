import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: headers, the exact body bytes, and the body as JSON when it is JSON. */
export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: any;
  at: number;
}

/** How the receiver answers the n-th request (0-based): a status, or 'hang' to never answer. */
export type Answer = number | 'hang';

/** A real HTTP server on 127.0.0.1 that records webhook requests, for hosts started with allowLocalNetwork. */
export class HookReceiver {
  readonly received: ReceivedHook[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly hanging = new Set<ServerResponse>();
  private answer: (index: number) => Answer = () => 200;

  private constructor(private readonly server: Server) {}

  static async start(port = 0): Promise<HookReceiver> {
    let receiver!: HookReceiver;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => receiver.take(request.headers, Buffer.concat(chunks), response));
    });
    receiver = new HookReceiver(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Sets how requests are answered from now on (by their index among all received). */
  answerWith(answer: (index: number) => Answer): void {
    this.answer = answer;
  }

  private take(headers: IncomingHttpHeaders, body: Buffer, response: ServerResponse): void {
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      json = undefined;
    }
    const index = this.received.length;
    this.received.push({ headers, body, json, at: performance.now() });
    for (const wake of [...this.waiters]) wake();
    const answer = this.answer(index);
    if (answer === 'hang') {
      this.hanging.add(response);
      return;
    }
    response.writeHead(answer, { 'Content-Type': 'text/plain', 'X-Receiver': 'test' }).end(`answer ${answer}`);
  }

  /** The requests of one event (`X-GitHub-Event`). */
  ofEvent(event: string): ReceivedHook[] {
    return this.received.filter((hook) => hook.headers['x-github-event'] === event);
  }

  /** Resolves once `count` requests match, or rejects after `timeoutMs`. */
  async waitFor(match: (hook: ReceivedHook) => boolean, count = 1, timeoutMs = 5000): Promise<ReceivedHook[]> {
    const matching = () => this.received.filter(match);
    if (matching().length >= count) return matching();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (matching().length < count) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve(matching());
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`receiver: ${matching().length} of ${count} matching requests after ${timeoutMs} ms (${this.received.length} in all)`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  waitForEvent(event: string, count = 1, timeoutMs = 5000): Promise<ReceivedHook[]> {
    return this.waitFor((hook) => hook.headers['x-github-event'] === event, count, timeoutMs);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
