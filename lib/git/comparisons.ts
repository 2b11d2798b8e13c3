import { conflict, notAllowed } from '../errors.js';
import type { Readable } from 'node:stream';
import { isAncestor, mergingCommit } from './ancestry.js';
import { changedFiles, commitsBetween, diffStats, streamDiff, streamFormatPatch, type ChangedFile, type CommitSummary, type DiffStats } from './diff.js';
import { LruCache, remembered } from './lru.js';
import { merge, MergeRefusedError, mergeTree, type MergedTree, type MergeOptions, type MergeResult } from './merge.js';
import { commitTree, readCommit } from './objects.js';
import { newCommits, type PushedCommit } from './push-commits.js';
import { runGit } from './run-git.js';

const BRANCH_PREFIX = 'refs/heads/';

/** What comparisons need of the repositories they belong to (GitRepositories gives it). */
export interface ComparisonDeps {
  /** The folder of an existing repository (`not_found` otherwise). */
  gitDir: (owner: string, name: string) => Promise<string>;
  /** After a merge moved (or tried to move) a ref: the ref cache forgets the repository, upkeep is scheduled. */
  afterMerge: (gitDir: string) => void;
}

/**
 * What two commits of a repository give together: the commits and files between them, their diff, whether they
 * merge, and the merge itself. What a pair of commit ids gives never changes, so it is kept by the pair; a repository
 * that goes away is forgotten (`forget`), as the same path may come to hold another.
 */
export class GitComparisons {
  /**
   * What merging a pair gives, by the pair of commit ids: nothing (head is already in base), or merge-tree's tree
   * or conflicts. Mergeability reads it, and the merge itself then commits the tree it found.
   */
  readonly #mergePreviews = new LruCache<string, Promise<MergedTree | 'up-to-date'>>(1024);
  /** A pull request's own commits as the push event of its merge lists them, by the pair (see `#commitsOfHead`). */
  readonly #pullCommits = new LruCache<string, Promise<PushedCommit[]>>(256);
  /** Changed files of a pair of commits: what two commit ids give never changes (patches are bounded in size). */
  readonly #changedFiles = new LruCache<string, Promise<ChangedFile[]>>(64);
  readonly #diffStats = new LruCache<string, Promise<DiffStats>>(256);
  /** GitHub's test merge commits of pairs (see `testMergeCommit`), by the pair. */
  readonly #testMerges = new LruCache<string, Promise<string | undefined>>(256);

  readonly #deps: ComparisonDeps;

  constructor(deps: ComparisonDeps) {
    this.#deps = deps;
  }

  commitsBetween(owner: string, name: string, base: string, head: string): Promise<CommitSummary[]> {
    return this.#deps.gitDir(owner, name).then((gitDir) => commitsBetween(gitDir, base, head));
  }

  /** What head changes against their merge base, cached by the pair (`ignoreWhitespace`: white space changes left out). */
  async changedFiles(owner: string, name: string, base: string, head: string, ignoreWhitespace = false): Promise<ChangedFile[]> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return remembered(this.#changedFiles, `${gitDir}\0${base}\0${head}\0${ignoreWhitespace}`, () => changedFiles(gitDir, base, head, { ignoreWhitespace }));
  }

  /** One file of `changedFiles` with every line as context (a page's "show all lines"), cached as the others. */
  async changedFileWithAllLines(owner: string, name: string, base: string, head: string, file: Pick<ChangedFile, 'filename' | 'previous_filename'>, ignoreWhitespace = false): Promise<ChangedFile | undefined> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const paths = [file.filename, ...(file.previous_filename ? [file.previous_filename] : [])];
    const key = `${gitDir}\0${base}\0${head}\0${ignoreWhitespace}\0${paths.join('\0')}`;
    const files = await remembered(this.#changedFiles, key, () => changedFiles(gitDir, base, head, { ignoreWhitespace, allLines: true, paths }));
    return files.find((changed) => changed.filename === file.filename);
  }

  /** What head changes against base, counted (commits, files, lines); cached by the pair of commit ids. */
  async diffStats(owner: string, name: string, base: string, head: string): Promise<DiffStats> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return remembered(this.#diffStats, `${gitDir}\0${base}\0${head}`, () => diffStats(gitDir, base, head));
  }

  async diffStream(owner: string, name: string, base: string, head: string, kind: 'diff' | 'patch'): Promise<Readable> {
    const gitDir = await this.#deps.gitDir(owner, name);
    return kind === 'diff' ? streamDiff(gitDir, base, head) : streamFormatPatch(gitDir, base, head);
  }

