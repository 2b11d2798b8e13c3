import { getRequestHeader, HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { pathParam, queryString } from '../http/validate.js';
import { MAX_API_BLOB_BYTES, type IdentityInput, type TreeEntryInput } from '../services/git-data.js';
import type { TagObject } from '../git/tags.js';
import { optionalFlag } from '../services/text-fields.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { nodeId } from '../github/api-ids.js';
import { githubTime } from '../github/time.js';
import { created, GitHubApiError, githubPage, noContent, readJson, unprocessable, validationFailed } from './http.js';
import { apiUrl, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';
import { ownValue } from '../own-value.js';

/** What GitHub says of an object without a signature (repohost verifies none). */
const UNSIGNED = { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null } as const;

/** `heads/main` in a path is `refs/heads/main` in git. */
const fullRef = (event: H3Event) => `refs/${pathParam(event, 'ref').replace(/^refs\//, '')}`;

/**
 * The git data API: refs, blobs, trees, commits and tags read from and written into the real repository. A ref
 * created, moved or deleted here is a push for everything else (RefUpdateService).
 */
export function mountGitData(app: H3, ctx: AppContext): void {
  const api = (repo: RepositoryRow, path: string) => apiUrl(ctx, repo, path);

  const refShape = async (repo: RepositoryRow, ref: string, sha: string) => {
    // Branches point at commits; only other refs (an annotated tag) need a look at the object.
    const type = ref.startsWith('refs/heads/') ? 'commit' : ((await ctx.gitData.objectType(repo, sha)) ?? 'commit');
    return { ref, node_id: nodeId('Ref', ref), url: api(repo, `/git/${ref}`), object: { type, sha, url: api(repo, `/git/${type}s/${sha}`) } };
  };

  app.get(`${REPO}/git/ref/**:ref`, async (event) => {
    const repo = await repoOf(ctx, event);
    const ref = fullRef(event);
    const sha = (await ctx.gitData.refsOf(repo)).get(ref);
    if (!sha) throw notFound();
    return refShape(repo, ref, sha);
  });

  /** The refs whose names start with `prefix`, sorted. */
  const matching = async (repo: RepositoryRow, prefix: string) => {
    const refs = [...(await ctx.gitData.refsOf(repo))].filter(([ref]) => ref.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1));
    return Promise.all(refs.map(([ref, sha]) => refShape(repo, ref, sha)));
  };

  app.get(`${REPO}/git/matching-refs/**:ref`, async (event) => await matching(await repoOf(ctx, event), fullRef(event)));
  // Without a ref (octokit's `listMatchingRefs({ ref: '' })` leaves the slash out): every ref, as GitHub answers.
  app.get(`${REPO}/git/matching-refs`, async (event) => await matching(await repoOf(ctx, event), 'refs/'));

  // The older paths octokit.rb and PyGithub still use: every ref, or one ref by its whole name (an object), else those
  // its name starts (a list), else 404.
  app.get(`${REPO}/git/refs`, async (event) => {
    const repo = await repoOf(ctx, event);
    // Every ref of a repository can be many: a page of them, with GitHub's Link headers.
    const refs = [...(await ctx.gitData.refsOf(repo))].sort(([a], [b]) => (a < b ? -1 : 1));
    return await Promise.all(githubPage(ctx, event).slice(refs).map(([ref, sha]) => refShape(repo, ref, sha)));
  });
  app.get(`${REPO}/git/refs/**:ref`, async (event) => {
    const repo = await repoOf(ctx, event);
    const ref = fullRef(event);
    const sha = (await ctx.gitData.refsOf(repo)).get(ref);
    if (sha) return refShape(repo, ref, sha);
    const found = await matching(repo, `${ref}/`);
    if (found.length === 0) throw notFound();
    return found;
  });

  app.post(`${REPO}/git/refs`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    requireStrings('Reference', body, ['ref', 'sha']);
    const ref = String(body.ref);
    if (!/^refs\/[^/]+\/./.test(ref)) throw unprocessable('Reference name must start with refs/ and have at least two slashes');
    await ctx.refUpdates.apply(repo, user, { ref, after: String(body.sha), mustExist: false });
    return created(event, await refShape(repo, ref, String(body.sha)));
  });

  app.patch(`${REPO}/git/refs/**:ref`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    requireStrings('Reference', body, ['sha']);
    const ref = fullRef(event);
    await ctx.refUpdates.apply(repo, user, { ref, after: String(body.sha), mustExist: true, force: optionalFlag('force', body.force, false) });
    return refShape(repo, ref, String(body.sha));
  });

  app.delete(`${REPO}/git/refs/**:ref`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.refUpdates.apply(repo, user, { ref: fullRef(event), after: null, mustExist: true });
    return noContent();
  });

  app.get(`${REPO}/git/blobs/:sha`, async (event) => {
    const repo = await repoOf(ctx, event);
    const sha = pathParam(event, 'sha');
    const bytes = await ctx.gitData.blob(repo, sha);
    // `application/vnd.github.raw`: the blob's own bytes, as the contents API answers that media type.
    if (/application\/vnd\.github(?:\.v3)?\.raw/.test(getRequestHeader(event, 'accept') ?? '')) {
      return new HTTPResponse(bytes as unknown as BodyInit, { headers: { 'content-type': 'application/vnd.github.raw; charset=utf-8', 'x-content-type-options': 'nosniff' } });
    }
    return { sha, node_id: nodeId('Blob', `${repo.id}:${sha}`), size: bytes.length, url: api(repo, `/git/blobs/${sha}`), content: bytes.toString('base64'), encoding: 'base64' };
  });

  app.post(`${REPO}/git/blobs`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    requireStrings('Blob', body, ['content']);
    const encoding = body.encoding ?? 'utf-8';
    if (encoding !== 'utf-8' && encoding !== 'utf8' && encoding !== 'base64') throw validationFailed({ resource: 'Blob', field: 'encoding', code: 'invalid', message: 'encoding must be utf-8 or base64' });
    const bytes = Buffer.from(String(body.content), encoding === 'base64' ? 'base64' : 'utf8');
    if (bytes.length > MAX_API_BLOB_BYTES) throw new GitHubApiError(413, `blobs written through the API are at most ${MAX_API_BLOB_BYTES} bytes`);
    const sha = await ctx.gitData.createBlob(repo, user, bytes);
    return created(event, { sha, url: api(repo, `/git/blobs/${sha}`) });
  });

  const treeShape = (repo: RepositoryRow, tree: Awaited<ReturnType<typeof ctx.gitData.tree>>) => ({
    sha: tree.sha,
    url: api(repo, `/git/trees/${tree.sha}`),
    tree: tree.entries.map((entry) => ({
      path: entry.path,
      mode: entry.mode,
      type: entry.type,
      sha: entry.id,
      ...(entry.size !== undefined ? { size: entry.size } : {}),
      url: api(repo, `/git/${entry.type === 'tree' ? 'trees' : entry.type === 'blob' ? 'blobs' : 'commits'}/${entry.id}`),
    })),
    truncated: tree.truncated,
  });

  app.get(`${REPO}/git/trees/:sha`, async (event) => {
    const repo = await repoOf(ctx, event);
    const recursive = queryString(event, 'recursive');
    // GitHub: "Setting this parameter to any value returns the objects or subtrees referenced by the tree", `0` and
    // `false` included.
    const tree = await ctx.gitData.tree(repo, pathParam(event, 'sha'), recursive !== undefined);
    return treeShape(repo, tree);
  });

  app.post(`${REPO}/git/trees`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (!Array.isArray(body.tree)) throw validationFailed({ resource: 'Tree', field: 'tree', code: body.tree === undefined ? 'missing_field' : 'invalid' });
    const entries = (body.tree as unknown[]).map((entry, index) => treeEntry(entry, index));
    const base = body.base_tree === undefined || body.base_tree === null ? undefined : String(body.base_tree);
    const sha = await ctx.gitData.createTree(repo, user, base, entries);
    return created(event, treeShape(repo, await ctx.gitData.tree(repo, sha, false)));
  });

  app.get(`${REPO}/git/commits/:sha`, async (event) => {
    const repo = await repoOf(ctx, event);
    return shapesOf(ctx).code.gitCommit(repo, await ctx.gitData.commit(repo, pathParam(event, 'sha')));
  });

  app.post(`${REPO}/git/commits`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    requireStrings('Commit', body, ['message', 'tree']);
    // A signature given would be dropped (repohost writes commits with git, unsigned): refused, not ignored.
    if (body.signature !== undefined) throw unprocessable('repohost does not write signed commits: leave out signature');
    const commit = await ctx.gitData.createCommit(repo, user, {
      message: body.message,
      tree: body.tree,
      parents: body.parents,
      author: identityField('author', body.author),
      committer: identityField('committer', body.committer),
    });
    return created(event, shapesOf(ctx).code.gitCommit(repo, commit));
  });

  const tagShape = (repo: RepositoryRow, tag: TagObject) => {
    const tagger = tag.tagger && { name: tag.tagger.name, email: tag.tagger.email, date: githubTime(tag.tagger.iso) };
    return {
      node_id: nodeId('Tag', tag.id),
      sha: tag.id,
      url: api(repo, `/git/tags/${tag.id}`),
      tag: tag.tag,
      message: tag.message,
      ...(tagger ? { tagger } : {}),
      object: { type: tag.object.type, sha: tag.object.id, url: api(repo, `/git/${tag.object.type}s/${tag.object.id}`) },
      verification: UNSIGNED,
    };
  };

  app.get(`${REPO}/git/tags/:sha`, async (event) => {
    const repo = await repoOf(ctx, event);
    return tagShape(repo, await ctx.gitData.tag(repo, pathParam(event, 'sha')));
  });

  // An annotated tag object (`git mktag`); as on GitHub, the ref `refs/tags/<tag>` is a separate POST /git/refs.
  app.post(`${REPO}/git/tags`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    requireStrings('Tag', body, ['tag', 'message', 'object', 'type']);
    const tagger = body.tagger as IdentityInput | undefined;
    return created(event, tagShape(repo, await ctx.gitData.createTag(repo, user, { tag: body.tag, message: body.message, object: body.object, type: body.type, tagger })));
  });
}

