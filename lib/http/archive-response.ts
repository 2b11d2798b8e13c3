import { HTTPResponse } from 'h3';
import type { AppContext } from '../context.js';
import { unavailable } from '../errors.js';
import type { ArchiveFormat } from '../git/archive.js';
import type { RepositoryRow } from '../store/queries/repositories.js';

const ARCHIVE_RETRY_SECONDS = 5;

/**
 * A source archive of `ref` (branch, tag or commit) as a download, streamed from `git archive` (paths under
 * `<owner>-<repo>-<short id>/`, as GitHub's). Each costs a git process: it takes a place among the host's git
 * transfers (503 with Retry-After beyond them), held until the answer is sent.
 */
export async function archiveResponse(ctx: AppContext, repo: RepositoryRow, ref: string, format: ArchiveFormat, client: string): Promise<HTTPResponse> {
  const place = ctx.gitTransfers.enter(client);
  if (typeof place === 'string') throw unavailable(place === 'busy' ? 'Too many archives are being made; try again shortly' : 'Too many archives for your address are being made; try again shortly', ARCHIVE_RETRY_SECONDS);
  try {
    const { commit, body } = await ctx.gitData.archive(repo, ref, format);
    body.once('close', place);
    const name = `${repo.owner_name}-${repo.name}-${commit.slice(0, 7)}.${format}`;
    return new HTTPResponse(body as unknown as BodyInit, {
      headers: { 'content-type': format === 'zip' ? 'application/zip' : 'application/x-gzip', 'content-disposition': `attachment; filename=${name}`, 'x-content-type-options': 'nosniff' },
    });
  } catch (error) {
    place();
    throw error;
  }
}
