/**
 * GitHub's REST objects as repohost fills them: the fields consumers of GitHub's webhooks and API read, with the URL
 * fields clients follow pointing at this host. Node ids are opaque, stable ids in GitHub's legacy form (there is no
 * GraphQL API to use them with). Fields repohost cannot fill honestly (app installations) are left out.
 */

export interface GitHubUser {
  login: string;
  id: number;
  node_id: string;
  gravatar_id: '';
  followers_url: string;
  following_url: string;
  gists_url: string;
  starred_url: string;
  subscriptions_url: string;
  organizations_url: string;
  repos_url: string;
  events_url: string;
  received_events_url: string;
  avatar_url: string;
  html_url: string;
  url: string;
  type: 'User' | 'Bot';
  site_admin: boolean;
  name?: string;
}

/** An account as `GET /users/{username}` shows it (GitHub's public user), and `GET /user` (with the private counts). */
export interface GitHubFullUser extends Omit<GitHubUser, 'name'> {
  name: string | null;
  company: null;
  blog: '';
  location: null;
  /** The public address: none (repohost keeps addresses private; commits carry the noreply one). */
  email: null;
  hireable: null;
  bio: null;
  twitter_username: null;
  public_repos: number;
  public_gists: 0;
  followers: 0;
  following: 0;
  created_at: string;
  updated_at: string;
  private_gists?: 0;
  total_private_repos?: number;
  owned_private_repos?: number;
  disk_usage?: 0;
  collaborators?: 0;
  two_factor_authentication?: false;
}

export interface GitHubRepository {
  id: number;
  node_id: string;
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
  git_url: string;
  /** The SSH clone URL; empty when the host does not serve SSH. */
  ssh_url: string;
  svn_url: string;
  /** No mirrors, homepages, language detection or licence detection: GitHub's empty values. */
  mirror_url: null;
  homepage: null;
  language: null;
  license: null;
  archive_url: string;
  assignees_url: string;
  blobs_url: string;
  branches_url: string;
  collaborators_url: string;
  comments_url: string;
  commits_url: string;
  compare_url: string;
  contents_url: string;
  contributors_url: string;
  deployments_url: string;
  downloads_url: string;
  events_url: string;
  forks_url: string;
  git_commits_url: string;
  git_refs_url: string;
  git_tags_url: string;
  hooks_url: string;
  issue_comment_url: string;
  issue_events_url: string;
  issues_url: string;
  keys_url: string;
  labels_url: string;
  languages_url: string;
  merges_url: string;
  milestones_url: string;
  notifications_url: string;
  pulls_url: string;
  releases_url: string;
  stargazers_url: string;
  statuses_url: string;
  subscribers_url: string;
  subscription_url: string;
  tags_url: string;
  teams_url: string;
  trees_url: string;
  default_branch: string;
  created_at: string;
  updated_at: string;
  /** repohost does not record when a repository was last pushed to (null, as GitHub shows a repository never pushed). */
  pushed_at: string;
  /** repohost does not measure repositories (GitHub's size in KiB). */
  size: 0;
  stargazers_count: number;
  /** GitHub's: the stars again (who watches is `subscribers_count`, on the repository's own answer). */
  watchers_count: number;
  /** The same as `watchers_count`, as on GitHub. */
  watchers: number;
  open_issues_count: number;
  /** The same as `open_issues_count`, as on GitHub. */
  open_issues: number;
  /** repohost has no forks. */
  forks: 0;
  forks_count: 0;
  topics: string[];
  /** Issues are always on; projects, wikis, pages, downloads and discussions do not exist here. */
  has_issues: true;
  has_projects: false;
  has_wiki: false;
  has_pages: false;
  has_downloads: false;
  has_discussions: false;
  archived: false;
  disabled: false;
  is_template: false;
  /** What the caller may do: in API answers, not in webhook payloads. */
  permissions?: { admin: boolean; push: boolean; pull: boolean };
}

/** Reactions of an issue or comment: repohost keeps none, so every count is 0. */
/** GitHub's reaction rollup: how many reactions of each kind an object has. */
export interface GitHubReactions {
  url: string;
  total_count: number;
  '+1': number;
  '-1': number;
  laugh: number;
  hooray: number;
  confused: number;
  heart: number;
  rocket: number;
  eyes: number;
}

