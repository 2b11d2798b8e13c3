import type { ReadTx } from '../store/interface.js';
import { keptCountsOf } from '../store/queries/list-counts.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { countTogglesOf } from '../store/queries/toggles.js';
import { accountsOfAddresses, userByName, usersByNames, type UserRow } from '../store/queries/users.js';
import { type LabelRow } from '../store/queries/labels.js';
import { type MilestoneRow } from '../store/queries/milestones.js';
import { githubTime } from './time.js';
import { topicsOfRepositories } from '../store/queries/topics.js';
import type { GitHubFullUser, GitHubLabel, GitHubMilestone, GitHubRepository, GitHubUser } from './types.js';
import { nodeId, GITHUB_API_PREFIX } from './api-ids.js';
import { CodeShapes } from './code-shapes.js';

/**
 * GitHub's users, repositories and what a repository holds besides its conversations (labels, milestones, hook
 * addresses; commits and contents through `code`). GitHubShapes builds issues, pull requests and comments on it.
 * Every method reads through the `db` it is given, so inside a write it sees the write's own changes.
 */
export class RepositoryShapes {
  constructor(
    protected readonly baseUrl: () => string,
    private readonly avatarUrl: (user: Pick<UserRow, 'avatar_file' | 'username'>) => string,
    /** The domain of the addresses the host's own commits use (`<username>@<domain>`), to name their accounts. */
    noreplyDomain = '',
    /** The SSH clone URL of a repository by its full name ('' without SSH). */
    private readonly sshUrl: (fullName: string) => string = () => '',
  ) {
    this.code = new CodeShapes(baseUrl, async (db, emails) => {
      const accounts = await accountsOfAddresses(db, emails, noreplyDomain);
      return new Map([...accounts].map(([email, user]) => [email, this.user(user)]));
    });
  }

  /** Commits, changed files and contents (code-shapes.ts). */
  readonly code: CodeShapes;

  protected api(path: string): string {
    return `${this.baseUrl()}${GITHUB_API_PREFIX}${path}`;
  }

  user(user: UserRow): GitHubUser {
    // A bot's name holds brackets, which a URL's path escapes (GitHub's `/users/dependabot%5Bbot%5D`).
    const path = encodeURIComponent(user.username);
    const url = this.api(`/users/${path}`);
    return {
      login: user.username,
      id: user.id,
      node_id: nodeId('User', user.id),
      avatar_url: this.avatarUrl(user),
      gravatar_id: '',
      html_url: `${this.baseUrl()}/${path}`,
      url,
      followers_url: `${url}/followers`,
      following_url: `${url}/following{/other_user}`,
      gists_url: `${url}/gists{/gist_id}`,
      starred_url: `${url}/starred{/owner}{/repo}`,
      subscriptions_url: `${url}/subscriptions`,
      organizations_url: `${url}/orgs`,
      repos_url: `${url}/repos`,
      events_url: `${url}/events{/privacy}`,
      received_events_url: `${url}/received_events`,
      // An app's bot account (`<slug>[bot]`; no one else may have brackets in a name).
      type: user.username.endsWith('[bot]') ? 'Bot' : 'User',
      site_admin: user.is_admin === 1,
      ...(user.full_name ? { name: user.full_name } : {}),
    };
  }

  /**
   * An account as its own page shows it (`GET /users/{username}`), with what it owns (`repos`); `self` adds what only
   * the account itself is shown (`GET /user`).
   */
  fullUser(user: UserRow, repos: { public: number; private: number }, self: boolean): GitHubFullUser {
    const created = githubTime(user.created_at);
    return {
      ...this.user(user),
      name: user.full_name || null,
      company: null,
      blog: '',
      location: null,
      email: null,
      hireable: null,
      bio: null,
      twitter_username: null,
      public_repos: repos.public,
      public_gists: 0,
      followers: 0,
      following: 0,
      created_at: created,
      updated_at: created,
      ...(self ? { private_gists: 0 as const, total_private_repos: repos.private, owned_private_repos: repos.private, disk_usage: 0 as const, collaborators: 0 as const, two_factor_authentication: false as const } : {}),
    };
  }