/** Fields that must be present strings: GitHub's `missing_field` / `invalid` otherwise. */
function requireStrings(resource: string, body: Record<string, unknown>, fields: readonly string[]): void {
  const errors = fields
    .filter((field) => typeof ownValue(body, field) !== 'string')
    .map((field) => ({ resource, field, code: ownValue(body, field) === undefined ? ('missing_field' as const) : ('invalid' as const) }));
  if (errors.length > 0) throw validationFailed(...errors);
}

function treeEntry(value: unknown, index: number): TreeEntryInput {
  const entry = (value ?? {}) as Record<string, unknown>;
  const bad = (field: string) => validationFailed({ resource: 'Tree', field: `tree[${index}].${field}`, code: 'invalid' });
  if (typeof entry.path !== 'string' || entry.path === '') throw bad('path');
  if (entry.mode !== undefined && typeof entry.mode !== 'string') throw bad('mode');
  if (entry.type !== undefined && entry.type !== 'blob' && entry.type !== 'tree' && entry.type !== 'commit') throw bad('type');
  if (entry.content !== undefined && typeof entry.content !== 'string') throw bad('content');
  if (entry.sha !== undefined && entry.sha !== null && typeof entry.sha !== 'string') throw bad('sha');
  if (entry.content !== undefined && typeof entry.sha === 'string') throw validationFailed({ resource: 'Tree', field: `tree[${index}]`, code: 'custom', message: 'give sha or content, not both' });
  return { path: entry.path, mode: entry.mode as string | undefined, sha: entry.sha as string | null | undefined, content: entry.content as string | undefined };
}

/** `author` / `committer` of a request: an object with name, email and an optional date. */
export function identityField(field: string, value: unknown): { name?: unknown; email?: unknown; date?: unknown } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw validationFailed({ resource: 'Commit', field, code: 'invalid' });
  return value as { name?: unknown; email?: unknown; date?: unknown };
}