/** GitHub's commit comment object. */
export interface GitHubCommitComment {
  url: string;
  html_url: string;
  id: number;
  node_id: string;
  body: string;
  path: string | null;
  position: number | null;
  line: number | null;
  commit_id: string;
  user: GitHubUser | null;
  created_at: string;
  updated_at: string;
  author_association: GitHubAuthorAssociation;
  reactions: GitHubReactions;
}

/** GitHub's deployment object (`GET /repos/{owner}/{repo}/deployments/{id}`). */
export interface GitHubDeployment {
  url: string;
  id: number;
  node_id: string;
  sha: string;
  ref: string;
  task: string;
  payload: Record<string, unknown> | string;
  original_environment: string;
  environment: string;
  description: string | null;
  creator: GitHubUser | null;
  created_at: string;
  updated_at: string;
  statuses_url: string;
  repository_url: string;
  transient_environment: boolean;
  production_environment: boolean;
  performed_via_github_app: null;
}

/** GitHub's deployment status object. */
export interface GitHubDeploymentStatus {
  url: string;
  id: number;
  node_id: string;
  state: string;
  creator: GitHubUser | null;
  description: string;
  environment: string;
  target_url: string;
  created_at: string;
  updated_at: string;
  deployment_url: string;
  repository_url: string;
  environment_url: string;
  log_url: string;
  performed_via_github_app: null;
}

/** GitHub's reaction object. */
export interface GitHubReaction {
  id: number;
  node_id: string;
  user: GitHubUser | null;
  content: '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';
  created_at: string;
}

/** How the author of an issue, pull request or comment relates to the repository. */
export type GitHubAuthorAssociation = 'OWNER' | 'COLLABORATOR' | 'NONE';

export interface GitHubLabel {
  id: number;
  node_id: string;
  url: string;
  name: string;
  color: string;
  description: string | null;
  default: false;
}

export interface GitHubIssue {
  id: number;
  node_id: string;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  /** Issues only: why it was closed or reopened. */
  state_reason?: string | null;
  user: GitHubUser;
  labels: GitHubLabel[];
  assignee: GitHubUser | null;
  assignees: GitHubUser[];
  milestone: GitHubMilestone | null;
  locked: boolean;
  active_lock_reason: string | null;
  author_association: GitHubAuthorAssociation;
  comments: number;
  html_url: string;
  url: string;
  repository_url: string;
  labels_url: string;
  comments_url: string;
  events_url: string;
  timeline_url: string;
  reactions: GitHubReactions;
  /** The app whose bot made it (GitHub's `performed_via_github_app`), else null. */
  performed_via_github_app: GitHubApp | null;
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
  node_id: string;
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
  /** `null` until mergeability is asked (a single pull request's answer computes it), as in GitHub's payloads. */
  mergeable: boolean | null;
  /** `unknown` until mergeability is asked (a single pull request's answer computes it). */
  mergeable_state: 'unknown' | 'clean' | 'dirty' | 'blocked';
  /** There are no forks, hence no maintainer edits, and no auto-merge. */
  maintainer_can_modify: false;
  auto_merge: null;
  labels: GitHubLabel[];
  assignee: GitHubUser | null;
  assignees: GitHubUser[];
  requested_reviewers: GitHubUser[];
  requested_teams: [];
  milestone: GitHubMilestone | null;
  locked: boolean;
  active_lock_reason: string | null;
  author_association: GitHubAuthorAssociation;
  draft: false;
  comments: number;
  /** repohost has no review comments (comments on diff lines). */
  review_comments: number;
  html_url: string;
  url: string;
  diff_url: string;
  patch_url: string;
  issue_url: string;
  commits_url: string;
  review_comments_url: string;
  review_comment_url: string;
  comments_url: string;
  statuses_url: string;
  _links: Record<'self' | 'html' | 'issue' | 'comments' | 'review_comments' | 'review_comment' | 'commits' | 'statuses', { href: string }>;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /**
   * What the pull request changes, counted by git: in webhook payloads and a single pull request's answer (GitHub's
   * lists leave them out).
   */
  commits?: number;
  additions?: number;
  deletions?: number;
  changed_files?: number;
}

/** The counts of a pull request's changes (`commits`, `additions`, `deletions`, `changed_files`). */
export type GitHubPullStats = Required<Pick<GitHubPullRequest, 'commits' | 'additions' | 'deletions' | 'changed_files'>>;

