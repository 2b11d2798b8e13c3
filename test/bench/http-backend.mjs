// `git http-backend` as CGI behind a bare node:http server: the baseline a forge's smart HTTP is measured against
// (bench:push, bench:start). Only node's own modules, so a process running it as a script starts as fast as it can:
// `node test/bench/http-backend.mjs <port> <project root>`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const GIT_ENV = { PATH: process.env.PATH ?? '', HOME: tmpdir(), GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LANG: 'C' };

/**
 * The server. `launch` starts git (bench:push passes the host's launcher, so neither side pays for forking a large
 * process); with `askCredentials` a request without `Authorization` gets a 401 challenge first, as any deployment that
 * takes pushes does (git sends credentials only after one), and any credentials are taken.
 */
export function httpBackendServer(projectRoot, { launch = (command, args, options) => spawn(command, args, options), askCredentials = false } = {}) {
  return createServer((request, response) => {
    if (askCredentials && !request.headers.authorization) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="bench"' });
      return void response.end();
    }
    const url = new URL(request.url, 'http://localhost');
    const child = launch('git', ['http-backend'], {
      env: {
        ...GIT_ENV,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'bench',
        REQUEST_METHOD: request.method,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: request.headers['git-protocol'] ?? '',
      },
    });
    request.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk) => {
      if (headersDone) return void response.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else response.setHeader(name, value);
      }
      response.writeHead(status);
      response.write(head.subarray(end + 4));
    });
    child.on('close', () => response.end());
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [port, projectRoot] = process.argv.slice(2);
  httpBackendServer(projectRoot).listen(Number(port), '127.0.0.1');
}
