import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { getRequestHeader, getRouterParam, HTTPResponse } from 'h3';
import { notFound } from '../errors.js';
import { queryString } from '../http/validate.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { parseLfsPointer } from '../git/lfs-pointer.js';
import { identityField } from './git-data.js';
import { created, GitHubApiError, readJson, validationFailed } from './http.js';
import { REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const RAW_MEDIA_TYPE = /application\/vnd\.github(?:\.v3)?\.raw/;
/** The contents API's other media types (a file rendered as HTML, a folder as one object): not served, refused. */
const UNSERVED_MEDIA_TYPE = /application\/vnd\.github(?:\.v3)?\.(html|object)\b/;

/** The file path of `/contents/<path>` ('' for the top folder), decoded once. */
function contentPath(event: H3Event): string {
  const raw = getRouterParam(event, 'path') ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw notFound();
  }
}

/** The contents API: files and folders on a ref, and commits that create, replace or delete one file. */
export function mountContents(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);

  const read = async (event: H3Event, path: string) => {
    const repo = await repoOf(ctx, event);
    const unserved = UNSERVED_MEDIA_TYPE.exec(getRequestHeader(event, 'accept') ?? '');
    if (unserved) throw new GitHubApiError(415, `repohost does not serve the contents API in the ${unserved[1]} media type: ask for application/vnd.github+json or application/vnd.github.raw`);
    const ref = queryString(event, 'ref') || repo.default_branch;
    const found = await ctx.gitData.contents(repo, path, ref);
    // `application/vnd.github.raw` (or `.v3.raw`, as Octokit's mediaType.format sends it): a file's own bytes, streamed
    // from git whatever its size (Probot's context.config() reads `.github/*.yml` so); a folder is listed as JSON.
    if ('file' in found && found.file.type === 'file' && RAW_MEDIA_TYPE.test(getRequestHeader(event, 'accept') ?? '')) {
      const body = await ctx.git.browse.streamBlob(repo.owner_name, repo.name, found.file.sha);
      return new HTTPResponse(body as unknown as BodyInit, {
        headers: { 'content-type': 'application/vnd.github.raw; charset=utf-8', 'content-length': String(found.file.size), 'x-content-type-options': 'nosniff' },
      });
    }
    // A folder lists its first 1,000 entries and no more, as GitHub's does ("If the directory has more than 1,000
    // files, only the first 1,000 are returned"): no pages, `per_page` means nothing here; the git trees API has all.
    const kind = await rawKindOf(repo, ref);
    if ('folder' in found) return found.folder.map((entry) => shapes.code.content(repo, entry, ref, undefined, { kind }));
    const pointer = found.content ? parseLfsPointer(found.content) : undefined;
    const media = pointer !== undefined && (await ctx.lfs.holds(repo, pointer.oid));
    return shapes.code.content(repo, found.file, ref, found.content, { kind, media });
  };
  /** How the raw route names a ref: a branch, a commit id, or else a tag. */
  const rawKindOf = async (repo: RepositoryRow, ref: string) =>
    (await ctx.gitData.refsOf(repo)).has(`refs/heads/${ref}`) ? 'branch' : /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(ref) ? 'commit' : 'tag';
  app.get(`${REPO}/contents`, (event) => read(event, ''));
  app.get(`${REPO}/contents/**:path`, (event) => read(event, contentPath(event)));

  app.get(`${REPO}/readme`, async (event) => {
    const repo = await repoOf(ctx, event);
    const ref = queryString(event, 'ref') || repo.default_branch;
    const { file, content } = await ctx.gitData.readme(repo, ref);
    return shapes.code.content(repo, file, ref, content, { kind: await rawKindOf(repo, ref) });
  });

  const change = async (event: H3Event, remove: boolean) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (typeof body.message !== 'string') throw validationFailed({ resource: 'Content', field: 'message', code: body.message === undefined ? 'missing_field' : 'invalid' });
    if (remove && typeof body.sha !== 'string') throw validationFailed({ resource: 'Content', field: 'sha', code: 'missing_field', message: '"sha" wasn\'t supplied.' });
    let content: Buffer | undefined;
    if (!remove) {
      if (typeof body.content !== 'string' || !/^[A-Za-z0-9+/=\s]*$/.test(body.content)) throw validationFailed({ resource: 'Content', field: 'content', code: body.content === undefined ? 'missing_field' : 'invalid' });
      content = Buffer.from(body.content, 'base64');
    }
    const result = await ctx.gitData.changeFile(repo, user, {
      path: contentPath(event),
      message: body.message,
      content,
      sha: body.sha,
      branch: body.branch,
      author: identityField('author', body.author),
      committer: identityField('committer', body.committer),
    });
    return { result, repo, branch: typeof body.branch === 'string' ? body.branch : repo.default_branch };
  };
  const answer = (repo: RepositoryRow, branch: string, result: Awaited<ReturnType<typeof ctx.gitData.changeFile>>) => ({
    content: result.file ? shapes.code.content(repo, result.file, branch, undefined, { kind: 'branch' }) : null,
    commit: shapes.code.gitCommit(repo, result.commit),
  });

  app.put(`${REPO}/contents/**:path`, async (event) => {
    const { result, repo, branch } = await change(event, false);
    // 201 for a new file, 200 for a replaced one, as GitHub answers.
    const shaped = answer(repo, branch, result);
    return result.replaced ? shaped : created(event, shaped);
  });

  app.delete(`${REPO}/contents/**:path`, async (event) => {
    const { result, repo, branch } = await change(event, true);
    return answer(repo, branch, result);
  });
}
