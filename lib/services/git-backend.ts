import type { FileEntry } from '../git/tree-listing.js';
import type { RefChange } from '../git/refs.js';

export type { FileEntry, RefChange };

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
