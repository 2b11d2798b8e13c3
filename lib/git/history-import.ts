// importCommits: a series of commits written in one `git fast-import` run (fixtures, seeds), with the very ids
// buildTree and commitTree would give them.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isGitError, runGit } from './run-git.js';
import { ownValue } from '../own-value.js';
import { type TreeChange, splitTreePath } from './tree-builder.js';
import { type GitIdentity, GitObjectError, gitDate, requireId, MODE_TYPES, normaliseMode, readTree } from './objects.js';

/** One commit of `importCommits`. */
export interface HistoryCommit {
  /** The parent: the index of an earlier commit of the same call, a commit id of the repository, or none (a root). */
  parent?: number | string;
  message: string;
  author: GitIdentity;
  committer?: GitIdentity;
  /** Changes to the parent's tree, as for buildTree. */
  changes: ReadonlyMap<string, TreeChange>;
}

/** A path as fast-import reads it: C-style quoted, so any name git allows survives. */
function quotedPath(path: string): string {
  const escaped = [...Buffer.from(path, 'utf8')].map((byte) => {
    if (byte === 0x22) return '\\"';
    if (byte === 0x5c) return '\\\\';
    if (byte < 0x20 || byte >= 0x7f) return `\\${byte.toString(8).padStart(3, '0')}`;
    return String.fromCharCode(byte);
  });
  return `"${escaped.join('')}"`;
}

/** `data` of a fast-import stream: the exact bytes. */
function data(content: string | Uint8Array): Buffer[] {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
  return [Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n')];
}

/** The files of a tree (under `prefix`) whose mode is not 100644: executables, links, submodules. */
async function specialModes(gitDir: string, tree: string, prefix: string): Promise<Map<string, string>> {
  const entries = (await readTree(gitDir, tree, { recursive: true })) ?? [];
  return new Map(entries.filter((entry) => entry.type !== 'tree' && entry.mode !== '100644').map((entry) => [`${prefix}${entry.path}`, entry.mode]));
}

/** Where `importCommits` builds its commits; deleted once their ids are known. */
const IMPORT_REF = 'refs/repohost/import';

/**
 * Writes a whole series of commits in one `git fast-import` run (one pack, no child per object) and returns their
 * ids in order; no branch moves. The commits are the very objects `buildTree` and `commitTree` would make from the
 * same input (same trees, identities, dates and message bytes), so the ids are the same.
 */
export async function importCommits(gitDir: string, commits: readonly HistoryCommit[]): Promise<string[]> {
  const stream: Buffer[] = [];
  const line = (text: string) => stream.push(Buffer.from(`${text}\n`));
  const person = (identity: GitIdentity) => `${identity.name} <${identity.email}> ${gitDate(identity.date)}`;
  // Files whose mode is not 100644, after each commit: new content keeps a file's mode, as buildTree does.
  const modesAfter: Map<string, string>[] = [];
  for (const [index, commit] of commits.entries()) {
    if (typeof commit.parent === 'number' && !(commit.parent >= 0 && commit.parent < index)) throw new GitObjectError(`commit ${index}: its parent must come before it`);
    if (typeof commit.parent === 'string') requireId(commit.parent, 'parent');
    const modes =
      commit.parent === undefined ? new Map<string, string>() : typeof commit.parent === 'number' ? new Map(modesAfter[commit.parent]) : await specialModes(gitDir, commit.parent, '');
    // A root commit starts from nothing: the import ref is reset first.
    if (commit.parent === undefined) line(`reset ${IMPORT_REF}`);
    line(`commit ${IMPORT_REF}`);
    line(`mark :${index + 1}`);
    line(`author ${person(commit.author)}`);
    line(`committer ${person(commit.committer ?? commit.author)}`);
    stream.push(...data(commit.message));
    if (commit.parent !== undefined) line(`from ${typeof commit.parent === 'number' ? `:${commit.parent + 1}` : commit.parent}`);
    for (const [path, change] of commit.changes) {
      splitTreePath(path);
      const before = modes.get(path);
      // Whatever was at or below the path goes; what comes is noted again.
      for (const known of [...modes.keys()]) if (known === path || known.startsWith(`${path}/`)) modes.delete(known);
      if (change === null) {
        line(`D ${quotedPath(path)}`);
        continue;
      }
      if ('id' in change) {
        requireId(change.id, quotedPath(path));
        if (change.mode === undefined) throw new GitObjectError(`${path}: an entry given by id needs its mode here`);
        const mode = normaliseMode(change.mode);
        line(`M ${mode} ${change.id} ${quotedPath(path)}`);
        if (mode === '040000') for (const [below, special] of await specialModes(gitDir, change.id, `${path}/`)) modes.set(below, special);
        else if (mode !== '100644') modes.set(path, mode);
        continue;
      }
      const mode = normaliseMode(change.mode ?? before ?? '100644');
      if (ownValue(MODE_TYPES, mode) !== 'blob') throw new GitObjectError(`${path}: content needs a file mode, not ${mode}`);
      line(`M ${mode} inline ${quotedPath(path)}`);
      stream.push(...data(change.content));
      if (mode !== '100644') modes.set(path, mode);
    }
    modesAfter.push(modes);
    line('');
  }
  line('done');
  const scratch = await mkdtemp(join(tmpdir(), 'repohost-import-'));
  try {
    const marks = join(scratch, 'marks');
    try {
      await runGit(['fast-import', '--quiet', '--done', '--force', `--export-marks=${marks}`], { gitDir, input: Buffer.concat(stream) });
    } catch (error) {
      if (isGitError(error)) throw new GitObjectError(`cannot write the commits: ${error.stderr.trim().split('\n').pop() ?? error.message}`);
      throw error;
    }
    const ids = new Map<number, string>();
    for (const entry of (await readFile(marks, 'utf8')).split('\n')) {
      const match = /^:(\d+) ([0-9a-f]+)$/.exec(entry);
      if (match) ids.set(Number(match[1]), match[2]!);
    }
    return commits.map((_, index) => ids.get(index + 1)!);
  } finally {
    await runGit(['update-ref', '-d', IMPORT_REF], { gitDir }).catch(() => undefined);
    await rm(scratch, { recursive: true, force: true });
  }
}