  /** Whether head merges into base cleanly; cached by the pair of commit ids, which is all it depends on. */
  async mergeable(owner: string, name: string, base: string, head: string): Promise<boolean> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const preview = await this.#mergePreview(gitDir, base, head);
    return preview !== 'up-to-date' && 'tree' in preview;
  }

  /**
   * GitHub's test merge of an open pull request (its `merge_commit_sha`): the pair's merged tree as a commit with
   * both as parents, `Merge <head> into <base>`, by head's committer at head's date, so the same pair always makes
   * the same commit (made again, to the same id, should upkeep have pruned it); undefined when they do not merge, or
   * when git cannot make it (a committer without a name, which commit-tree refuses): it is a courtesy, never an error.
   */
  async testMergeCommit(owner: string, name: string, base: string, head: string): Promise<string | undefined> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const make = async (fresh: boolean) => {
      const preview = await this.#mergePreview(gitDir, base, head, fresh);
      const tip = await readCommit(gitDir, head);
      if (preview === 'up-to-date' || !('tree' in preview) || !tip) return undefined;
      const { name: who, email, date } = tip.committer;
      return await commitTree(gitDir, { tree: preview.tree, parents: [base, head], message: `Merge ${head} into ${base}\n`, author: { name: who, email, date } });
    };
    // A kept preview's tree may have been pruned since: made once more from a fresh one.
    return remembered(this.#testMerges, `${gitDir}\0${base}\0${head}`, () => make(false).catch(() => make(true)).catch(() => undefined));
  }

  #mergePreview(gitDir: string, base: string, head: string, fresh = false): Promise<MergedTree | 'up-to-date'> {
    const key = `${gitDir}\0${base}\0${head}`;
    if (fresh) this.#mergePreviews.delete(key);
    return remembered(this.#mergePreviews, key, () => isAncestor(gitDir, head, base).then<MergedTree | 'up-to-date'>((merged) => (merged ? 'up-to-date' : mergeTree(gitDir, base, head))));
  }

  /** Works out ahead of a merge of the pair what it will need: mergeability (with the merged tree) and the commits its push event lists. */
  async prepareMerge(owner: string, name: string, base: string, head: string): Promise<void> {
    const gitDir = await this.#deps.gitDir(owner, name);
    await Promise.all([this.#mergePreview(gitDir, base, head), this.#commitsOfHead(gitDir, base, head)]);
  }

  /** Merges as `merge` in merge.ts does; refusals become 405 (cannot merge) or 409 (base moved meanwhile). */
  async merge(owner: string, name: string, options: MergeOptions): Promise<MergeResult> {
    const gitDir = await this.#deps.gitDir(owner, name);
    const { baseSha, headSha } = options;
    try {
      return await merge(gitDir, options, {
        headCommits: () => this.#commitsOfHead(gitDir, baseSha, headSha),
        // Head already in base (not yet marked merged): git's tree of the pair, which is base's own.
        mergedTree: async (fresh) => {
          const preview = await this.#mergePreview(gitDir, baseSha, headSha, fresh);
          return preview === 'up-to-date' ? mergeTree(gitDir, baseSha, headSha) : preview;
        },
      });
    } catch (error) {
      if (error instanceof MergeRefusedError) throw error.reason === 'base_moved' ? conflict(error.message) : notAllowed(error.message);
      throw error;
    } finally {
      this.#deps.afterMerge(gitDir);
    }
  }

  /** The commits of head that base lacks (newest MAX_PUSH_COMMITS, oldest first), cached by the pair of commit ids. */
  #commitsOfHead(gitDir: string, base: string, head: string): Promise<PushedCommit[]> {
    return remembered(this.#pullCommits, `${gitDir}\0${base}\0${head}`, () => newCommits(gitDir, head, [base]));
  }

  async branchesMergedInto(owner: string, name: string, commit: string): Promise<Set<string>> {
    if (!/^[0-9a-f]{40,64}$/.test(commit)) return new Set();
    const gitDir = await this.#deps.gitDir(owner, name);
    const { stdout } = await runGit(['for-each-ref', `--merged=${commit}`, '--format=%(refname)', 'refs/heads/'], { gitDir });
    return new Set(stdout.toString('utf8').split('\n').filter(Boolean).map((ref) => ref.slice(BRANCH_PREFIX.length)));
  }

  async isAncestor(owner: string, name: string, ancestor: string, descendant: string): Promise<boolean> {
    return isAncestor(await this.#deps.gitDir(owner, name), ancestor, descendant);
  }

  /** The commit of a branch at `tip` that merged `head` into it (see `mergingCommit`). */
  async mergingCommit(owner: string, name: string, head: string, tip: string): Promise<string> {
    return mergingCommit(await this.#deps.gitDir(owner, name), head, tip);
  }

  /** Forgets what is kept of the repository at `path` (deleted, or renamed away). */
  forget(path: string): void {
    const prefix = `${path}\0`;
    const mine = (key: string) => key.startsWith(prefix);
    for (const cache of [this.#pullCommits, this.#changedFiles, this.#diffStats, this.#mergePreviews, this.#testMerges] as Array<LruCache<string, unknown>>) cache.deleteWhere(mine);
  }

  /**
   * Forgets every merge preview and test merge (the repositories were replaced on disk: the trees merge-tree wrote,
   * and the commits made of them, may be gone).
   */
  clear(): void {
    this.#mergePreviews.clear();
    this.#testMerges.clear();
  }
}
