import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { getQuery, getRequestHeader, HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError } from '../errors.js';
import { currentUser } from '../http/auth.js';
import { readLimitedText, parseJsonObject, queryString } from '../http/validate.js';
import { retryAfterOf } from '../http/retry-after.js';
import { atLeast, integrationAllows, type AccessLevel } from '../services/permissions.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { LfsError, LockTaken, type BatchAnswer, type LfsCaller, type LfsLockRow } from '../services/lfs.js';
import { LfsTokens } from './tokens.js';

const LFS_TYPE = 'application/vnd.git-lfs+json';
/** How long the actions of a batch answer stay valid, in seconds. */
const ACTION_SECONDS = 3600;
const MAX_LOCKS_PAGE = 100;

/** An LFS API answer: JSON of LFS's media type. */
function lfsJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': LFS_TYPE, ...headers } });
}

/** Any failure as LFS's error answer `{ message }`: validation is 422 in this API, and 401 asks for credentials. */
function lfsFailure(error: unknown): Response {
  if (error instanceof LfsError) return lfsJson(error.status, { message: error.message });
  if (!isRepoHostError(error)) throw error;
  const status = error.kind === 'invalid' ? 422 : error.status;
  const headers: Record<string, string> = status === 401 ? { 'LFS-Authenticate': 'Basic realm="repohost"' } : {};
  const retryAfter = retryAfterOf(error);
  if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  const extra = error instanceof LockTaken ? { lock: lockShape(error.lock) } : {};
  return lfsJson(status, { message: error.message, ...extra }, headers);
}

function credentialsNeeded(): Response {
  return lfsJson(401, { message: 'Credentials needed' }, { 'LFS-Authenticate': 'Basic realm="repohost"' });
}

function lockShape(lock: LfsLockRow) {
  return { id: String(lock.id), path: lock.path, locked_at: new Date(lock.created_at).toISOString().replace(/\.\d{3}Z$/, 'Z'), owner: { name: lock.owner_name } };
}

const LESSER: Readonly<Record<AccessLevel, AccessLevel>> = { none: 'none', read: 'read', write: 'read', admin: 'read' };

/**
 * Who asks and what they may do: a token from `git-lfs-authenticate` (SSH), or the credentials git over HTTP takes
 * (Basic with a password or token, Bearer), through the one permission check. A token for downloads only reads.
 */
async function callerOf(ctx: AppContext, event: H3Event, repo: RepositoryRow | undefined): Promise<LfsCaller & { anonymous: boolean }> {
  const authorization = getRequestHeader(event, 'authorization') ?? '';
  const remote = /^RemoteAuth\s+(\S+)\s*$/i.exec(authorization);
  if (remote) {
    const granted = repo ? (await LfsTokens.of(ctx.options.dataDir)).verify(remote[1]!, repo.id, ctx.options.now().getTime()) : undefined;
    if (!repo || !granted) return { access: 'none', anonymous: true };
    let user;
    let access: AccessLevel;
    if (granted.principal.kind === 'user') {
      user = await ctx.users.byId(granted.principal.id);
      if (!user) return { access: 'none', anonymous: true };
      access = await ctx.repos.access(user, repo);
    } else {
      const key = await ctx.sshKeys.deployPrincipal(repo, granted.principal.id);
      if (!key) return { access: 'none', anonymous: true };
      access = await ctx.sshKeys.access(key, repo);
    }
    return { access: granted.operation === 'download' ? LESSER[access] : access, user, anonymous: false };
  }
  const user = await currentUser(ctx, event);
  if (authorization && !user) return { access: 'none', anonymous: true };
  const access = repo ? await ctx.repos.access(user, repo) : 'none';
  // An app reads objects with its installation's `contents: read`, and writes them (and locks) with `contents: write`.
  const grant = user?.installation;
  if (!grant || !repo) return { access, user, anonymous: !user };
  const level = integrationAllows(grant, repo, 'write', 'contents') ? access : integrationAllows(grant, repo, 'read', 'contents') ? LESSER[access] : 'none';
  return { access: level, user, anonymous: false };
}

/**
 * Git LFS over HTTP under each repository's git URL (`/:owner/:repo.git/info/lfs`): the batch API with the basic
 * transfer adapter (upload, download, verify), and the locking API (create, list, verify, unlock with force for
 * admins). Callers who may not see a repository are told it does not exist; anonymous ones are asked to sign in.
 */
