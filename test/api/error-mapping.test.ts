import { HTTPError } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_BY_KIND, type ErrorKind } from '../../lib/errors.js';
import { RepoHostError, type RepoHost } from '../../lib/index.js';
import { errorResponse } from '../../lib/http/app.js';
import { bearer, http, startHost } from '../helpers/host.js';
import { newRepo, newUser, type TestUser } from '../helpers/api.js';

describe('the one mapping from failures to HTTP', () => {
  it.each(Object.entries(STATUS_BY_KIND) as Array<[ErrorKind, number]>)('maps the %s kind to %i with { success: false, message }', (kind, status) => {
    expect(errorResponse(new RepoHostError(kind, `a ${kind} failure`))).toEqual({ status, body: { success: false, message: `a ${kind} failure` } });
    // h3 wraps what a handler throws (`new HTTPError(error)`); the kind must survive the wrapping.
    const wrapped = new HTTPError(new RepoHostError(kind, 'wrapped'));
    expect(errorResponse(wrapped)).toEqual({ status, body: { success: false, message: 'wrapped' } });
  });

  it('uses the natural statuses of issue 2', () => {
    expect(STATUS_BY_KIND).toMatchObject({ invalid: 400, unauthorized: 401, not_found: 404, conflict: 409, too_large: 413, unsupported: 415 });
  });

  it('answers h3’s own client errors with their status and an unknown route with Not found', () => {
    expect(errorResponse(new HTTPError({ status: 404, message: 'Cannot find any route matching [GET] /x' }))).toEqual({
      status: 404,
      body: { success: false, message: 'Not found' },
    });
    expect(errorResponse(new HTTPError({ status: 400, message: 'Invalid JSON body' }))).toEqual({ status: 400, body: { success: false, message: 'Invalid JSON body' } });
  });

  it('hides the details of unexpected failures behind a 500 without a stack', () => {
    const result = errorResponse(new Error('SQLITE_CORRUPT at /secret/path.db'));
    expect(result).toEqual({ status: 500, body: { success: false, message: 'Internal server error' } });
    const wrapped = Object.assign(new HTTPError(new TypeError('x is undefined')), { unhandled: true });
    expect(errorResponse(wrapped).body.message).toBe('Internal server error');
  });
});

describe('in-process requests (host.app.fetch) answer like the real port', () => {
  let host: RepoHost;
  let alice: TestUser;

  beforeAll(async () => {
    host = await startHost();
    alice = await newUser(host, 'alice');
    await newRepo(host, alice, 'project');
  });
  afterAll(() => host?.close());

  it.each([
    ['/api/v1/users/alice', {}],
    ['/api/v1/me', {}],
    ['/api/v1/me', 'token'],
    ['/api/v1/repos/alice/project', {}],
    ['/api/v1/repos/alice/project/issues', {}],
    ['/api/v1/repos/alice/nope', {}],
    ['/api/v1/repos/1/tree/files', {}],
    ['/api/v1/nope', {}],
  ] as const)('GET %s', async (path, auth) => {
    const headers: Record<string, string> = auth === 'token' ? bearer(alice.token) : {};
    const overPort = await http(`${host.url}${path}`, { headers });
    const inProcess = await host.app.fetch(new Request(`${host.url}${path}`, { headers }));
    expect(inProcess.status).toBe(overPort.status);
    expect(await inProcess.json()).toEqual(overPort.json);
  });

  it('creates an issue in-process', async () => {
    const response = await host.app.fetch(
      new Request(`${host.url}/api/v1/repos/alice/project/issues`, {
        method: 'POST',
        headers: { ...bearer(alice.token), 'content-type': 'application/x-www-form-urlencoded' },
        body: 'title=in-process',
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ title: 'in-process', status: 'open' });
  });
});
