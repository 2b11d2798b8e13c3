import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RepoHost } from '../../lib/index.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';
import { startHost } from '../helpers/host.js';

/** Sends one raw HTTP/1.1 request and answers the status line exactly as it came over the wire. */
function statusLine(host: RepoHost, request: string): Promise<string> {
  const { port } = new URL(host.url);
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(received.slice(0, end));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before a status line: ${JSON.stringify(received)}`)));
  });
}

const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`;

/** Issue 17 point 10a: every response carries the standard reason phrase (`HTTP/1.1 200 OK`, not `HTTP/1.1 200 `). */
describe('the HTTP status line', () => {
  let host: RepoHost;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'project');
  });
  afterAll(() => host?.close());

  it.each([
    ['a page', get('/'), 'HTTP/1.1 200 OK'],
    ['a JSON answer', get('/api/v1/users/alice'), 'HTTP/1.1 200 OK'],
    ['an unknown user', get('/api/v1/users/nobody'), 'HTTP/1.1 404 Not Found'],
    ['a request without credentials', get('/api/v1/me'), 'HTTP/1.1 401 Unauthorized'],
    ['a refused body', `POST /api/v1/ci/status HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`, 'HTTP/1.1 415 Unsupported Media Type'],
    ['a streamed git advertisement', get('/alice/project.git/info/refs?service=git-upload-pack'), 'HTTP/1.1 200 OK'],
    ['a git challenge', get('/alice/project.git/info/refs?service=git-receive-pack'), 'HTTP/1.1 401 Unauthorized'],
  ])('carries the standard phrase for %s', async (_name, request, expected) => {
    expect(await statusLine(host, request)).toBe(expected);
  });

  it('carries the standard phrase for a redirect (the spec\'s token form)', async () => {
    const body = 'name=another';
    const request = `POST /alice/settings/api-tokens HTTP/1.1\r\nHost: x\r\nCookie: token=${alice.session}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    expect(await statusLine(host, request)).toBe('HTTP/1.1 303 See Other');
  });
});
