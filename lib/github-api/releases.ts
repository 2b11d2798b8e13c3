import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { getQuery, getRequestHeader, HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { unavailable } from '../errors.js';
import { currentUser } from '../http/auth.js';
import { RequestForgeryGuard } from '../http/csrf.js';
import { idParam, pathParam, queryString } from '../http/validate.js';
import type { Release } from '../services/releases.js';
import type { ReleaseAssetRow } from '../store/queries/releases.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { ReleaseShapes, UPLOADS_PREFIX } from '../github/release-shapes.js';
import { conflictAs, created, githubPage, noContent, readJson, validationFailed } from './http.js';
import { REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

/** When a refused archive may be asked for again. */

const alreadyExists = (resource: 'Release' | 'ReleaseAsset', field: string) => () => validationFailed({ resource, code: 'already_exists', field });

/** True when the client asks for an asset's bytes rather than its JSON (`Accept: application/octet-stream`). */
const wantsBytes = (event: H3Event) => (getRequestHeader(event, 'accept') ?? '').includes('application/octet-stream');

/** An asset's bytes as a download. */
export function assetDownload(asset: ReleaseAssetRow, body: Readable): HTTPResponse {
  return new HTTPResponse(body as unknown as BodyInit, {
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(asset.size),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(asset.name)}`,
      'x-content-type-options': 'nosniff',
    },
  });
}

/** The request body as a Node stream (the upload is streamed to disk, never held whole). */
function bodyStream(event: H3Event): Readable {
  const node = event.runtime?.node?.req as IncomingMessage | undefined;
  if (node) return node;
  return event.req.body ? Readable.fromWeb(event.req.body as import('node:stream/web').ReadableStream) : Readable.from([]);
}

/**
 * Releases and their assets (GitHub's REST shapes), the upload endpoint at GitHub Enterprise Server's
 * `/api/uploads` (where each release's `upload_url` points), and the source archives (`tarball`, `zipball`).
 */
export function mountReleases(app: H3, ctx: AppContext): void {
  const shapes = new ReleaseShapes(() => ctx.baseUrl(), shapesOf(ctx));
  const RELEASE = `${REPO}/releases/:release_id`;
  const ASSET = `${REPO}/releases/assets/:asset_id`;
  const one = async (repo: RepositoryRow, release: Release) => (await shapes.releases(ctx.store, repo, [release]))[0]!;
  const asset = async (repo: RepositoryRow, row: ReleaseAssetRow) => (await shapes.assets(ctx.store, repo, [row]))[0]!;

  app.get(`${REPO}/releases`, async (event) => {
    const { repo, viewer } = await repoAndViewer(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.releases.list(repo, viewer, page);
    return page.respond(total, await shapes.releases(ctx.store, repo, items));
  });

  app.post(`${REPO}/releases`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    refuseUnsupported(body, true);
    // Generated notes follow the body given, as on GitHub.
    if (body.generate_release_notes === true) {
      const notes = await ctx.releases.generateNotes(repo, user, { tag_name: body.tag_name, target_commitish: body.target_commitish });
      body.body = typeof body.body === 'string' && body.body !== '' ? `${body.body}\n\n${notes.body}` : notes.body;
    }
    const release = await conflictAs(() => ctx.releases.create(repo, user, body), alreadyExists('Release', 'tag_name'));
    return created(event, await one(repo, release));
  });

  app.post(`${REPO}/releases/generate-notes`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    return await ctx.releases.generateNotes(repo, user, await readJson(ctx, event));
  });

  app.get(`${REPO}/releases/latest`, async (event) => {
    const repo = await repoOf(ctx, event);
    return await one(repo, await ctx.releases.latest(repo));
  });

  app.get(`${REPO}/releases/tags/**:tag`, async (event) => {
    const repo = await repoOf(ctx, event);
    return await one(repo, await ctx.releases.byTag(repo, pathParam(event, 'tag')));
  });

  app.get(RELEASE, async (event) => {
    const { repo, viewer } = await repoAndViewer(ctx, event);
    return await one(repo, await ctx.releases.get(repo, viewer, idParam(event, 'release_id')));
  });

  app.patch(RELEASE, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    refuseUnsupported(body, false);
    const release = await conflictAs(() => ctx.releases.update(repo, user, idParam(event, 'release_id'), body), alreadyExists('Release', 'tag_name'));
    return await one(repo, release);
  });

  app.delete(RELEASE, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.releases.remove(repo, user, idParam(event, 'release_id'));
    return noContent();
  });

  app.get(`${RELEASE}/assets`, async (event) => {
    const { repo, viewer } = await repoAndViewer(ctx, event);
    const page = githubPage(ctx, event);
    const release = await ctx.releases.get(repo, viewer, idParam(event, 'release_id'));
    const { items, total } = await ctx.releases.assets(repo, viewer, release.id, page);
    return page.respond(total, await shapes.assets(ctx.store, repo, items));
  });

  app.post(`${UPLOADS_PREFIX}/repos/:owner/:repo/releases/:release_id/assets`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    // A raw body carries no form token: a browser's cookie-signed upload must bring it in the query.
    RequestForgeryGuard.verifyForm(event, { ...getQuery(event) });
    const row = await conflictAs(
      () =>
        ctx.releases.upload(repo, user, idParam(event, 'release_id'), {
          name: queryString(event, 'name'),
          label: queryString(event, 'label'),
          contentType: getRequestHeader(event, 'content-type'),
          body: bodyStream(event),
        }),
      alreadyExists('ReleaseAsset', 'name'),
    );
    return created(event, await asset(repo, row));
  });

  app.get(ASSET, async (event) => {
    const { repo, viewer } = await repoAndViewer(ctx, event);
    const row = await ctx.releases.asset(repo, viewer, idParam(event, 'asset_id'));
    // GitHub redirects to a download URL; the bytes are answered here at once (clients follow either).
    if (wantsBytes(event)) return assetDownload(row, await ctx.releases.download(repo, viewer, row));
    return await asset(repo, row);
  });

  app.patch(ASSET, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const row = await conflictAs(() => ctx.releases.updateAsset(repo, user, idParam(event, 'asset_id'), { name: body.name, label: body.label }), alreadyExists('ReleaseAsset', 'name'));
    return await asset(repo, row);
  });

  app.delete(ASSET, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.releases.removeAsset(repo, user, idParam(event, 'asset_id'));
    return noContent();
  });

  // GitHub answers 302 to its download host; repohost's download is the repository's archive of the commit
  // (lib/http/routes/pages/code.ts), which takes the same credentials and a place among the host's git transfers.
  for (const [kind, format] of [
    ['tarball', 'tar.gz'],
    ['zipball', 'zip'],
  ] as const) {
    const answer = async (event: H3Event, ref: string | undefined) => {
      const repo = await repoOf(ctx, event);
      const commit = await ctx.gitData.resolve(repo, ref ?? repo.default_branch);
      const location = `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/archive/${commit}.${format}`;
      return new HTTPResponse(null, { status: 302, headers: { location, 'cache-control': 'no-store' } });
    };
    app.get(`${REPO}/${kind}`, (event) => answer(event, undefined));
    app.get(`${REPO}/${kind}/**:ref`, (event) => answer(event, pathParam(event, 'ref')));
  }
}

/** The repository of the path and whoever asks (drafts are shown to those with write access). */
async function repoAndViewer(ctx: AppContext, event: H3Event) {
  const viewer = await currentUser(ctx, event);
  return { repo: await repoOf(ctx, event), viewer };
}

/**
 * Options of GitHub's release endpoints that repohost does not have: refused, never silently dropped; and
 * `generate_release_notes`, which only creating takes (`creating`), a boolean.
 */
function refuseUnsupported(body: Record<string, unknown>, creating: boolean): void {
  if (body.discussion_category_name !== undefined) throw validationFailed({ resource: 'Release', field: 'discussion_category_name', code: 'invalid', message: 'repohost has no discussions' });
  const notes = body.generate_release_notes;
  if (notes !== undefined && notes !== false && !(creating && notes === true)) {
    throw validationFailed({ resource: 'Release', field: 'generate_release_notes', code: 'invalid', message: creating ? 'generate_release_notes must be a boolean' : 'release notes are generated when a release is created' });
  }
}
