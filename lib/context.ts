import type { ConcurrencyGate } from './concurrency-gate.js';
import type { AnswerCache } from './answer-cache.js';
import type { GitRepositories } from './git/repositories.js';
import type { GitHubRateLimits } from './github/rate-limit.js';
import type { Highlighter } from './highlight/index.js';
import type { LfsService } from './services/lfs.js';
import type { ResolvedOptions } from './options.js';
import type { AssigneeService } from './services/assignees.js';
import type { AvatarService } from './services/avatars.js';
import type { BranchProtectionService } from './services/branch-protection.js';
import type { CheckService } from './services/checks.js';
import type { CiService } from './services/ci.js';
import type { CollaboratorService } from './services/collaborators.js';
import type { DispatchService } from './services/dispatches.js';
import type { ReactionService } from './services/reactions.js';
import type { CommitPullsService } from './services/commit-pulls.js';
import type { DeploymentService } from './services/deployments.js';
import type { CommitCommentService } from './services/commit-comments.js';
import type { ContributorService } from './services/contributors.js';
import type { TopicService } from './services/topics.js';
import type { EnvironmentService } from './services/environments.js';
import type { BranchMerges } from './services/branch-merges.js';
import type { CredentialService } from './services/credentials.js';
import type { AppService } from './services/apps.js';
import type { NotificationService } from './services/notifications.js';
import type { IssueService } from './services/issues.js';
import type { LabelService } from './services/labels.js';
import type { LoginThrottle } from './services/login-throttle.js';
import type { GitDataService } from './services/git-data.js';
import type { MilestoneService } from './services/milestones.js';
import type { MergeGates } from './services/merge-gates.js';
import type { PullCommentService } from './services/pull-comments.js';
import type { PullService } from './services/pulls.js';
import type { ReleaseService } from './services/releases.js';
import type { ReviewService } from './services/reviews.js';
import type { RefUpdateService } from './services/ref-updates.js';
import type { RepositoryService } from './services/repos.js';
import type { SearchService } from './services/search.js';
import type { SocialService } from './services/social.js';
import type { SshKeyService } from './services/ssh-keys.js';
import type { SuggestionService } from './services/suggestions.js';
import type { CommitStatusService } from './services/statuses.js';
import type { PasswordHasher } from './services/password-hasher.js';
import type { UserService } from './services/users.js';
import type { HostDatabase } from './store/interface.js';
import type { EventRecorder, HostEvents } from './events/index.js';
import type { DeliveryWorker, WebhookService } from './webhooks/index.js';

/** Everything one host instance owns; passed down explicitly so several hosts can run in one process. */
export interface AppContext {
  readonly options: ResolvedOptions;
  readonly store: HostDatabase;
  readonly git: GitRepositories;
  /** Places for git transfers (clones, fetches, pushes, archives over SSH), shared by HTTP and SSH. */
  readonly gitTransfers: ConcurrencyGate;
  /** Syntax highlighting off the event loop (worker threads). */
  readonly highlighter: Highlighter;
  /** bcrypt off the event loop (worker threads). */
  readonly passwords: PasswordHasher;
  /** Failed sign-ins counted per account and address: password checks, and SSH connections no key got through. */
  readonly loginThrottle: LoginThrottle;
  readonly users: UserService;
  readonly credentials: CredentialService;
  /** Each account's inbox of threads (issue 21). */
  readonly notifications: NotificationService;
  /** GitHub Apps, their installations and installation tokens. */
  readonly apps: AppService;
  /** Users' public SSH keys and repositories' deploy keys. */
  readonly sshKeys: SshKeyService;
  readonly repos: RepositoryService;
  readonly issues: IssueService;
  readonly labels: LabelService;
  /** Assignees of issues and pull requests. */
  readonly assignees: AssigneeService;
  /** Milestones, and the milestone of issues and pull requests. */
  readonly milestones: MilestoneService;
  readonly collaborators: CollaboratorService;
  readonly dispatches: DispatchService;
  readonly reactions: ReactionService;
  readonly branchMerges: BranchMerges;
  readonly pulls: PullService;
  /** The conversation comments of pull requests. */
  readonly pullComments: PullCommentService;
  /** What a protected branch asks of a merge: required checks and approving reviews. */
  readonly mergeGates: MergeGates;
  /** Reviews of pull requests, their comments on diff lines, requested reviewers. */
  readonly reviews: ReviewService;
  /** Review comments' suggested changes committed to the head branch. */
  readonly suggestions: SuggestionService;
  /** Ref changes and what follows them, for pushes and the API alike. */
  readonly refUpdates: RefUpdateService;
  /** Git objects, history and file contents for the GitHub-compatible API. */
  readonly gitData: GitDataService;
  /** The pull requests that bring a commit (GitHub's `commits/{sha}/pulls`). */
  readonly commitPulls: CommitPullsService;
  /** Deployment environments. */
  readonly environments: EnvironmentService;
  /** A repository's topics. */
  readonly topics: TopicService;
  /** The authors of a repository's default branch (GitHub's contributors). */
  readonly contributors: ContributorService;
  /** Comments on commits (GitHub's commit comments). */
  readonly commitComments: CommitCommentService;
  /** Deployments and their statuses (GitHub's deployments API). */
  readonly deployments: DeploymentService;
  /** Releases and their assets. */
  readonly releases: ReleaseService;
  /** Git LFS objects and locks. */
  readonly lfs: LfsService;
  readonly social: SocialService;
  /** Searches of issues and pull requests. */
  readonly search: SearchService;
  readonly avatars: AvatarService;
  readonly ci: CiService;
  readonly statuses: CommitStatusService;
  /** Check runs and suites (GitHub's Checks API). */
  readonly checks: CheckService;
  readonly protection: BranchProtectionService;
  /** In-process listeners of the host's events (`host.events`). */
  readonly events: HostEvents;
  /** Answers to reads kept until the database changes (see AnswerCache; `/api/v3` lists use it). */
  readonly answers: AnswerCache;
  /** The rate limit `/api/v3` reports (unlimited unless a harness simulates one: admin.simulateRateLimit). */
  readonly githubRateLimits: GitHubRateLimits;
  /** Records an event inside the write that causes it (webhook outbox + in-process listeners). */
  readonly recorder: EventRecorder;
  readonly webhooks: WebhookService;
  /** Sends webhook deliveries. */
  readonly deliveries: DeliveryWorker;
  /** Base URL for links (no trailing slash); known once the server listens. */
  baseUrl(): string;
  /** The SSH clone URL of a repository (`owner/name`), or '' when the host does not serve SSH. */
  sshUrl(fullName: string): string;
}
