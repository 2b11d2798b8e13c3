import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError, notFound } from '../errors.js';
import { requireUser } from '../http/auth.js';
import { pathParam } from '../http/validate.js';
import type { BranchProtection, ProtectionInput } from '../services/branch-protection.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { GitHubApiError, noContent, readJson, readJsonOrArray, validationFailed } from './http.js';
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
 * GitHub's required reviews (`required_pull_request_reviews`, or the body of its own PATCH) as a count and the users
 * who may bypass them; an absent count or bypass list keeps `current`'s. What repohost cannot hold is refused.
 */
function reviewsFromGitHub(reviews: Body, prefix: string, current: { approvals: number; bypass: string[] } = { approvals: 0, bypass: [] }): { approvals: number; bypass: string[] } {
  const count = reviews.required_approving_review_count ?? current.approvals;
  if (!Number.isInteger(count) || (count as number) < 0 || (count as number) > 6) throw refused(`${prefix}required_approving_review_count`, 'a whole number from 0 to 6');
  for (const key of ['dismiss_stale_reviews', 'require_code_owner_reviews', 'require_last_push_approval']) {
    if (ownValue(reviews, key) === true) throw refused(`${prefix}${key}`, `repohost does not support ${key}`);
  }
  const dismissal = reviews.dismissal_restrictions;
  if (isObject(dismissal) && Object.values(dismissal).some((list) => Array.isArray(list) && list.length > 0)) {
    throw refused(`${prefix}dismissal_restrictions`, 'repohost does not restrict who dismisses reviews');
  }
  const allowances = reviews.bypass_pull_request_allowances;
  if (allowances !== undefined && allowances !== null && !isObject(allowances)) throw validationFailed({ resource: 'Branch', field: `${prefix}bypass_pull_request_allowances`, code: 'invalid' });
  if (allowances && (strings('bypass_pull_request_allowances.teams', allowances.teams).length > 0 || strings('bypass_pull_request_allowances.apps', allowances.apps).length > 0)) {
    throw refused(`${prefix}bypass_pull_request_allowances`, 'repohost has no teams or apps: name users');
  }
  return { approvals: count as number, bypass: allowances ? strings('bypass_pull_request_allowances.users', allowances.users) : allowances === null ? [] : current.bypass };
}

