import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { http, startHost } from '../helpers/host.js';

/** Issue 7 point 11: a client that aborts mid-body is not a server failure. */
describe('requests aborted mid-body', () => {
  let host: RepoHost;
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host?.close();
  });

  it('fifty aborted anonymous /login requests log nothing and the server keeps serving', async () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const { port } = new URL(host.url);
      await Promise.all(
        Array.from({ length: 50 }, () =>
          new Promise<void>((resolve) => {
            const socket = connect(Number(port), '127.0.0.1', () => {
              socket.write('POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nusername=al');
              setTimeout(() => socket.destroy(), 30);
            });
            socket.on('close', () => resolve());
            socket.on('error', () => resolve());
          }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await http(`${host.url}/login`)).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
    expect(written.filter((line) => /failed|Error|\n\s+at /.test(line))).toEqual([]);
  });
});
