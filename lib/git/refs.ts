import { LruCache, remembered } from './lru.js';
import { runGit } from './run-git.js';

/** The id git uses for "no object" in ref updates (SHA-1 width; SHA-256 repositories use 64 zeros). */
export const ZERO_ID = '0'.repeat(40);

/** A ref that a push created (before = zero id), moved, or deleted (after = zero id). */
export interface RefChange {
  ref: string;
  before: string;
  after: string;
}

/** git's `old new ref` lines (what its receive hooks read on stdin), as ref changes; anything else is skipped. */
export function parseRefUpdates(text: string): RefChange[] {
  const changes: RefChange[] = [];
  for (const line of text.split('\n')) {
    const [before, after, ref] = line.split(' ');
    if (before && after && ref) changes.push({ ref, before, after });
  }
  return changes;
}

/** Every ref of the repository with the object it points to. */
export async function readRefs(gitDir: string): Promise<Map<string, string>> {
  const { stdout } = await runGit(['for-each-ref', '--format=%(objectname) %(refname)'], { gitDir });
  const refs = new Map<string, string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}

/** The refs that differ between two snapshots, sorted by name. */
export function diffRefs(before: Map<string, string>, after: Map<string, string>): RefChange[] {
  const zero = (sample: string | undefined) => '0'.repeat(sample?.length ?? ZERO_ID.length);
  const changes: RefChange[] = [];
  for (const [ref, old] of before) {
    const now = after.get(ref);
    if (now !== old) changes.push({ ref, before: old, after: now ?? zero(old) });
  }
  for (const [ref, now] of after) if (!before.has(ref)) changes.push({ ref, before: zero(now), after: now });
  return changes.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
}

const MAX_KNOWN_COMMITS = 4096;

/**
 * Every repository's refs, read once and kept until this process changes them: all ref changes pass through it
 * (pushes, imports, merges, seeds, renames), and each calls `forget`. Counts and listings then resolve branches
 * without running git when nothing changed. Commit ids found to exist are kept the same way.
 */
export class RefCache {
  readonly #entries: LruCache<string, Promise<Map<string, string>>>;
  /** Commit ids seen to exist, per repository, until it is forgotten (bounded per repository). */
  readonly #commits: LruCache<string, Set<string>>;
  /** The reads that succeeded: a repository whose refs were read and not forgotten since is on disk. */
  readonly #read = new WeakSet<Promise<Map<string, string>>>();

  /** `announce`: tells other instances of the database that a repository's refs changed (see `forget`). */
  constructor(
    repositories = 1024,
    private readonly announce: (gitDir: string) => void = () => undefined,
  ) {
    this.#entries = new LruCache(repositories);
    this.#commits = new LruCache(repositories);
  }

  /** True when `sha` was seen to be a commit of the repository since it was last forgotten. */
  knowsCommit(gitDir: string, sha: string): boolean {
    return this.#commits.get(gitDir)?.has(sha) ?? false;
  }

  /** Notes that `sha` is a commit of the repository (statuses ask again and again about the same few). */
  rememberCommit(gitDir: string, sha: string): void {
    let known = this.#commits.get(gitDir);
    if (!known || known.size >= MAX_KNOWN_COMMITS) this.#commits.set(gitDir, (known = new Set()));
    known.add(sha);
  }

  /** The refs of the repository at `gitDir` (shared: do not change the map). */
  refs(gitDir: string): Promise<ReadonlyMap<string, string>> {
    return remembered(this.#entries, gitDir, () => {
      const read = readRefs(gitDir);
      read.then(() => this.#read.add(read), () => undefined);
      return read;
    });
  }

  /**
   * True when the refs of `gitDir` were read and not forgotten since: the folder is there, as every move and removal
   * forgets it (so a warm read needs no look at the disk to know the repository exists).
   */
  knowsRefs(gitDir: string): boolean {
    const entry = this.#entries.get(gitDir);
    return entry !== undefined && this.#read.has(entry);
  }

  /** Drops what is known of every repository (the repositories were replaced on disk, see host.restore). */
  clear(): void {
    this.#entries.clear();
    this.#commits.clear();
  }

  /** Drops what is known of the repository: its refs changed, or it moved or went away; other instances are told. */
  forget(gitDir: string): void {
    this.forgetHere(gitDir);
    this.announce(gitDir);
  }

  /** Drops what is known of the repository in this process only (another instance announced the change). */
  forgetHere(gitDir: string): void {
    this.#entries.delete(gitDir);
    this.#commits.delete(gitDir);
  }
}