export function mountLfsRoutes(app: H3, ctx: AppContext): void {
  /** The repository of the path and its caller; a refusal when the caller may not even read it. */
  const open = async (event: H3Event): Promise<{ repo: RepositoryRow; caller: LfsCaller & { anonymous: boolean } } | Response> => {
    const params = event.context.params ?? {};
    const repo = await ctx.repos.findByName(params.owner ?? '', (params.repo ?? '').replace(/\.git$/i, ''));
    const caller = await callerOf(ctx, event, repo ?? undefined);
    if (repo && atLeast(caller.access, 'read')) return { repo, caller };
    if (caller.anonymous) return credentialsNeeded();
    return lfsJson(404, { message: 'Repository not found' });
  };
  const handle = (work: (event: H3Event, repo: RepositoryRow, caller: LfsCaller) => Promise<Response | HTTPResponse>) => async (event: H3Event) => {
    let anonymous = false;
    try {
      const opened = await open(event);
      if (opened instanceof Response) return opened;
      anonymous = opened.caller.anonymous;
      return await work(event, opened.repo, opened.caller);
    } catch (error) {
      // An anonymous caller refused (an upload to a public repository) is asked for credentials, as GitHub asks:
      // git-lfs sends them only after a 401 with LFS-Authenticate, and a 403 would end the push.
      if (anonymous && isRepoHostError(error) && error.status === 403) return credentialsNeeded();
      return lfsFailure(error);
    }
  };
  const jsonBody = async (event: H3Event) => parseJsonObject(await readLimitedText(event, ctx.options.maxBodyBytes), 'the body must be a JSON object');
  const base = (repo: RepositoryRow) => `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}.git/info/lfs`;

  app.post('/:owner/:repo/info/lfs/objects/batch', handle(async (event, repo, caller) => {
    const body = await jsonBody(event);
    const answers = await ctx.lfs.batch(repo, caller, body);
    // The actions are taken with the credentials the batch came with (git-lfs sends the header given here).
    const authorization = getRequestHeader(event, 'authorization');
    const action = (href: string) => ({ href, ...(authorization ? { header: { Authorization: authorization } } : {}), expires_in: ACTION_SECONDS });
    const shaped = answers.map((answer: BatchAnswer) => {
      if (answer.error) return { oid: answer.oid, size: answer.size, error: answer.error };
      const object = `${base(repo)}/objects/${answer.oid}`;
      const actions: Record<string, unknown> = {};
      if (answer.actions?.download) actions.download = action(object);
      // The size the batch was answered for travels with the upload, which must send exactly that many bytes.
      if (answer.actions?.upload) actions.upload = action(`${object}?size=${answer.size}`);
      if (answer.actions?.verify) actions.verify = action(`${base(repo)}/verify`);
      return { oid: answer.oid, size: answer.size, authenticated: true, ...(Object.keys(actions).length ? { actions } : {}) };
    });
    return lfsJson(200, { transfer: 'basic', objects: shaped, hash_algo: 'sha256' });
  }));

  app.put('/:owner/:repo/info/lfs/objects/:oid', handle(async (event, repo, caller) => {
    const length = getRequestHeader(event, 'content-length');
    const size = queryString(event, 'size');
    const nodeRequest = event.runtime?.node?.req as IncomingMessage | undefined;
    const body = nodeRequest ?? (event.req.body ? Readable.fromWeb(event.req.body as import('node:stream/web').ReadableStream) : Readable.from([]));
    await ctx.lfs.upload(repo, caller, event.context.params?.oid ?? '', body, {
      length: length === undefined ? undefined : Number(length),
      batch: size === undefined ? undefined : /^\d{1,15}$/.test(size) ? Number(size) : NaN,
    });
    return new Response(null, { status: 200 });
  }));

  app.get('/:owner/:repo/info/lfs/objects/:oid', handle(async (event, repo, caller) => {
    const { body, size } = await ctx.lfs.download(repo, caller, event.context.params?.oid ?? '');
    return new HTTPResponse(body as unknown as BodyInit, { status: 200, headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) } });
  }));

  app.post('/:owner/:repo/info/lfs/verify', handle(async (event, repo, caller) => {
    await ctx.lfs.verify(repo, caller, await jsonBody(event));
    return lfsJson(200, {});
  }));

  app.post('/:owner/:repo/info/lfs/locks', handle(async (event, repo, caller) => {
    const body = await jsonBody(event);
    return lfsJson(201, { lock: lockShape(await ctx.lfs.lock(repo, caller, body.path)) });
  }));

  const page = (value: unknown) => {
    const limit = Number(value ?? MAX_LOCKS_PAGE);
    return Number.isInteger(limit) && limit > 0 ? Math.min(limit, MAX_LOCKS_PAGE) : MAX_LOCKS_PAGE;
  };
  const cursor = (value: unknown) => (typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : undefined);

  app.get('/:owner/:repo/info/lfs/locks', handle(async (event, repo, caller) => {
    const query = getQuery(event);
    const found = await ctx.lfs.locks(repo, caller, {
      path: typeof query.path === 'string' ? query.path : undefined,
      id: cursor(query.id) ?? (query.id === undefined ? undefined : 0),
      cursor: cursor(query.cursor),
      limit: page(query.limit),
    });
    return lfsJson(200, { locks: found.locks.map(lockShape), ...(found.next ? { next_cursor: String(found.next) } : {}) });
  }));

  app.post('/:owner/:repo/info/lfs/locks/verify', handle(async (event, repo, caller) => {
    const body = await jsonBody(event);
    if (!atLeast(caller.access, 'write') || !caller.user) return lfsJson(403, { message: 'write access with an account is needed to verify locks' });
    const found = await ctx.lfs.locks(repo, caller, { cursor: cursor(body.cursor), limit: page(body.limit) });
    const user = caller.user;
    return lfsJson(200, {
      ours: found.locks.filter((lock) => lock.owner_id === user.id).map(lockShape),
      theirs: found.locks.filter((lock) => lock.owner_id !== user.id).map(lockShape),
      ...(found.next ? { next_cursor: String(found.next) } : {}),
    });
  }));

  app.post('/:owner/:repo/info/lfs/locks/:id/unlock', handle(async (event, repo, caller) => {
    const body = await jsonBody(event).catch(() => ({}) as Record<string, unknown>);
    const id = cursor(event.context.params?.id);
    if (id === undefined) return lfsJson(404, { message: 'Lock does not exist' });
    return lfsJson(200, { lock: lockShape(await ctx.lfs.unlock(repo, caller, id, body.force === true)) });
  }));
}
