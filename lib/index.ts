export { createRepoHost, PortInUseError, type RepoHost } from './host.js';
export type { RepoHostOptions, ResolvedOptions } from './options.js';
export type { AdminOperations, AdminUserInput, AdminRepoInput, AdminSeedInput, AdminUserListing, SeedResult } from './admin/operations.js';
export { DatabaseLockedError } from './store/lock.js';
export type { UserSummary } from './services/users.js';
export type { RepositorySummary } from './services/repos.js';
export type { IssueSummary } from './services/issues.js';
export type { PullSummary } from './services/pulls.js';
export type { FileEntry } from './services/git-backend.js';
export { RepoHostError, type ErrorKind } from './errors.js';
export {
  type HostEvents,
  EventTimeoutError,
  SUBSCRIBABLE_EVENTS,
  type EventListener,
  type WaitForOptions,
  type HostEvent,
  type RepoEventMap,
  type RepoEventName,
  type SubscribableEvent,
  type PushEvent,
  type CreateEvent,
  type DeleteEvent,
  type IssuesEvent,
  type IssueCommentEvent,
  type PullRequestEvent,
  type StatusEvent,
  type StarEvent,
  type WatchEvent,
  type RepositoryEvent,
  type PingEvent,
} from './events/index.js';
export type * from './github/types.js';
export type { Hook, HookInput, Delivery } from './webhooks/index.js';
export type {
  Fixtures,
  FixtureUser,
  FixtureRepository,
  FixtureBranch,
  FixtureCommit,
  FixtureFile,
  FixturePerson,
  FixtureLabel,
  FixtureIssue,
  FixturePull,
  FixtureComment,
} from './fixtures.js';
export { FixtureError } from './harness/validate.js';
export type { FixtureResult } from './harness/load.js';
export type { RateLimitSimulation } from './github/rate-limit.js';
export type { HostSnapshot } from './harness/snapshots.js';
