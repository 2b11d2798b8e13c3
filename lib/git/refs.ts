import { LruCache } from './lru.js';
import { runGit } from './run-git.js';

/** The id git uses for "no object" in ref updates (SHA-1 width; SHA-256 repositories use 64 zeros). */
export const ZERO_ID = '0'.repeat(40);

/** A ref that a push created (before = zero id), moved, or deleted (after = zero id). */
export interface RefChange {
  ref: string;
  before: string;
  after: string;
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

/**
 * Every repository's refs, read once and kept until this process changes them: all ref changes pass through it
 * (pushes, imports, merges, seeds, renames), and each calls `forget`. Counts and listings then resolve branches
 * without running git when nothing changed.
 */
export class RefCache {
  readonly #entries: LruCache<string, Promise<Map<string, string>>>;

  constructor(repositories = 1024) {
    this.#entries = new LruCache(repositories);
  }

  /** The refs of the repository at `gitDir` (shared: do not change the map). */
  refs(gitDir: string): Promise<ReadonlyMap<string, string>> {
    let refs = this.#entries.get(gitDir);
    if (!refs) {
      refs = readRefs(gitDir);
      this.#entries.set(gitDir, refs);
      refs.catch(() => this.#entries.delete(gitDir));
    }
    return refs;
  }

  /** Drops what is known of every repository (the repositories were replaced on disk, see host.restore). */
  clear(): void {
    this.#entries.clear();
  }

  /** Drops what is known of the repository: its refs changed, or it moved or went away. */
  forget(gitDir: string): void {
    this.#entries.delete(gitDir);
  }
}
