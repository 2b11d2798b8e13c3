import type { CollaboratorPermission } from '../store/queries/collaborators.js';
import type {
  GitHubComment,
  GitHubCommit,
  GitHubCommitComment,
  GitHubDeployment,
  GitHubDeploymentStatus,
  GitHubIssue,
  GitHubLabel,
  GitHubMilestone,
  GitHubPullRequest,
  GitHubPushCommit,
  GitHubRepository,
  GitHubUser,
} from '../github/types.js';
import type { GitHubRelease } from '../github/release-shapes.js';
import type { CheckShapes, GitHubCheckRun } from '../github/check-shapes.js';
import type { GitHubReview, GitHubReviewComment, simplePull } from '../github/review-shapes.js';

/** GitHub's "simple pull request" of review events. */
type SimplePullRequest = ReturnType<typeof simplePull>;

/** Fields every repository event carries, as in GitHub's webhook payloads. */
export interface RepositoryEventBase {
  repository: GitHubRepository;
  sender: GitHubUser;
}

export interface PushEvent extends RepositoryEventBase {
  /** Present (true) on events of ref changes found after a crash, which nobody was told of when they happened. */
  repohost_reconciled?: true;
  ref: string;
  before: string;
  after: string;
  created: boolean;
  deleted: boolean;
  forced: boolean;
  base_ref: null;
  compare: string;
  /** The pushed commits, oldest first: the newest 20 when there are more. */
  commits: GitHubPushCommit[];
  head_commit: GitHubPushCommit | null;
  pusher: { name: string; email: string | null };
}

export interface CreateEvent extends RepositoryEventBase {
  /** Present (true) on events of ref changes found after a crash, which nobody was told of when they happened. */
  repohost_reconciled?: true;
  ref: string;
  ref_type: 'branch' | 'tag';
  master_branch: string;
  description: string | null;
  pusher_type: 'user';
}

export interface DeleteEvent extends RepositoryEventBase {
  /** Present (true) on events of ref changes found after a crash, which nobody was told of when they happened. */
  repohost_reconciled?: true;
  ref: string;
  ref_type: 'branch' | 'tag';
  pusher_type: 'user';
}

/** What an `edited` action changed: the earlier values. */
export type EditChanges = Partial<Record<'title' | 'body', { from: string }>> & { base?: { ref: { from: string }; sha: { from: string } } };

export interface IssuesEvent extends RepositoryEventBase {
  action: 'opened' | 'edited' | 'closed' | 'reopened' | 'labeled' | 'unlabeled' | 'assigned' | 'unassigned' | 'milestoned' | 'demilestoned' | 'locked' | 'unlocked';
  issue: GitHubIssue;
  changes?: EditChanges;
  /** The label added or removed (`labeled`, `unlabeled`). */
  label?: GitHubLabel;
  /** The account assigned or unassigned (`assigned`, `unassigned`). */
  assignee?: GitHubUser | null;
  /** The milestone set or cleared (`milestoned`, `demilestoned`). */
  milestone?: GitHubMilestone;
}

export interface IssueCommentEvent extends RepositoryEventBase {
  action: 'created' | 'edited' | 'deleted';
  issue: GitHubIssue;
  comment: GitHubComment;
  changes?: { body: { from: string } };
}

export interface PullRequestEvent extends RepositoryEventBase {
  action:
    | 'opened'
    | 'edited'
    | 'closed'
    | 'reopened'
    | 'synchronize'
    | 'review_requested'
    | 'review_request_removed'
    | 'assigned'
    | 'unassigned'
    | 'milestoned'
    | 'demilestoned'
    | 'labeled'
    | 'unlabeled'
    | 'locked'
    | 'unlocked';
  number: number;
  pull_request: GitHubPullRequest;
  changes?: EditChanges;
  /** With `synchronize`: the head before and after. */
  before?: string;
  after?: string;
  /** With `review_requested` and `review_request_removed`: whose review. */
  requested_reviewer?: GitHubUser;
  /** With `assigned` and `unassigned`: the account. */
  assignee?: GitHubUser | null;
  /** With `labeled` and `unlabeled`: the label. */
  label?: GitHubLabel;
}

