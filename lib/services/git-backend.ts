/** One entry of a folder listing on a branch; every value is a string, as the API returns it. */
export interface FileEntry {
  name: string;
  last_msg: string;
  last_hash: string;
  last_time: string;
  size: string;
}

/** A change to one ref reported after a push; `before`/`after` are all zeros for creations/deletions. */
export interface RefChange {
  ref: string;
  before: string;
  after: string;
}

/** What the services need from git storage (implemented by `GitRepositories` in lib/git). */
export interface GitBackend {
  create(owner: string, name: string): Promise<void>;
  remove(owner: string, name: string): Promise<void>;
  importFrom(owner: string, name: string, url: string): Promise<void>;
  countBranches(owner: string, name: string): Promise<number>;
  countCommits(owner: string, name: string, branch: string): Promise<number>;
  listFiles(owner: string, name: string, branch: string, path?: string): Promise<FileEntry[]>;
  refsOf(owner: string, name: string): Promise<Map<string, string>>;
  close(): Promise<void>;
}