export interface GitHubComment {
  id: number;
  node_id: string;
  body: string;
  user: GitHubUser;
  author_association: GitHubAuthorAssociation;
  html_url: string;
  url: string;
  issue_url: string;
  reactions: GitHubReactions;
  performed_via_github_app: GitHubApp | null;
  created_at: string;
  updated_at: string;
}

/** GitHub's issue event (`/issues/{number}/events`, and the timeline's items other than comments). */
export interface GitHubIssueEvent {
  id: number;
  node_id: string;
  url: string;
  actor: GitHubUser | null;
  event: string;
  commit_id: string | null;
  commit_url: string | null;
  created_at: string;
  performed_via_github_app: null;
  label?: { name: string; color: string };
  assignee?: GitHubUser | null;
  assigner?: GitHubUser | null;
  milestone?: { title: string };
  rename?: { from: string; to: string };
  requested_reviewer?: GitHubUser | null;
  review_requester?: GitHubUser | null;
  state_reason?: string | null;
  /** Of `review_dismissed`: which review, its state before (lower case), the message, the pull request's head then. */
  /** Of `locked`: the reason given, or null. */
  lock_reason?: string | null;
  dismissed_review?: { state: string; review_id: number; dismissal_message: string | null; dismissal_commit_id: string | null };
}

/** A cross-reference on GitHub's timeline: the issue or pull request (with its repository) whose text mentioned this one. */
export interface GitHubCrossReference {
  event: 'cross-referenced';
  actor: GitHubUser | null;
  created_at: string;
  updated_at: string;
  source: { type: 'issue'; issue: (GitHubIssue & { repository: GitHubRepository }) | null };
}

/** A comment as the timeline lists it: the issue comment, with `event: 'commented'` and its author as `actor`. */
export type GitHubTimelineComment = GitHubComment & { event: 'commented'; actor: GitHubUser };

/** One commit of a push payload. */
export interface GitHubPushCommit {
  id: string;
  tree_id: string;
  distinct: boolean;
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
  node_id: string;
  url: string;
  html_url: string;
  author: GitHubGitActor;
  committer: GitHubGitActor;
  message: string;
  tree: { sha: string; url: string };
  parents: GitHubParentRef[];
  verification: GitHubVerification;
}

/** A file a commit, comparison or pull request changes. */
export interface GitHubFile {
  sha: string;
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed' | 'copied';
  additions: number;
  deletions: number;
  changes: number;
  blob_url: string;
  raw_url: string;
  contents_url: string;
  patch?: string;
  previous_filename?: string;
}

/**
 * What GitHub says of a commit's signature. repohost verifies none: a signed commit is `verified: false` with reason
 * `gpgverify_unavailable` (its signature and signed payload given), an unsigned one `unsigned`.
 */
export interface GitHubVerification {
  verified: false;
  reason: 'unsigned' | 'gpgverify_unavailable';
  signature: string | null;
  payload: string | null;
  verified_at: null;
}

/** A commit as the commits API shows it (`/commits`, `/commits/:ref`, compare, pull request commits). */
export interface GitHubCommit {
  sha: string;
  node_id: string;
  url: string;
  html_url: string;
  comments_url: string;
  commit: {
    url: string;
    author: GitHubGitActor;
    committer: GitHubGitActor;
    message: string;
    tree: { sha: string; url: string };
    comment_count: number;
    /** Present when the commit object was read whole (a commit of a list is read without its signature). */
    verification?: GitHubVerification;
  };
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

/** GitHub's milestone object. */
export interface GitHubMilestone {
  url: string;
  html_url: string;
  labels_url: string;
  id: number;
  node_id: string;
  number: number;
  state: 'open' | 'closed';
  title: string;
  description: string | null;
  creator: GitHubUser | null;
  open_issues: number;
  closed_issues: number;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  due_on: string | null;
}

/** A GitHub App as GitHub shows it (`GET /app`, a check run's `app`, `performed_via_github_app`). */
export interface GitHubApp {
  id: number;
  slug: string;
  node_id: string;
  client_id: string;
  owner: GitHubUser;
  name: string;
  description: string;
  external_url: string;
  html_url: string;
  created_at: string;
  updated_at: string;
  permissions: Record<string, string>;
  events: string[];
  installations_count?: number;
}