export interface PullRequestReviewEvent extends RepositoryEventBase {
  action: 'submitted' | 'edited' | 'dismissed';
  /** Webhooks write a review's state in lower case (`approved`), the REST API in upper case. */
  review: Omit<GitHubReview, 'state'> & { state: string };
  pull_request: SimplePullRequest;
  changes?: { body?: { from: string } };
}

export interface PullRequestReviewCommentEvent extends RepositoryEventBase {
  action: 'created' | 'edited' | 'deleted';
  comment: GitHubReviewComment;
  pull_request: SimplePullRequest;
  changes?: { body?: { from: string } };
}

export interface StatusEvent extends RepositoryEventBase {
  id: number;
  sha: string;
  name: string;
  state: 'pending' | 'success' | 'error' | 'failure';
  context: string;
  description: string | null;
  target_url: string | null;
  /** The branches whose tip is the commit. */
  branches: Array<{ name: string; commit: { sha: string; url: string }; protected: boolean }>;
  /**
   * The commit, as GitHub's commit object with its `verification`: read before the write when a hook or listener is
   * there to hear (absent only if one was added meanwhile, or git could not read it).
   */
  commit?: GitHubCommit;
  created_at: string;
  updated_at: string;
}

export interface StarEvent extends RepositoryEventBase {
  action: 'created' | 'deleted';
  starred_at: string | null;
}

export interface WatchEvent extends RepositoryEventBase {
  action: 'started';
}

/** What a `repository` event says happened: a rename, an edit (of what, and from what), a change of visibility. */
export type RepositoryEvent = RepositoryEventBase &
  (
    | { action: 'renamed'; changes: { repository: { name: { from: string } } } }
    | { action: 'edited'; changes: { description?: { from: string | null }; default_branch?: { from: string } } }
    | { action: 'privatized' | 'publicized' }
  );

/** What a `release` event says happened (see ReleaseService for when each is sent). */
export type ReleaseAction = 'created' | 'published' | 'released' | 'prereleased' | 'edited' | 'unpublished' | 'deleted';
export type ReleaseChanges = Partial<Record<'name' | 'body' | 'tag_name', { from: string }>>;

export type ReleaseEvent = RepositoryEventBase & { release: GitHubRelease } & ({ action: Exclude<ReleaseAction, 'edited'> } | { action: 'edited'; changes: ReleaseChanges });

export interface MilestoneEvent extends RepositoryEventBase {
  action: 'created' | 'edited' | 'closed' | 'opened' | 'deleted';
  milestone: GitHubMilestone;
  /** With `edited`: the fields changed, as they were. */
  changes?: Partial<Record<'title' | 'description' | 'due_on', { from: string }>>;
}

/** A repository's label made, changed or deleted (GitHub's `label` event). */
export interface LabelEvent extends RepositoryEventBase {
  action: 'created' | 'edited' | 'deleted';
  label: GitHubLabel;
  /** With `edited`: the fields changed, as they were. */
  changes?: Partial<Record<'name' | 'color' | 'description', { from: string }>>;
}

/** A collaborator added, given another permission, or removed (GitHub's `member` event). */
export type MemberEvent = RepositoryEventBase & { member: GitHubUser } & (
  | { action: 'added'; changes: { permission: { to: CollaboratorPermission } } }
  | { action: 'edited'; changes: { old_permission: { from: CollaboratorPermission }; permission: { from: CollaboratorPermission; to: CollaboratorPermission } } }
  | { action: 'removed' }
);

/** A writer's own event (`POST /repos/{owner}/{repo}/dispatches`): its type is the action. */
export interface RepositoryDispatchEvent extends RepositoryEventBase {
  action: string;
  /** The default branch, as on GitHub. */
  branch: string;
  client_payload: Record<string, unknown> | null;
}

