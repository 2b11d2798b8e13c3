import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError, notFound } from '../errors.js';
import { requireUser } from '../http/auth.js';
import { pathParam } from '../http/validate.js';
import type { ProtectionInput } from '../services/branch-protection.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { GitHubApiError, noContent, readJson, validationFailed } from './http.js';
import { apiUrl, REPO, repoOf, shapesOf } from './lookup.js';
import { ownValue } from '../own-value.js';

type Body = Record<string, unknown>;

const refused = (field: string, message: string) => validationFailed({ resource: 'Branch', field, code: 'invalid', message });

const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A list of strings (names, contexts), or a 422 naming the field. */
function strings(field: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw validationFailed({ resource: 'Branch', field, code: 'invalid' });
  return value as string[];
}

/** A yes/no of GitHub's body: a boolean, or `{ enabled }` as GET answers it; absent or null is `fallback`. */
function flag(field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (isObject(value) && typeof value.enabled === 'boolean') return value.enabled;
  throw validationFailed({ resource: 'Branch', field, code: 'invalid' });
}

/**
 * GitHub's `PUT .../branches/:branch/protection` body as a repohost rule. The four keys GitHub requires must be there
 * (null turns a part off); what repohost's rules cannot hold (code owners, up-to-date branches, push
 * restrictions, linear history, ...) is refused with 422 naming it, never dropped.
 */
export function protectionFromGitHub(body: Body): ProtectionInput {
  const missing = ['required_status_checks', 'enforce_admins', 'required_pull_request_reviews', 'restrictions'].filter((key) => !Object.hasOwn(body, key));
  // GitHub's words for it (tools match them): the first key missing.
  if (missing.length > 0) throw new GitHubApiError(422, `Invalid request.\n\n"${missing[0]}" wasn't supplied.`);

  const checks = body.required_status_checks;
  if (checks !== null && !isObject(checks)) throw validationFailed({ resource: 'Branch', field: 'required_status_checks', code: 'invalid' });
  if (checks && checks.strict === true) throw refused('required_status_checks.strict', 'repohost does not require branches to be up to date before merging');
  const checkContexts = checks && Array.isArray(checks.checks) ? (checks.checks as unknown[]).map((check) => (isObject(check) ? check.context : undefined)) : [];
  const contexts = checks ? [...new Set([...strings('required_status_checks.contexts', checks.contexts), ...strings('required_status_checks.checks', checkContexts)])] : [];

  const reviews = body.required_pull_request_reviews;
  if (reviews !== null && !isObject(reviews)) throw validationFailed({ resource: 'Branch', field: 'required_pull_request_reviews', code: 'invalid' });
  let bypass: string[] = [];
  let approvals = 0;
  if (reviews) {
    const count = reviews.required_approving_review_count ?? 0;
    if (!Number.isInteger(count) || (count as number) < 0 || (count as number) > 6) throw refused('required_pull_request_reviews.required_approving_review_count', 'a whole number from 0 to 6');
    approvals = count as number;
    for (const key of ['dismiss_stale_reviews', 'require_code_owner_reviews', 'require_last_push_approval']) {
      if (ownValue(reviews, key) === true) throw refused(`required_pull_request_reviews.${key}`, `repohost does not support ${key}`);
    }
    const dismissal = reviews.dismissal_restrictions;
    if (isObject(dismissal) && Object.values(dismissal).some((list) => Array.isArray(list) && list.length > 0)) {
      throw refused('required_pull_request_reviews.dismissal_restrictions', 'repohost does not restrict who dismisses reviews');
    }
    const allowances = reviews.bypass_pull_request_allowances;
    if (allowances !== undefined && allowances !== null && !isObject(allowances)) throw validationFailed({ resource: 'Branch', field: 'required_pull_request_reviews.bypass_pull_request_allowances', code: 'invalid' });
    if (allowances && (strings('bypass_pull_request_allowances.teams', allowances.teams).length > 0 || strings('bypass_pull_request_allowances.apps', allowances.apps).length > 0)) {
      throw refused('required_pull_request_reviews.bypass_pull_request_allowances', 'repohost has no teams or apps: name users');
    }
    bypass = allowances ? strings('bypass_pull_request_allowances.users', allowances.users) : [];
  }

  if (body.restrictions !== null) throw refused('restrictions', 'repohost does not restrict who may push to a branch (only who may bypass pull requests)');
  for (const key of ['required_linear_history', 'block_creations', 'required_conversation_resolution', 'lock_branch', 'allow_fork_syncing']) {
    if (flag(key, ownValue(body, key), false)) throw refused(key, `repohost does not support ${key}`);
  }
  return {
    required_status_contexts: contexts,
    require_pull_request: reviews !== null,
    push_allowlist: bypass,
    enforce_admins: flag('enforce_admins', body.enforce_admins, false),
    required_approvals: approvals,
    allow_force_push: flag('allow_force_pushes', body.allow_force_pushes, false),
    allow_deletion: flag('allow_deletions', body.allow_deletions, false),
  };
}

