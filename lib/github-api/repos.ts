import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { isRepoHostError, notFound } from '../errors.js';
import { currentUser, requireUser } from '../http/auth.js';
import { pathParam, queryString } from '../http/validate.js';
import { permissionFlags, requireAccess, type AccessLevel } from '../services/permissions.js';
import { optionalFlag } from '../services/text-fields.js';
import { MAX_DESCRIPTION } from '../services/repos.js';
import { collaboratorPermission } from '../store/queries/collaborators.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { branchProtection, protectionPath } from './branch-protection.js';
import type { BranchProtection } from '../services/branch-protection.js';
import { nodeId } from '../github/api-ids.js';
import { conflictAs, created, GitHubApiError, githubPage, noContent, readJson, unprocessable, validationFailed } from './http.js';
import { apiUrl, REPO, repoAndUser, repoOf, repositoryFor, shapesOf, V3 } from './lookup.js';
import { ownValue } from '../own-value.js';

/** Fields of `PATCH /repos/:owner/:repo` this host can change (the rest are refused, never silently dropped). */
const EDITABLE = new Set(['name', 'description', 'private', 'visibility', 'default_branch']);

/** GitHub's `private` (a boolean) or `visibility` of a repository edit, as `public`/`private`; undefined when absent. */
function visibilityOf(body: Record<string, unknown>): 'public' | 'private' | undefined {
  if (body.private !== undefined && typeof body.private !== 'boolean') throw validationFailed({ resource: 'Repository', field: 'private', code: 'invalid' });
  if (body.visibility !== undefined && body.visibility !== 'public' && body.visibility !== 'private') {
    throw validationFailed({ resource: 'Repository', field: 'visibility', code: 'invalid', message: "visibility must be 'public' or 'private' (repohost has no internal repositories)" });
  }
  const fromPrivate = body.private === undefined ? undefined : body.private ? 'private' : 'public';
  if (fromPrivate && body.visibility !== undefined && fromPrivate !== body.visibility) throw validationFailed({ resource: 'Repository', field: 'visibility', code: 'invalid', message: 'private and visibility disagree' });
  return (body.visibility as 'public' | 'private' | undefined) ?? fromPrivate;
}

const empty = (value: unknown) => value === null || value === '';
/**
 * GitHub's fields of `POST /user/repos` beyond `name`, `description`, `private` and `auto_init`: taken when they ask
 * for what this host does anyway (what its answer says), refused otherwise, never silently dropped (a `.gitignore`
 * or licence asked for and not made, `has_issues: false` answered `true`).
 */
const CREATE_SETTLED: Readonly<Record<string, (value: unknown) => boolean>> = {
  visibility: (value) => value === 'public' || value === 'private',
  homepage: empty,
  gitignore_template: empty,
  license_template: empty,
  team_id: (value) => value === null,
  has_issues: (value) => value === true,
  has_projects: (value) => value === false,
  has_wiki: (value) => value === false,
  has_discussions: (value) => value === false,
  is_template: (value) => value === false,
  allow_squash_merge: (value) => value === true,
  allow_merge_commit: (value) => value === true,
  allow_rebase_merge: (value) => value === true,
  allow_auto_merge: (value) => value === false,
  delete_branch_on_merge: (value) => value === false,
  use_squash_pr_title_as_default: (value) => value === false,
  squash_merge_commit_title: (value) => value === null,
  squash_merge_commit_message: (value) => value === null,
  merge_commit_title: (value) => value === null,
  merge_commit_message: (value) => value === null,
};