/** Status check contexts of GitHub's body (`contexts`, and `checks` by their context); `strict` is refused. */
function contextsFromGitHub(checks: Body, prefix: string, current: readonly string[] = []): string[] {
  if (checks.strict === true) throw refused(`${prefix}strict`, 'repohost does not require branches to be up to date before merging');
  if (checks.contexts === undefined && checks.checks === undefined) return [...current];
  const checkContexts = Array.isArray(checks.checks) ? (checks.checks as unknown[]).map((check) => (isObject(check) ? check.context : undefined)) : [];
  return [...new Set([...strings(`${prefix}contexts`, checks.contexts), ...strings(`${prefix}checks`, checkContexts)])];
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
  const contexts = checks ? contextsFromGitHub(checks, 'required_status_checks.') : [];

  const reviews = body.required_pull_request_reviews;
  if (reviews !== null && !isObject(reviews)) throw validationFailed({ resource: 'Branch', field: 'required_pull_request_reviews', code: 'invalid' });
  const { approvals, bypass } = reviews ? reviewsFromGitHub(reviews, 'required_pull_request_reviews.') : { approvals: 0, bypass: [] };

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

/** The parts of a branch's protection GitHub serves at paths of their own, after `…/branches/:branch/protection`. */
type ProtectionPart = '' | '/required_status_checks' | '/required_status_checks/contexts' | '/enforce_admins' | '/required_pull_request_reviews';

/** `<branch>/protection<part>`, the rest of a `…/branches/**` path, or undefined when it names no part. */
export function protectionPath(path: string): { branch: string; part: ProtectionPart } | undefined {
  const match = /^(.+)\/protection(\/required_status_checks(?:\/contexts)?|\/enforce_admins|\/required_pull_request_reviews)?$/.exec(path);
  return match ? { branch: match[1]!, part: (match[2] ?? '') as ProtectionPart } : undefined;
}

/** GitHub's pieces of a protection rule, each also the answer of its own sub-resource. */
function protectionShapes(ctx: AppContext, repo: RepositoryRow, branch: string) {
  const url = apiUrl(ctx, repo, `/branches/${encodeURIComponent(branch)}/protection`);
  const shapes = shapesOf(ctx);
  return {
    url,
    statusChecks: (rule: BranchProtection) => ({
      url: `${url}/required_status_checks`,
      contexts_url: `${url}/required_status_checks/contexts`,
      strict: false,
      contexts: rule.required_status_contexts,
      checks: rule.required_status_contexts.map((context) => ({ context, app_id: null })),
    }),
    reviews: async (rule: BranchProtection) => ({
      url: `${url}/required_pull_request_reviews`,
      dismiss_stale_reviews: false,
      require_code_owner_reviews: false,
      require_last_push_approval: false,
      required_approving_review_count: rule.required_approvals,
      bypass_pull_request_allowances: { users: await shapes.usersNamed(ctx.store, rule.push_allowlist), teams: [], apps: [] },
    }),
    enforceAdmins: (rule: BranchProtection) => ({ url: `${url}/enforce_admins`, enabled: rule.enforce_admins }),
  };
}

/** GitHub's 404s of a part that is off: status checks (none required) and reviews (no pull request required). */
const CHECKS_OFF = 'Required status checks not enabled';
const REVIEWS_OFF = 'Required pull request reviews not enabled';

/**
 * A branch's protection, or one part of it, in GitHub's shape (admins only, as on GitHub: 404 for others), or 404
 * `Branch not protected`. Those who may push despite the pull request requirement are GitHub's
 * `bypass_pull_request_allowances`.
 */
export async function branchProtection(ctx: AppContext, repo: RepositoryRow, viewer: UserRow | undefined, branch: string, part: ProtectionPart = '') {
  if (!viewer) throw new GitHubApiError(401, 'Requires authentication');
  if ((await ctx.repos.access(viewer, repo)) !== 'admin') throw notFound();
  const rule = await ctx.protection.ruleFor(repo, branch);
  if (!rule) throw new GitHubApiError(404, 'Branch not protected');
  const shapes = protectionShapes(ctx, repo, branch);
  const checks = rule.required_status_contexts.length > 0;
  switch (part) {
    case '/required_status_checks':
      if (!checks) throw new GitHubApiError(404, CHECKS_OFF);
      return shapes.statusChecks(rule);
    case '/required_status_checks/contexts':
      if (!checks) throw new GitHubApiError(404, CHECKS_OFF);
      return rule.required_status_contexts;
    case '/enforce_admins':
      return shapes.enforceAdmins(rule);
    case '/required_pull_request_reviews':
      if (!rule.require_pull_request) throw new GitHubApiError(404, REVIEWS_OFF);
      return await shapes.reviews(rule);
  }
  return {
    url: shapes.url,
    ...(checks ? { required_status_checks: shapes.statusChecks(rule) } : {}),
    ...(rule.require_pull_request ? { required_pull_request_reviews: await shapes.reviews(rule) } : {}),
    enforce_admins: shapes.enforceAdmins(rule),
    required_linear_history: { enabled: false },
    allow_force_pushes: { enabled: rule.allow_force_push },
    allow_deletions: { enabled: rule.allow_deletion },
    block_creations: { enabled: false },
    required_conversation_resolution: { enabled: false },
    lock_branch: { enabled: false },
    allow_fork_syncing: { enabled: false },
  };
}

/** The contexts of a body of the `…/required_status_checks/contexts` routes: `{ contexts: [...] }` or a bare list. */
function contextsOfBody(body: unknown): string[] {
  return strings('contexts', Array.isArray(body) ? body : isObject(body) ? body.contexts : undefined);
}

/**
 * The writes of GitHub's protection routes (the branch name may hold slashes: the path ends in `/protection` or one
 * of its parts): `PUT` and `DELETE` of the whole, and of the parts `PATCH`/`DELETE` (status checks, reviews),
 * `POST`/`PUT`/`DELETE` (contexts), `POST`/`DELETE` (enforce admins). The GETs are answered with the branch route
 * (repos.ts), where a branch is told apart from a protection path.
 */
export function mountBranchProtection(app: H3, ctx: AppContext): void {
  /** The branch and part a write names, from an admin, of a branch that exists. */
  const writeTo = async (event: H3Event, parts: readonly ProtectionPart[]) => {
    const path = protectionPath(pathParam(event, 'branch'));
    if (!path || !parts.includes(path.part)) throw notFound();
    const { repo, user } = await adminOf(ctx, event);
    if (!(await ctx.gitData.refsOf(repo)).has(`refs/heads/${path.branch}`)) throw new GitHubApiError(404, 'Branch not found');
    return { repo, user, ...path };
  };
  type Target = { repo: RepositoryRow; user: UserRow; branch: string; part: ProtectionPart };
  /** Changes the rule covering the branch (404 `Branch not protected` without one). */
  const edited = async (target: Target, edit: (rule: BranchProtection) => ProtectionInput) =>
    await ctx.protection.change(target.repo, target.user, target.branch, edit).catch((error: unknown) => {
      throw isRepoHostError(error) && error.kind === 'not_found' ? new GitHubApiError(404, 'Branch not protected') : error;
    });
  /** `edited`, answered with the part as it is now (the contexts left, none included). */
  const change = async (target: Target, edit: (rule: BranchProtection) => ProtectionInput) => {
    const rule = await edited(target, edit);
    if (target.part === '/required_status_checks/contexts') return rule.required_status_contexts;
    return await branchProtection(ctx, target.repo, target.user, target.branch, target.part);
  };
  const checksOn = (rule: BranchProtection) => {
    if (rule.required_status_contexts.length === 0) throw new GitHubApiError(404, CHECKS_OFF);
  };

  app.put(`${REPO}/branches/**:branch`, async (event) => {
    const target = await writeTo(event, ['', '/required_status_checks/contexts']);
    if (target.part === '') {
      const body = await readJson(ctx, event);
      await ctx.protection.set(target.repo, target.user, target.branch, protectionFromGitHub(body));
      return await branchProtection(ctx, target.repo, target.user, target.branch);
    }
    const contexts = contextsOfBody(await readJsonOrArray(ctx, event));
    return await change(target, (rule) => (checksOn(rule), { ...rule, required_status_contexts: contexts }));
  });

  app.post(`${REPO}/branches/**:branch`, async (event) => {
    const target = await writeTo(event, ['/required_status_checks/contexts', '/enforce_admins']);
    if (target.part === '/enforce_admins') return await change(target, (rule) => ({ ...rule, enforce_admins: true }));
    const contexts = contextsOfBody(await readJsonOrArray(ctx, event));
    return await change(target, (rule) => (checksOn(rule), { ...rule, required_status_contexts: [...new Set([...rule.required_status_contexts, ...contexts])] }));
  });

  app.patch(`${REPO}/branches/**:branch`, async (event) => {
    const target = await writeTo(event, ['/required_status_checks', '/required_pull_request_reviews']);
    const body = await readJson(ctx, event);
    if (target.part === '/required_status_checks') {
      return await change(target, (rule) => {
        checksOn(rule);
        const contexts = contextsFromGitHub(body, '', rule.required_status_contexts);
        // repohost's rule requires checks while it names one: none would turn them off, which DELETE does.
        if (contexts.length === 0) throw refused('contexts', 'name at least one context; DELETE required_status_checks turns them off');
        return { ...rule, required_status_contexts: contexts };
      });
    }
    return await change(target, (rule) => {
      if (!rule.require_pull_request) throw new GitHubApiError(404, REVIEWS_OFF);
      const { approvals, bypass } = reviewsFromGitHub(body, '', { approvals: rule.required_approvals, bypass: rule.push_allowlist });
      return { ...rule, required_approvals: approvals, push_allowlist: bypass };
    });
  });

  app.delete(`${REPO}/branches/**:branch`, async (event) => {
    const path = protectionPath(pathParam(event, 'branch'));
    if (path?.part === '') {
      const { repo, user } = await adminOf(ctx, event);
      // Only a rule of exactly this name: one of a glob (set under /api/v1 or the pages) covers other branches too.
      await ctx.protection.remove(repo, user, path.branch).catch((error: unknown) => {
        throw isRepoHostError(error) && error.kind === 'not_found' ? new GitHubApiError(404, 'Branch not protected') : error;
      });
      return noContent();
    }
    const target = await writeTo(event, ['/required_status_checks', '/required_status_checks/contexts', '/enforce_admins', '/required_pull_request_reviews']);
    switch (target.part) {
      case '/required_status_checks/contexts': {
        const removed = new Set(contextsOfBody(await readJsonOrArray(ctx, event)));
        return await change(target, (rule) => (checksOn(rule), { ...rule, required_status_contexts: rule.required_status_contexts.filter((context) => !removed.has(context)) }));
      }
      case '/required_status_checks':
        await edited(target, (rule) => (checksOn(rule), { ...rule, required_status_contexts: [] }));
        break;
      case '/enforce_admins':
        await edited(target, (rule) => ({ ...rule, enforce_admins: false }));
        break;
      default:
        await edited(target, (rule) => {
          if (!rule.require_pull_request) throw new GitHubApiError(404, REVIEWS_OFF);
          return { ...rule, require_pull_request: false, required_approvals: 0, push_allowlist: [] };
        });
    }
    return noContent();
  });
}
