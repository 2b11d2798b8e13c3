import type { FileEntry } from '../git/tree-listing.js';
import type { Readable } from 'node:stream';
import type { RefChange } from '../git/refs.js';

export type { FileEntry, RefChange };

/** A commit of a pull request, oldest first. */
export interface CommitSummary {
  sha: string;
  message: string;
  author_name: string;
  author_email: string;
  authored_at: string;
  committer_name: string;
  committed_at: string;
}

/** One file a pull request changes, against the merge base, renames detected. */
export interface ChangedFile {
  filename: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied';
  additions: number;
  deletions: number;
  changes: number;
  previous_filename: string | null;
  /** The unified diff of the file; absent for binary files and when larger than the bound (then `patch_omitted`). */
  patch?: string;
  patch_omitted?: boolean;
}

export type MergeMethod = 'merge' | 'squash' | 'rebase' | 'fast-forward';

export interface MergeOptions {
  base: string;
  /** Where base must still point for the merge to land. */
  baseSha: string;
  headSha: string;
  method: MergeMethod;
  /** Message of the merge or squash commit. */
  message: string;
  committer: { name: string; email: string; date: string };
}

/** What pull requests need from git (implemented by `GitRepositories`). */
export interface PullGit {
  commitsBetween(owner: string, name: string, base: string, head: string): Promise<CommitSummary[]>;
  changedFiles(owner: string, name: string, base: string, head: string): Promise<ChangedFile[]>;
  diffStream(owner: string, name: string, base: string, head: string, kind: 'diff' | 'patch'): Promise<Readable>;
  /** Whether head merges into base without conflicts (cached by the pair). */
  mergeable(owner: string, name: string, base: string, head: string): Promise<boolean>;
  /** Makes the merge and moves base if it still points at `baseSha`: 405-kind errors when it cannot, 409 when base moved. */
  merge(owner: string, name: string, options: MergeOptions): Promise<{ sha: string }>;
  isAncestor(owner: string, name: string, ancestor: string, descendant: string): Promise<boolean>;
  /** Deletes the branch if it still points at `expectedSha`; false when it moved or is gone. */
  deleteBranch(owner: string, name: string, branch: string, expectedSha: string): Promise<boolean>;
}

/** What the services need from git storage (implemented by `GitRepositories` in lib/git). */
export interface GitBackend {
  create(owner: string, name: string): Promise<void>;
  remove(owner: string, name: string): Promise<void>;
  rename(owner: string, oldName: string, newName: string): Promise<void>;
  importFrom(owner: string, name: string, url: string): Promise<void>;
  countBranches(owner: string, name: string): Promise<number>;
  countCommits(owner: string, name: string, branch: string): Promise<number>;
  listFiles(owner: string, name: string, branch: string, path?: string): Promise<FileEntry[]>;
  refsOf(owner: string, name: string): Promise<Map<string, string>>;
  /** The branch HEAD points to (`main` for a new repository; the source's for an import). */
  headBranch(owner: string, name: string): Promise<string>;
  close(): Promise<void>;
}