/** Repositories: create (with `auto_init`), read, rename, delete; branches, tags, a collaborator's permission. */
export function mountRepos(app: H3, ctx: AppContext): void {
  /** GitHub's collaborator: a user with what they may do in the repository and their role. */
  const collaboratorShape = (user: UserRow, permission: AccessLevel) => {
    const { admin, push, pull } = permissionFlags(permission);
    return { ...shapesOf(ctx).user(user), permissions: { admin, maintain: admin, push, triage: push, pull }, role_name: permission };
  };
  // The repository's own answer (read, made, edited) has GitHub's full repository fields besides: who watches it, and its
  // (forkless) network.
  const fullRepository = async (repo: RepositoryRow, viewer: UserRow | undefined) => ({
    ...(await repositoryFor(ctx, repo, viewer)),
    subscribers_count: await ctx.social.watchers(repo),
    network_count: 0,
  });
  app.get(REPO, async (event) => fullRepository(await repoOf(ctx, event), await currentUser(ctx, event)));

  app.post(`${V3}/user/repos`, async (event) => {
    const user = await requireUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.name === undefined) throw validationFailed({ resource: 'Repository', field: 'name', code: 'missing_field' });
    const refused = Object.keys(body).filter((field) => {
      const settled = ownValue(CREATE_SETTLED, field);
      return settled !== undefined && !settled(ownValue(body, field));
    });
    const isPrivate = optionalFlag('private', body.private, body.visibility === 'private');
    if (body.visibility !== undefined && (body.visibility === 'private') !== isPrivate && !refused.includes('visibility')) refused.push('visibility');
    if (refused.length > 0) {
      throw validationFailed(...refused.map((field) => ({ resource: 'Repository', field, code: 'custom' as const, message: `repohost does not support ${field}: ${JSON.stringify(ownValue(body, field))}` })));
    }
    const autoInit = optionalFlag('auto_init', body.auto_init, false);
    const input = { name: body.name, description: body.description ?? undefined, visibility: isPrivate ? 'private' : 'public' } as const;
    const repo = await conflictAs(() => ctx.repos.create(user, input), () => nameTaken('Repository creation failed.'));
    if (autoInit) {
      // GitHub's initial commit: a README named after the repository, made by the caller.
      const readme = `# ${repo.name}\n${repo.description ? `\n${repo.description}\n` : ''}`;
      await ctx.gitData.changeFile(repo, user, { path: 'README.md', message: 'Initial commit', content: Buffer.from(readme) });
    }
    return created(event, await fullRepository((await ctx.repos.findByName(repo.owner_name, repo.name))!, user));
  });

  /** A rename onto another repository's name is GitHub's 422; other conflicts (the repository is busy) stay 409. */
  const renameTo = async (user: UserRow, repo: RepositoryRow, name: unknown) => {
    try {
      return await ctx.repos.rename(user, repo.owner_name, repo.name, name);
    } catch (error) {
      const clash = typeof name === 'string' ? await ctx.repos.findByName(repo.owner_name, name) : undefined;
      if (isRepoHostError(error) && error.kind === 'conflict' && clash && clash.id !== repo.id) throw nameTaken('Validation Failed');
      throw error;
    }
  };

  app.patch(REPO, async (event) => {
    const user = await requireUser(ctx, event);
    // Admin first: an edit that changes nothing is still an edit (it answered 200 to readers, issue 38).
    const found = await repoOf(ctx, event);
    const repo = await ctx.repos.administeredBy(user, found.owner_name, found.name);
    const body = await readJson(ctx, event);
    const refused = Object.keys(body).filter((field) => !EDITABLE.has(field) && !unchanged(repo, field, ownValue(body, field)));
    if (refused.length > 0) {
      throw validationFailed(...refused.map((field) => ({ resource: 'Repository', field, code: 'custom' as const, message: `repohost cannot change ${field} through this API` })));
    }
    const visibility = visibilityOf(body);
    // Checked before anything changes, so a bad field never leaves half an edit behind.
    if (body.description !== undefined && body.description !== null && (typeof body.description !== 'string' || body.description.length > MAX_DESCRIPTION)) {
      throw validationFailed({ resource: 'Repository', field: 'description', code: 'invalid', message: `description must be a string of at most ${MAX_DESCRIPTION} characters` });
    }
    if (body.default_branch !== undefined && (typeof body.default_branch !== 'string' || !(await ctx.gitData.refsOf(repo)).has(`refs/heads/${body.default_branch}`))) {
      throw validationFailed({ resource: 'Repository', field: 'default_branch', code: 'invalid', message: `Cannot update default branch for this repository to ${JSON.stringify(body.default_branch)}: no such branch` });
    }
    let edited = body.name === undefined ? repo : await renameTo(user, repo, body.name);
    if (body.description !== undefined || visibility !== undefined) edited = await ctx.repos.updateDetails(user, edited.owner_name, edited.name, { description: body.description, visibility });
    if (body.default_branch !== undefined) edited = await ctx.repos.setDefaultBranch(user, edited.owner_name, edited.name, body.default_branch);
    return await fullRepository(edited, user);
  });

  app.delete(REPO, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    await ctx.repos.remove(user, repo.owner_name, repo.name);
    return noContent();
  });

  app.get(`${REPO}/branches`, async (event) => {
    const repo = await repoOf(ctx, event);
    // The list pages in the database, where protection (branch globs) is not known: refused rather than ignored.
    if (queryString(event, 'protected')) throw validationFailed({ resource: 'Branch', field: 'protected', code: 'invalid', message: 'repohost does not filter branches by protection' });
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.repos.branches(repo, page);
    const ruleOf = await ctx.protection.rulesOf(repo);
    return page.respond(total, items.map((branch) => branchSummary(ctx, repo, branch.name, branch.commit_sha, ruleOf)));
  });

  // A repository's topics (GitHub's `{ names }`), replaced whole by an admin; a topic GitHub would refuse is 422.
  app.get(`${REPO}/topics`, async (event) => ({ names: await ctx.topics.get(await repoOf(ctx, event)) }));

  app.put(`${REPO}/topics`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.names === undefined) throw validationFailed({ resource: 'Repository', field: 'names', code: 'missing_field' });
    const names = await ctx.topics.replace(repo, user, body.names).catch((error: unknown) => {
      throw isRepoHostError(error) && error.kind === 'invalid' ? validationFailed({ resource: 'Repository', field: 'topics', code: 'invalid', message: error.message }) : error;
    });
    return { names };
  });

  // The default branch's authors, most commits first: accounts, and with `anon` the addresses none stands for. 204
  // for an empty repository, as on GitHub.
  app.get(`${REPO}/contributors`, async (event) => {
    const repo = await repoOf(ctx, event);
    // GitHub's: `1` or `true` include them, anything else does not.
    const anon = queryString(event, 'anon');
    const page = githubPage(ctx, event);
    const contributors = await ctx.contributors.list(repo, anon === '1' || anon === 'true');
    if (!contributors) return noContent();
    const shapes = shapesOf(ctx);
    return page.respond(
      contributors.length,
      contributors.slice(page.offset, page.offset + page.limit).map((contributor) =>
        contributor.user
          ? { ...shapes.user(contributor.user), contributions: contributor.contributions }
          : { email: contributor.email, name: contributor.name, type: 'Anonymous', contributions: contributor.contributions },
      ),
    );
  });

  // Merging a branch or commit into a branch (octokit's `repos.merge`): 201 with the merge commit, 204 when the base
  // already holds the head, GitHub's 404s and 409 in its words.
  app.post(`${REPO}/merges`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const missing = (['base', 'head'] as const).filter((field) => body[field] === undefined);
    if (missing.length > 0) throw validationFailed(...missing.map((field) => ({ resource: 'Merge', field, code: 'missing_field' as const })));
    const outcome = await ctx.branchMerges.mergeIntoBranch(repo, user, body.base, body.head, body.commit_message);
    if (outcome === 'up-to-date') return noContent();
    if (outcome === 'no-base') throw new GitHubApiError(404, 'Base does not exist');
    if (outcome === 'no-head') throw new GitHubApiError(404, 'Head does not exist');
    if (outcome === 'conflict') throw new GitHubApiError(409, 'Merge conflict');
    const { commit, files } = await ctx.gitData.commitWithFiles(repo, outcome.merged, { offset: 0, limit: 300 });
    return created(event, await shapesOf(ctx).code.commit(ctx.store, repo, commit, files));
  });

  // Branch names may hold slashes (`feature/x`): the rest of the path is the name.
  app.get(`${REPO}/branches/**:branch`, async (event) => {
    const repo = await repoOf(ctx, event);
    const name = pathParam(event, 'branch');
    const refs = await ctx.gitData.refsOf(repo);
    const sha = refs.get(`refs/heads/${name}`);
    // `/branches/:branch/protection` or one of its parts, where a branch of that whole name does not exist (the
    // `protection_url` of a branch).
    const protection = protectionPath(name);
    if (!sha && protection && refs.has(`refs/heads/${protection.branch}`)) return await branchProtection(ctx, repo, await currentUser(ctx, event), protection.branch, protection.part);
    if (!sha) throw notFound('Branch not found');
    const commit = await ctx.gitData.commit(repo, sha);
    return {
      ...branchSummary(ctx, repo, name, sha, await ctx.protection.rulesOf(repo)),
      commit: await shapesOf(ctx).code.commit(ctx.store, repo, commit),
      // `html`: the branch's page here (the code browser's `src/branch/…`, as Gitea's).
      _links: { self: apiUrl(ctx, repo, `/branches/${encodeURIComponent(name)}`), html: `${ctx.baseUrl()}/${repo.owner_name}/${repo.name}/src/branch/${pathOf(name)}` },
    };
  });

  app.get(`${REPO}/tags`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.gitData.tags(repo, page);
    return page.respond(
      total,
      items.map((tag) => ({
        name: tag.name,
        commit: { sha: tag.commit, url: commitUrl(ctx, repo, tag.commit) },
        zipball_url: apiUrl(ctx, repo, `/zipball/${pathOf(tag.name)}`),
        tarball_url: apiUrl(ctx, repo, `/tarball/${pathOf(tag.name)}`),
        node_id: nodeId('Ref', `refs/tags/${tag.name}`),
      })),
    );
  });

  // The owner and the collaborators with GitHub's five permission flags (`triage` and `maintain` as repohost's write
  // and admin give them). `affiliation`: `all` (the default) and `direct` hold the owner, `outside` only those added.
  app.get(`${REPO}/collaborators`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const affiliation = queryString(event, 'affiliation') ?? 'all';
    if (!AFFILIATIONS.includes(affiliation)) throw validationFailed({ resource: 'Repository', field: 'affiliation', code: 'invalid', message: `affiliation must be one of ${AFFILIATIONS.join(', ')}` });
    if (queryString(event, 'permission') !== undefined) throw unprocessable('repohost does not filter collaborators by permission');
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.collaborators.listWithOwner(repo, viewer, page, affiliation !== 'outside');
    return page.respond(
      total,
      items.map(({ user, permission }) => {
        return collaboratorShape(user, permission);
      }),
    );
  });

  // "Is this user a collaborator?": 204 for the owner and every collaborator whatever their permission, 404 for
  // anyone else (or no such account). As on GitHub it needs a caller with push access: 401 anonymous, 404 when the
  // repository is hidden from the caller, 403 for one who may only read.
  app.get(`${REPO}/collaborators/:username`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    await requireAccess(ctx.store, viewer, repo, 'write', 'Must have push access to view repository collaborators.');
    const user = await ctx.users.byName(pathParam(event, 'username'));
    if (!user || (user.id !== repo.owner_id && await collaboratorPermission(ctx.store, repo.id, user.id) === undefined)) throw notFound();
    return noContent();
  });

  // Adding a collaborator: GitHub invites the account (201 with the invitation) or, for one that needs none, answers
  // 204; repohost has no invitations, so the account is added at once (204). GitHub's `pull`/`push`/`admin` are
  // repohost's read/write/admin; `triage` and `maintain` have no counterpart and are refused.
  app.put(`${REPO}/collaborators/:username`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const body = await readJson(ctx, event);
    const permission = body.permission ?? 'push';
    const level = ownValue<string>({ pull: 'read', push: 'write', admin: 'admin' }, String(permission));
    if (!level) throw validationFailed({ resource: 'Repository', field: 'permission', code: 'invalid', message: "repohost's permissions are pull, push and admin" });
    await ctx.collaborators.set(repo, viewer, pathParam(event, 'username'), level);
    return noContent();
  });

  app.delete(`${REPO}/collaborators/:username`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    await ctx.collaborators.remove(repo, viewer, pathParam(event, 'username'));
    return noContent();
  });

  // A writer's own event for the repository's webhooks (GitHub's `repository_dispatch`): 204, as on GitHub.
  app.post(`${REPO}/dispatches`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    await ctx.dispatches.dispatch(repo, viewer, await readJson(ctx, event));
    return noContent();
  });

  app.get(`${REPO}/collaborators/:username/permission`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const user = await ctx.users.byName(pathParam(event, 'username'));
    if (!user) throw notFound();
    const level = await ctx.collaborators.permissionOf(repo, viewer, user);
    // GitHub's `user` here is a collaborator: with what they may do and their role.
    return { permission: level, role_name: level, user: collaboratorShape(user, level) };
  });
}

