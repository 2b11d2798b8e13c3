// GitHub's global node ids, and where the GitHub-compatible API lives: what the shapes of every kind of object name.

/** GitHub's `node_id` of an object of `type` (its GraphQL global id, in GitHub's older base64 form). */
export function nodeId(type: 'Ref' | 'Integration' | 'IntegrationInstallation' | 'IssueEvent' | 'User' | 'Repository' | 'Issue' | 'PullRequest' | 'IssueComment' | 'Label' | 'Release' | 'ReleaseAsset' | 'Commit' | 'CheckRun' | 'CheckSuite' | 'Tag' | 'PullRequestReview' | 'PullRequestReviewComment' | 'Milestone' | 'Reaction' | 'Deployment' | 'DeploymentStatus' | 'CommitComment' | 'Environment' | 'StatusContext' | 'Blob', id: number | string): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString('base64');
}

/** Where the GitHub-compatible API lives: the `url` fields of GitHub's objects point there. */
export const GITHUB_API_PREFIX = '/api/v3';
