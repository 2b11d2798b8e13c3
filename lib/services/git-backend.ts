import type { FileEntry } from '../git/tree-listing.js';
import type { Readable } from 'node:stream';
import type { ChangedFile, CommitSummary, DiffStats } from '../git/diff.js';
import type { MergeMethod, MergeOptions, MergeResult } from '../git/merge.js';
import type { RefChange } from '../git/refs.js';
import type { CommitObject } from '../git/objects.js';
import type { PushedRef } from '../git/push-commits.js';

export type { ChangedFile, CommitSummary, DiffStats, FileEntry, MergeMethod, MergeOptions, MergeResult, PushedRef, RefChange };

/** What pull requests need of comparisons and merges of commit pairs (implemented by `GitComparisons`). */
export interface PullComparisons {
  commitsBetween(owner: string, name: string, base: string, head: string): Promise<CommitSummary[]>;
  changedFiles(owner: string, name: string, base: string, head: string, ignoreWhitespace?: boolean): Promise<ChangedFile[]>;
  changedFileWithAllLines(owner: string, name: string, base: string, head: string, file: Pick<ChangedFile, 'filename' | 'previous_filename'>, ignoreWhitespace?: boolean): Promise<ChangedFile | undefined>;
  /** The counts of what head changes against base (commits, files, lines), cached by the pair. */
  diffStats(owner: string, name: string, base: string, head: string): Promise<DiffStats>;
  diffStream(owner: string, name: string, base: string, head: string, kind: 'diff' | 'patch'): Promise<Readable>;
  /** Whether head merges into base without conflicts (cached by the pair). */
  mergeable(owner: string, name: string, base: string, head: string): Promise<boolean>;
  /** GitHub's test merge commit of the pair (`Merge <head> into <base>`, the same for the same pair), or undefined when they do not merge. */
  testMergeCommit(owner: string, name: string, base: string, head: string): Promise<string | undefined>;
  /** Computes ahead what a merge of the pair needs (mergeability, the commits of its push event); both are cached. */
  prepareMerge(owner: string, name: string, base: string, head: string): Promise<void>;
  /**
   * Makes the merge and moves base if it still points at `baseSha`: 405-kind errors when it cannot, 409 when base
   * moved. Answers the new tip and the commits the base gained, for the push event.
   */
  merge(owner: string, name: string, options: MergeOptions): Promise<MergeResult>;
  isAncestor(owner: string, name: string, ancestor: string, descendant: string): Promise<boolean>;
  /** The commit of a branch at `tip` that merged `head` into it: a merge commit, or `head` when fast-forwarded. */
  mergingCommit(owner: string, name: string, head: string, tip: string): Promise<string>;
  /** The branches whose tips are reachable from `commit` (one git run for all of them). */
  branchesMergedInto(owner: string, name: string, commit: string): Promise<Set<string>>;
}

/** What pull requests need from git (implemented by `GitRepositories`). */
export interface PullGit {
  compare: PullComparisons;
  /** How many commits `head` has that `base` has not (`git rev-list --count base..head`). */
  countCommitsBetween(owner: string, name: string, base: string, head: string): Promise<number>;
  /** Deletes the branch if it still points at `expectedSha`; false when it moved or is gone. */
  deleteBranch(owner: string, name: string, branch: string, expectedSha: string): Promise<boolean>;
  /** What each ref change brought (commits, tip, forced), for push events. */
  pushedRefs(owner: string, name: string, changes: readonly RefChange[], refsAfter?: ReadonlyMap<string, string>): Promise<PushedRef[]>;
}

/** What the services need from git storage (implemented by `GitRepositories` in lib/git). */
export interface GitBackend {
  exists(owner: string, name: string): Promise<boolean>;
  create(owner: string, name: string): Promise<void>;
  remove(owner: string, name: string): Promise<void>;
  /** Forgets the git objects read for a repository whose record is deleted (its id may be given out again). */
  forgetObjects(repo: { id: number; created_at: string }): void;
  rename(owner: string, oldName: string, newName: string): Promise<void>;
  importFrom(owner: string, name: string, url: string): Promise<void>;
  countBranches(owner: string, name: string): Promise<number>;
  countCommits(owner: string, name: string, branch: string): Promise<number>;
  listFiles(owner: string, name: string, branch: string, path?: string): Promise<FileEntry[]>;
  refsOf(owner: string, name: string): Promise<Map<string, string>>;
  /** The branch HEAD points to (`main` for a new repository; the source's for an import). */
  headBranch(owner: string, name: string): Promise<string>;
  /** Points HEAD, the default branch, at `branch`. */
  setHeadBranch(owner: string, name: string, branch: string): Promise<void>;
  pushedRefs: PullGit['pushedRefs'];
  close(): Promise<void>;
}

/** What commit statuses need from git (implemented by `GitRepositories`). */
export interface StatusGit {
  commitExists(owner: string, name: string, sha: string): Promise<boolean>;
  /** The commit a branch, tag or commit id names, or undefined. */
  resolveCommit(owner: string, name: string, ref: string): Promise<string | undefined>;
  /** The commit object of a full commit id, or undefined. */
  readCommit(owner: string, name: string, sha: string): Promise<CommitObject | undefined>;
}
