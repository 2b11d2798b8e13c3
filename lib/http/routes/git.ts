import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { getQuery, getRequestHeader, HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../../context.js';
import { plain, requestedService, toWebResponse } from '../../git/smart-http.js';
import { ConcurrencyGate } from '../../concurrency-gate.js';
import { RepositoryMoved } from '../../errors.js';
import { atLeast, integrationAllows } from '../../services/permissions.js';
import { retryAfterOf } from '../retry-after.js';
import { clientAddress, currentUser } from '../auth.js';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="repohost"' };
const RETRY_AFTER_SECONDS = 5;

const textResponse = (status: number, message: string, headers: Record<string, string> = {}) => toWebResponse(plain(status, message, headers));

/**
 * Git smart HTTP at `/{owner}/{repo}.git/...` and `/{owner}/{repo}/...`: `info/refs`,
 * `git-upload-pack`, `git-receive-pack`. Fetching needs read access and pushing write access, as the one
 * permission check (services/permissions.ts) says (HTTP Basic: username + API token or password). Without
 * credentials, where they would be needed, the answer is 401 with a Basic challenge (so git asks
 * for them); with credentials of someone who cannot see the repository, 404 (existence does not leak); with
 * read access only, a push is refused with 403. Unknown repositories answer exactly like private ones.
 */
export function mountGitRoutes(app: H3, ctx: AppContext): void {
  const git = ctx.git;
  // Transfers are counted, not requests: a clone or push is a short ref advertisement (GET info/refs), then its
  // upload-pack / receive-pack POST. Advertisements have places of their own, so they never hold a transfer's;
  // transfers share theirs with SSH's.
  const transfers = ctx.gitTransfers;
  const advertisements = new ConcurrencyGate(ctx.options.maxGitTransfers, ctx.options.maxGitTransfersPerClient);
  const handle = (action: string) => async (event: H3Event) => {
    const params = event.context.params ?? {};
    const owner = params.owner ?? '';
    const name = (params.repo ?? '').replace(/\.git$/i, '');
    const service = requestedService(action, action === 'info/refs' ? String(getQuery(event).service ?? '') : null);
    if (!service) {
      if (action === 'info/refs') return textResponse(403, 'Only the smart HTTP protocol is supported; please upgrade your git client');
      return textResponse(404, 'Not found');
    }
    const repo = await ctx.repos.findByName(owner, name);
    const needed = service === 'git-receive-pack' ? 'write' : 'read';
    let user;
    try {
      user = await currentUser(ctx, event);
    } catch (error) {
      // Too many wrong passwords: git shows the status and the text.
      const retryAfter = retryAfterOf(error);
      if (retryAfter === undefined) throw error;
      return textResponse(429, (error as Error).message, { 'Retry-After': String(retryAfter) });
    }
    if (getRequestHeader(event, 'authorization') && !user) {
      // Wrong credentials are refused even where none are needed, so a typo never passes unnoticed.
      return textResponse(401, 'Authentication failed', CHALLENGE);
    }
    if (!repo) {
      // A renamed repository's former name: git follows the redirect of its first request and says so.
      const moved = await ctx.repos.movedTo(user, owner, name);
      if (moved) {
        const location = new RepositoryMoved({ owner, name }, moved).locationFor(event.url);
        return new Response(null, { status: RepositoryMoved.statusFor(event.req.method), headers: { location, 'cache-control': 'no-cache' } });
      }
    }
    const level = repo ? await ctx.repos.access(user, repo) : 'none';
    if (!atLeast(level, needed)) {
      // Anonymous callers are asked for credentials (git only sends them after a challenge); a signed-in caller
      // who cannot see the repository learns nothing about it, one who can read but not push is told so.
      if (!user) return textResponse(401, 'Authentication required', CHALLENGE);
      if (level === 'none') return textResponse(404, 'Repository not found');
      return textResponse(403, `Permission denied: ${user.username} may not push to ${repo!.owner_name}/${repo!.name}`);
    }
    // An app clones with its installation's `contents: read` and pushes with `contents: write`, whatever else it may do.
    if (user?.installation && !integrationAllows(user.installation, repo!, needed === 'write' ? 'write' : 'read', 'contents')) {
      return textResponse(403, `Permission denied: ${user.username} may not ${needed === 'write' ? 'push to' : 'read'} ${repo!.owner_name}/${repo!.name}`);
    }
    // Beyond a cap the request waits its turn for a while (a CI machine runs many jobs at once), then 503.
    const gate = action === 'info/refs' ? advertisements : transfers;
    const place = await gate.wait(clientAddress(event) ?? '', ctx.options.gitTransferWaitMs, event.req.signal);
    if (place === 'aborted') return textResponse(503, 'The client went away while waiting for a git transfer place');
    if (typeof place === 'string') {
      const message = place === 'busy' ? 'Too many git transfers are running; try again shortly' : 'Too many git transfers from your address are running; try again shortly';
      return textResponse(503, message, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
    }
    const nodeRequest = (event.runtime?.node?.req as IncomingMessage | undefined) ?? undefined;
    const result = await git
      .serveHttpStream(
      repo!.owner_name,
      repo!.name,
      {
        method: event.req.method,
        action,
        service,
        headers: event.req.headers,
        body: nodeRequest ?? event.req.body,
        signal: event.req.signal,
      },
      service === 'git-receive-pack' && action !== 'info/refs' ? await ctx.refUpdates.pushOptions(repo!, user) : {},
      )
      .catch((error: unknown) => {
        place();
        throw error;
      });
    // The place is held until the answer is sent (or cut off).
    if (result.body instanceof Readable) result.body.once('close', place);
    else place();
    // On Node, h3 pipes a Node stream body straight into the socket: no web-stream hop per chunk.
    if (nodeRequest) return new HTTPResponse(result.body as unknown as BodyInit, { status: result.status, headers: result.headers });
    return toWebResponse(result);
  };
  for (const [path, action] of [
    ['info/refs', 'info/refs'],
    ['git-upload-pack', 'git-upload-pack'],
    ['git-receive-pack', 'git-receive-pack'],
  ] as const) {
    app.all(`/:owner/:repo/${path}`, handle(action));
  }
}