/** Protection is for admins only, as on GitHub: 401 anonymous, 404 for anyone else. */
async function adminOf(ctx: AppContext, event: H3Event): Promise<{ repo: RepositoryRow; user: UserRow }> {
  const user = await requireUser(ctx, event);
  const repo = await repoOf(ctx, event);
  if ((await ctx.repos.access(user, repo)) !== 'admin') throw notFound();
  return { repo, user };
}

/**
 * A branch's protection in GitHub's shape (admins only, as on GitHub: 404 for others), or 404 `Branch not protected`.
 * Those who may push despite the pull request requirement are GitHub's `bypass_pull_request_allowances`.
 */
export async function branchProtection(ctx: AppContext, repo: RepositoryRow, viewer: UserRow | undefined, branch: string) {
  if (!viewer) throw new GitHubApiError(401, 'Requires authentication');
  if ((await ctx.repos.access(viewer, repo)) !== 'admin') throw notFound();
  const rule = await ctx.protection.ruleFor(repo, branch);
  if (!rule) throw new GitHubApiError(404, 'Branch not protected');
  const url = apiUrl(ctx, repo, `/branches/${encodeURIComponent(branch)}/protection`);
  const shapes = shapesOf(ctx);
  const users = async (names: readonly string[]) => (await Promise.all(names.map(async (username) => await shapes.userNamed(ctx.store, username)))).filter((user) => user !== null);
  return {
    url,
    ...(rule.required_status_contexts.length > 0
      ? { required_status_checks: { url: `${url}/required_status_checks`, contexts_url: `${url}/required_status_checks/contexts`, strict: false, contexts: rule.required_status_contexts, checks: rule.required_status_contexts.map((context) => ({ context, app_id: null })) } }
      : {}),
    ...(rule.require_pull_request
      ? {
          required_pull_request_reviews: {
            url: `${url}/required_pull_request_reviews`,
            dismiss_stale_reviews: false,
            require_code_owner_reviews: false,
            require_last_push_approval: false,
            required_approving_review_count: rule.required_approvals,
            bypass_pull_request_allowances: { users: await users(rule.push_allowlist), teams: [], apps: [] },
          },
        }
      : {}),
    enforce_admins: { url: `${url}/enforce_admins`, enabled: rule.enforce_admins },
    required_linear_history: { enabled: false },
    allow_force_pushes: { enabled: rule.allow_force_push },
    allow_deletions: { enabled: rule.allow_deletion },
    block_creations: { enabled: false },
    required_conversation_resolution: { enabled: false },
    lock_branch: { enabled: false },
    allow_fork_syncing: { enabled: false },
  };
}

/**
 * `PUT` and `DELETE /repos/:o/:r/branches/:branch/protection` (the branch name may hold slashes: the path ends in
 * `/protection`). The GET is answered with the branch route (repos.ts), where `:branch/protection` is told apart.
 */
export function mountBranchProtection(app: H3, ctx: AppContext): void {
  const branchOf = (event: H3Event) => {
    const match = /^(.+)\/protection$/.exec(pathParam(event, 'branch'));
    if (!match) throw notFound();
    return match[1]!;
  };

  app.put(`${REPO}/branches/**:branch`, async (event) => {
    const { repo, user } = await adminOf(ctx, event);
    const branch = branchOf(event);
    if (!(await ctx.gitData.refsOf(repo)).has(`refs/heads/${branch}`)) throw new GitHubApiError(404, 'Branch not found');
    await ctx.protection.set(repo, user, branch, protectionFromGitHub(await readJson(ctx, event)));
    return await branchProtection(ctx, repo, user, branch);
  });

  app.delete(`${REPO}/branches/**:branch`, async (event) => {
    const { repo, user } = await adminOf(ctx, event);
    // Only a rule of exactly this name: one of a glob (set under /api/v1 or the pages) covers other branches too.
    await ctx.protection.remove(repo, user, branchOf(event)).catch((error: unknown) => {
      throw isRepoHostError(error) && error.kind === 'not_found' ? new GitHubApiError(404, 'Branch not protected') : error;
    });
    return noContent();
  });
}