/** GitHub's `affiliation` filters of the collaborator list. */
const AFFILIATIONS: readonly string[] = ['outside', 'direct', 'all'];

/**
 * GitHub's refusal of a repository name the account already uses: `Repository creation failed.` on create,
 * `Validation Failed` on a rename, both with this error (a 409 under `/api/v1`).
 */
function nameTaken(message: string): GitHubApiError {
  return new GitHubApiError(422, message, [{ resource: 'Repository', code: 'custom', field: 'name', message: 'name already exists on this account' }]);
}

/** A field sent with the value it already has changes nothing, so it needs no support. */
function unchanged(repo: RepositoryRow, field: string, value: unknown): boolean {
  if (field === 'private') return value === (repo.is_private === 1);
  if (field === 'description') return (value ?? '') === repo.description;
  if (field === 'default_branch') return value === repo.default_branch;
  return false;
}

function commitUrl(ctx: AppContext, repo: RepositoryRow, sha: string): string {
  return apiUrl(ctx, repo, `/commits/${sha}`);
}

/** A ref's name in a URL path: each segment encoded, its slashes kept (archive routes take names with slashes). */
const pathOf = (name: string) => name.split('/').map(encodeURIComponent).join('/');

/**
 * A branch as GitHub lists it, with its protection's summary (which checks it requires, and of whom) and the URL of
 * its protection (PyGithub's `get_protection()` follows it).
 */
function branchSummary(ctx: AppContext, repo: RepositoryRow, name: string, sha: string, ruleOf: (branch: string) => BranchProtection | undefined) {
  const rule = ruleOf(name);
  const contexts = rule?.required_status_contexts ?? [];
  return {
    name,
    commit: { sha, url: commitUrl(ctx, repo, sha) },
    protected: rule !== undefined,
    protection: {
      enabled: rule !== undefined,
      required_status_checks: {
        enforcement_level: contexts.length === 0 ? 'off' : rule!.enforce_admins ? 'everyone' : 'non_admins',
        contexts,
        checks: contexts.map((context) => ({ context, app_id: null })),
      },
    },
    protection_url: apiUrl(ctx, repo, `/branches/${encodeURIComponent(name)}/protection`),
  };
}
