import type { IncomingMessage } from 'node:http';
import { getQuery, getRequestHeader, HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../../context.js';
import { plain, requestedService, toWebResponse } from '../../git/smart-http.js';
import { currentUser } from '../auth.js';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="repohost"' };

const textResponse = (status: number, message: string, headers: Record<string, string> = {}) => toWebResponse(plain(status, message, headers));

/**
 * Git smart HTTP at `/{owner}/{repo}.git/...` and `/{owner}/{repo}/...`: `info/refs`,
 * `git-upload-pack`, `git-receive-pack`. Public repositories are readable by anyone; private ones
 * and every push need the owner (HTTP Basic: username + API token or password). Without
 * credentials, where they would be needed, the answer is 401 with a Basic challenge (so git asks
 * for them); with credentials of someone else, 404 (existence does not leak). Unknown repositories
 * answer exactly like private ones.
 */
export function mountGitRoutes(app: H3, ctx: AppContext): void {
  const git = ctx.git;
  const handle = (action: string) => async (event: H3Event) => {
    const params = event.context.params ?? {};
    const owner = params.owner ?? '';
    const name = (params.repo ?? '').replace(/\.git$/i, '');
    const service = requestedService(action, action === 'info/refs' ? String(getQuery(event).service ?? '') : null);
    if (!service) {
      if (action === 'info/refs') return textResponse(403, 'Only the smart HTTP protocol is supported; please upgrade your git client');
      return textResponse(404, 'Not found');
    }
    const repo = ctx.repos.findByName(owner, name);
    const ownerOnly = service === 'git-receive-pack' || !repo || repo.is_private === 1;
    if (ownerOnly) {
      const user = await currentUser(ctx, event);
      if (!user) {
        const message = getRequestHeader(event, 'authorization') ? 'Authentication failed' : 'Authentication required';
        return textResponse(401, message, CHALLENGE);
      }
      if (!repo || repo.owner_id !== user.id) return textResponse(404, 'Repository not found');
    } else if (getRequestHeader(event, 'authorization') && !(await currentUser(ctx, event))) {
      // Wrong credentials are refused even where none are needed, so a typo never passes unnoticed.
      return textResponse(401, 'Authentication failed', CHALLENGE);
    }
    const nodeRequest = (event.runtime?.node?.req as IncomingMessage | undefined) ?? undefined;
    const result = await git.serveHttpStream(
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
      { onPushed: (changes, headBranch) => ctx.repos.recordPush(repo!, changes, headBranch) },
    );
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