/** A comment made on a commit (GitHub sends no other action of it). */
export interface CommitCommentEvent extends RepositoryEventBase {
  action: 'created';
  comment: GitHubCommitComment;
}

/** A deployment made (`POST /repos/{owner}/{repo}/deployments`); no workflow made it. */
export interface DeploymentEvent extends RepositoryEventBase {
  action: 'created';
  deployment: GitHubDeployment;
  workflow: null;
  workflow_run: null;
}

/** A status of a deployment, with the deployment as it is after it. */
export interface DeploymentStatusEvent extends RepositoryEventBase {
  action: 'created';
  deployment_status: GitHubDeploymentStatus;
  deployment: GitHubDeployment;
}

/** A check run made (`created`) or finished (`completed`; both when it is made finished). */
export interface CheckRunEvent extends RepositoryEventBase {
  action: 'created' | 'completed' | 'rerequested';
  /** With the whole suite (`simple-check-suite`) where the API names only its id. */
  check_run: Omit<GitHubCheckRun, 'check_suite'> & { check_suite: ReturnType<CheckShapes['simpleSuite']> };
}

/** A suite asked of an app (a push, `requested`; someone asked again, `rerequested`) or whose runs all finished. */
export interface CheckSuiteEvent extends RepositoryEventBase {
  action: 'requested' | 'rerequested' | 'completed';
  check_suite: ReturnType<CheckShapes['webhookSuite']>;
}

export interface PingEvent {
  zen: string;
  hook_id: number;
  hook: {
    type: 'Repository';
    id: number;
    name: 'web';
    active: boolean;
    events: string[];
    /** GitHub masks a secret it holds (`********`); it never sends one. */
    config: { url: string; content_type: string; insecure_ssl: '0'; secret?: '********' };
    created_at: string;
    updated_at: string;
    /** The hook's own addresses in the GitHub-compatible API. */
    url: string;
    test_url: string;
    ping_url: string;
    deliveries_url: string;
  };
  repository: GitHubRepository;
  sender: GitHubUser;
}

/** Every event by its name (GitHub's `X-GitHub-Event`), with the payload a webhook for it carries. */
export interface RepoEventMap {
  push: PushEvent;
  create: CreateEvent;
  delete: DeleteEvent;
  issues: IssuesEvent;
  issue_comment: IssueCommentEvent;
  pull_request: PullRequestEvent;
  status: StatusEvent;
  star: StarEvent;
  watch: WatchEvent;
  repository: RepositoryEvent;
  release: ReleaseEvent;
  pull_request_review: PullRequestReviewEvent;
  pull_request_review_comment: PullRequestReviewCommentEvent;
  milestone: MilestoneEvent;
  label: LabelEvent;
  member: MemberEvent;
  check_run: CheckRunEvent;
  check_suite: CheckSuiteEvent;
  repository_dispatch: RepositoryDispatchEvent;
  deployment: DeploymentEvent;
  deployment_status: DeploymentStatusEvent;
  commit_comment: CommitCommentEvent;
  ping: PingEvent;
}

export type RepoEventName = keyof RepoEventMap;

/** The events a webhook may subscribe to (`ping` goes to the hook it tests, whatever it subscribes to). */
export const SUBSCRIBABLE_EVENTS = ['push', 'create', 'delete', 'issues', 'issue_comment', 'pull_request', 'status', 'star', 'watch', 'repository', 'release', 'pull_request_review', 'pull_request_review_comment', 'milestone', 'label', 'member', 'check_run', 'check_suite', 'repository_dispatch', 'deployment', 'deployment_status', 'commit_comment'] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

/** One event as code in the same process receives it. */
export interface HostEvent<N extends RepoEventName = RepoEventName> {
  name: N;
  /** GitHub's `action` field, when the event has one. */
  action: string | undefined;
  payload: RepoEventMap[N];
}
