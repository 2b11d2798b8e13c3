/**
 * GitHub's REST objects as repohost fills them: the fields consumers of GitHub's webhooks and API read. Fields GitHub
 * has and repohost cannot fill honestly (node ids, app installations) are left out rather than faked.
 */

export interface GitHubUser {
  login: string;
  id: number;
  avatar_url: string;
  html_url: string;
  url: string;
  type: 'User';
  site_admin: boolean;
  name?: string;
}

export interface GitHubRepository {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  visibility: 'public' | 'private';
  owner: GitHubUser;
  html_url: string;
  description: string | null;
  fork: false;
  url: string;
  clone_url: string;
  default_branch: string;
  created_at: string;
  updated_at: string;
  stargazers_count: number;
  watchers_count: number;
  open_issues_count: number;
  /** What the caller may do: in API answers, not in webhook payloads. */
  permissions?: { admin: boolean; push: boolean; pull: boolean };
}

export interface GitHubLabel {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: false;
}

export interface GitHubIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  /** Issues only: why it was closed or reopened. */
  state_reason?: string | null;
  user: GitHubUser;
  labels: GitHubLabel[];
  comments: number;
  html_url: string;
  url: string;
  repository_url: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Present when the issue is a pull request (GitHub's issue_comment on a pull request carries it). */
  pull_request?: { url: string; html_url: string; diff_url: string; patch_url: string; merged_at: string | null };
}

export interface GitHubBranchRef {
  label: string;
  ref: string;
  sha: string;
  user: GitHubUser;
  repo: GitHubRepository;
}

export interface GitHubPullRequest {
  id: number;
  number: number;
  state: 'open' | 'closed';
  title: string;
  body: string | null;
  user: GitHubUser;
  head: GitHubBranchRef;
  base: GitHubBranchRef;
  merged: boolean;
  merged_at: string | null;
  merged_by: GitHubUser | null;
  merge_commit_sha: string | null;
  draft: false;
  comments: number;
  html_url: string;
  url: string;
  diff_url: string;
  patch_url: string;
  issue_url: string;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
}

export interface GitHubComment {
  id: number;
  body: string;
  user: GitHubUser;
  html_url: string;
  url: string;
  issue_url: string;
  created_at: string;
  updated_at: string;
}

/** One commit of a push payload. */
export interface GitHubPushCommit {
  id: string;
  tree_id: string;
  distinct: true;
  message: string;
  timestamp: string;
  url: string;
  author: { name: string; email: string; username?: string };
  committer: { name: string; email: string; username?: string };
  added: string[];
  removed: string[];
  modified: string[];
}

/** A person of a git object (author, committer, tagger). */
export interface GitHubGitActor {
  name: string;
  email: string;
  date: string;
}

export interface GitHubParentRef {
  sha: string;
  url: string;
  html_url: string;
}

/** A commit as the git data API shows it (`/git/commits/:sha`). */
export interface GitHubGitCommit {
  sha: string;
  url: string;
  html_url: string;
  author: GitHubGitActor;
  committer: GitHubGitActor;
  message: string;
  tree: { sha: string; url: string };
  parents: GitHubParentRef[];
}

/** A file a commit, comparison or pull request changes. */
export interface GitHubFile {
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed' | 'copied';
  additions: number;
  deletions: number;
  changes: number;
  patch?: string;
  previous_filename?: string;
}

/** A commit as the commits API shows it (`/commits`, `/commits/:ref`, compare, pull request commits). */
export interface GitHubCommit {
  sha: string;
  url: string;
  html_url: string;
  commit: { url: string; author: GitHubGitActor; committer: GitHubGitActor; message: string; tree: { sha: string; url: string }; comment_count: number };
  /** The account behind the commit's address, when it is one of the host's no-reply addresses. */
  author: GitHubUser | null;
  committer: GitHubUser | null;
  parents: GitHubParentRef[];
  stats?: { additions: number; deletions: number; total: number };
  files?: GitHubFile[];
}

/** A file or folder entry of the contents API. */
export interface GitHubContent {
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  name: string;
  path: string;
  sha: string;
  size: number;
  url: string;
  html_url: string;
  git_url: string;
  download_url: string | null;
  content?: string;
  encoding?: 'base64' | 'none';
  _links: { self: string; git: string; html: string };
}
