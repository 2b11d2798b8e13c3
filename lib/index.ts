export { createRepoHost, PortInUseError, type RepoHost } from './host.js';
export type { RepoHostOptions, ResolvedOptions } from './options.js';
export type { AdminOperations, AdminUserInput, AdminRepoInput } from './services/admin.js';
export type { UserSummary } from './services/users.js';
export type { RepositorySummary } from './services/repos.js';
export type { IssueSummary } from './services/issues.js';
export type { PullSummary } from './services/pulls.js';
export type { FileEntry } from './services/git-backend.js';
export { RepoHostError, type ErrorKind } from './errors.js';
