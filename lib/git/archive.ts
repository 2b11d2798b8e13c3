import type { Readable } from 'node:stream';
import { isObjectId } from './objects.js';
import { gitOutput } from './run-git.js';

/** Longest an archive may take to make and send (a client reading too slowly is cut off then). */
const ARCHIVE_TIMEOUT_MS = 10 * 60 * 1000;

/** The archive formats GitHub serves: its tarball and zipball. */
export type ArchiveFormat = 'tar.gz' | 'zip';

/**
 * A commit's tree as an archive, streamed from `git archive`, every path under `prefix/` (GitHub's
 * `<owner>-<repo>-<short id>/`).
 */
export function streamArchive(gitDir: string, commit: string, format: ArchiveFormat, prefix: string): Readable {
  if (!isObjectId(commit)) throw new Error(`not a commit id: ${commit}`);
  return gitOutput(['archive', `--format=${format}`, `--prefix=${prefix}/`, commit], { gitDir, timeoutMs: ARCHIVE_TIMEOUT_MS });
}
