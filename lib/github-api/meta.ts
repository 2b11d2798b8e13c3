import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { V3 } from './lookup.js';
import { rateCallerOf } from './http.js';

/**
 * GitHub's root document (`GET /`): URL templates of the API's main resources, here pointing at this host. gh asks
 * for it to check a token (`gh auth login --with-token`, `gh auth status`); octokit.rb starts from it (`root.rels`).
 * Templates of resources repohost does not serve are listed as GitHub lists them: following one answers the 404
 * that names what is not implemented.
 */
export function rootDocument(api: string, web: string): Record<string, string> {
  return {
    current_user_url: `${api}/user`,
    current_user_authorizations_html_url: `${web}/settings/connections/applications{/client_id}`,
    authorizations_url: `${api}/authorizations`,
    code_search_url: `${api}/search/code?q={query}{&page,per_page,sort,order}`,
    commit_search_url: `${api}/search/commits?q={query}{&page,per_page,sort,order}`,
    emails_url: `${api}/user/emails`,
    emojis_url: `${api}/emojis`,
    events_url: `${api}/events`,
    feeds_url: `${api}/feeds`,
    followers_url: `${api}/user/followers`,
    following_url: `${api}/user/following{/target}`,
    gists_url: `${api}/gists{/gist_id}`,
    issue_search_url: `${api}/search/issues?q={query}{&page,per_page,sort,order}`,
    issues_url: `${api}/issues`,
    keys_url: `${api}/user/keys`,
    label_search_url: `${api}/search/labels?q={query}&repository_id={repository_id}{&page,per_page}`,
    notifications_url: `${api}/notifications`,
    organization_url: `${api}/orgs/{org}`,
    organization_repositories_url: `${api}/orgs/{org}/repos{?type,page,per_page,sort}`,
    organization_teams_url: `${api}/orgs/{org}/teams`,
    public_gists_url: `${api}/gists/public`,
    rate_limit_url: `${api}/rate_limit`,
    repository_url: `${api}/repos/{owner}/{repo}`,
    repository_search_url: `${api}/search/repositories?q={query}{&page,per_page,sort,order}`,
    current_user_repositories_url: `${api}/user/repos{?type,page,per_page,sort}`,
    starred_url: `${api}/user/starred{/owner}{/repo}`,
    starred_gists_url: `${api}/gists/starred`,
    topic_search_url: `${api}/search/topics?q={query}{&page,per_page}`,
    user_url: `${api}/users/{user}`,
    user_organizations_url: `${api}/user/orgs`,
    user_repositories_url: `${api}/users/{user}/repos{?type,page,per_page,sort}`,
    user_search_url: `${api}/search/users?q={query}{&page,per_page,sort,order}`,
  };
}

/** GitHub's resources of `GET /rate_limit` besides `core` and `search`: nothing here counts against them. */
const UNCOUNTED_RESOURCES = [
  'graphql',
  'integration_manifest',
  'source_import',
  'code_scanning_upload',
  'actions_runner_registration',
  'scim',
  'dependency_snapshots',
  'code_search',
] as const;

/** The API's root document, `GET /meta` and `GET /rate_limit`. */
export function mountMeta(app: H3, ctx: AppContext): void {
  const root = () => rootDocument(`${ctx.baseUrl()}${V3}`, ctx.baseUrl());
  app.get(V3, root);
  app.get(`${V3}/`, root);

  // GitHub's `GET /meta`: what it says of itself. repohost publishes no address ranges (it runs where it is put); git
  // over HTTP takes an account's password, so a password can be checked.
  app.get(`${V3}/meta`, () => ({ verifiable_password_authentication: true }));

  // Clients that pace themselves (Octokit's throttling plugin, CI tools) ask this before a burst of calls.
  app.get(`${V3}/rate_limit`, async (event) => {
    const caller = await rateCallerOf(ctx, event);
    const limits = ctx.githubRateLimits;
    const core = limits.current(caller, 'core');
    const uncounted = Object.fromEntries(UNCOUNTED_RESOURCES.map((name) => [name, limits.uncounted(caller)]));
    return { resources: { core, search: limits.current(caller, 'search'), ...uncounted }, rate: core };
  });
}