  /** A milestone as GitHub shows it (`creator` given when its account is known). */
  milestone(repo: RepositoryRow, row: MilestoneRow, creator: UserRow | undefined): GitHubMilestone {
    const url = this.api(`/repos/${repo.owner_name}/${repo.name}/milestones/${row.number}`);
    return {
      url,
      html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/milestone/${row.number}`,
      labels_url: `${url}/labels`,
      id: row.id,
      node_id: nodeId('Milestone', row.id),
      number: row.number,
      state: row.state,
      title: row.title,
      description: row.description,
      creator: creator ? this.user(creator) : null,
      open_issues: row.open_issues,
      closed_issues: row.closed_issues,
      created_at: githubTime(row.created_at),
      updated_at: githubTime(row.updated_at),
      closed_at: githubTime(row.closed_at),
      due_on: githubTime(row.due_on),
    };
  }

  /** A user named by a row's joined username (authors, closers); undefined when the account is gone. */
  async userNamed(db: ReadTx, username: string | null): Promise<GitHubUser | null> {
    const user = username ? await userByName(db, username) : undefined;
    return user ? this.user(user) : null;
  }

  /** The accounts of several names, in their order (unknown ones left out), in one query. */
  async usersNamed(db: ReadTx, usernames: readonly string[]): Promise<GitHubUser[]> {
    const rows = await usersByNames(db, usernames);
    return usernames.flatMap((name) => {
      const row = rows.get(name.toLowerCase());
      return row ? [this.user(row)] : [];
    });
  }

  /** The repository; `permissions` (the caller's, see permissions.ts) only where an API caller asks for it. */
  async repository(db: ReadTx, repo: RepositoryRow, permissions?: GitHubRepository['permissions']): Promise<GitHubRepository> {
    return (await this.repositories(db, [repo], permissions && (() => permissions)))[0]!;
  }

  /** Several repositories (a list's) in four queries, whatever their number; `permissionsOf` as `repository` takes. */
  async repositories(db: ReadTx, repos: readonly RepositoryRow[], permissionsOf?: (repo: RepositoryRow) => GitHubRepository['permissions']): Promise<GitHubRepository[]> {
    if (repos.length === 0) return [];
    const ids = repos.map((repo) => repo.id);
    const owners = await usersByNames(db, [...new Set(repos.map((repo) => repo.owner_name))]);
    const stars = await countTogglesOf(db, 'stars', ids);
    const openIssues = await keptCountsOf(db, ids, 'issue', ['open']);
    const topics = await topicsOfRepositories(db, ids);
    return repos.map((repo) =>
      this.repositoryFrom(repo, { owner: owners.get(repo.owner_name.toLowerCase())!, stars: stars.get(repo.id) ?? 0, openIssues: openIssues.get(repo.id) ?? 0, topics: topics.get(repo.id) ?? [] }, permissionsOf?.(repo)),
    );
  }

  private repositoryFrom(
    repo: RepositoryRow,
    { owner, stars, openIssues, topics }: { owner: UserRow; stars: number; openIssues: number; topics: string[] },
    permissions: GitHubRepository['permissions'] | undefined,
  ): GitHubRepository {
    const fullName = `${repo.owner_name}/${repo.name}`;
    const url = this.api(`/repos/${fullName}`);
    // GitHub's `watchers_count` and `watchers` count stars (a name kept from before it had watching); who watches is
    // `subscribers_count`, of the repository's own answer only (see the API's GET /repos/{owner}/{repo}).
    return {
      id: repo.id,
      node_id: nodeId('Repository', repo.id),
      name: repo.name,
      full_name: fullName,
      private: repo.is_private === 1,
      visibility: repo.is_private === 1 ? 'private' : 'public',
      owner: this.user(owner),
      html_url: `${this.baseUrl()}/${fullName}`,
      description: repo.description || null,
      fork: false,
      url,
      clone_url: `${this.baseUrl()}/${fullName}.git`,
      git_url: `${this.baseUrl()}/${fullName}.git`,
      ssh_url: this.sshUrl(fullName),
      svn_url: `${this.baseUrl()}/${fullName}`,
      mirror_url: null,
      homepage: null,
      language: null,
      license: null,
      archive_url: `${url}/{archive_format}{/ref}`,
      assignees_url: `${url}/assignees{/user}`,
      blobs_url: `${url}/git/blobs{/sha}`,
      branches_url: `${url}/branches{/branch}`,
      collaborators_url: `${url}/collaborators{/collaborator}`,
      comments_url: `${url}/comments{/number}`,
      commits_url: `${url}/commits{/sha}`,
      compare_url: `${url}/compare/{base}...{head}`,
      contents_url: `${url}/contents/{+path}`,
      contributors_url: `${url}/contributors`,
      deployments_url: `${url}/deployments`,
      downloads_url: `${url}/downloads`,
      events_url: `${url}/events`,
      forks_url: `${url}/forks`,
      git_commits_url: `${url}/git/commits{/sha}`,
      git_refs_url: `${url}/git/refs{/sha}`,
      git_tags_url: `${url}/git/tags{/sha}`,
      hooks_url: `${url}/hooks`,
      issue_comment_url: `${url}/issues/comments{/number}`,
      issue_events_url: `${url}/issues/events{/number}`,
      issues_url: `${url}/issues{/number}`,
      keys_url: `${url}/keys{/key_id}`,
      labels_url: `${url}/labels{/name}`,
      languages_url: `${url}/languages`,
      merges_url: `${url}/merges`,
      milestones_url: `${url}/milestones{/number}`,
      notifications_url: `${url}/notifications{?since,all,participating}`,
      pulls_url: `${url}/pulls{/number}`,
      releases_url: `${url}/releases{/id}`,
      stargazers_url: `${url}/stargazers`,
      statuses_url: `${url}/statuses/{sha}`,
      subscribers_url: `${url}/subscribers`,
      subscription_url: `${url}/subscription`,
      tags_url: `${url}/tags`,
      teams_url: `${url}/teams`,
      trees_url: `${url}/git/trees{/sha}`,
      default_branch: repo.default_branch,
      created_at: githubTime(repo.created_at),
      updated_at: githubTime(repo.updated_at),
      pushed_at: githubTime(repo.pushed_at),
      size: 0,
      stargazers_count: stars,
      watchers_count: stars,
      watchers: stars,
      open_issues_count: openIssues,
      open_issues: openIssues,
      forks: 0,
      forks_count: 0,
      topics,
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_downloads: false,
      has_discussions: false,
      archived: false,
      disabled: false,
      is_template: false,
      ...(permissions ? { permissions } : {}),
    };
  }

  label(repo: RepositoryRow, label: LabelRow): GitHubLabel {
    return {
      id: label.id,
      node_id: nodeId('Label', label.id),
      url: this.api(`/repos/${repo.owner_name}/${repo.name}/labels/${encodeURIComponent(label.name)}`),
      name: label.name,
      color: label.color.replace(/^#/, ''),
      description: label.description || null,
      default: false,
    };
  }

  /** The label a webhook event is about (`label`): GitHub's webhook label tells its archiving (never, here). */
  webhookLabel(repo: RepositoryRow, label: LabelRow): GitHubLabel & { archived_at: null; archived_by: null } {
    return { ...this.label(repo, label), archived_at: null, archived_by: null };
  }

  protected repoPath(repo: RepositoryRow): string {
    return `/repos/${repo.owner_name}/${repo.name}`;
  }

  /** The addresses of a repository's webhook in the GitHub-compatible API (as its `hook` object shows them). */
  hookUrls(repo: RepositoryRow, hookId: number): { url: string; test_url: string; ping_url: string; deliveries_url: string } {
    const url = this.api(`${this.repoPath(repo)}/hooks/${hookId}`);
    return { url, test_url: `${url}/tests`, ping_url: `${url}/pings`, deliveries_url: `${url}/deliveries` };
  }
}
