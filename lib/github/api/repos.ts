import type { H3 } from 'h3';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { currentUser, requireUser } from '../../http/auth.js';
import { pathParam } from '../../http/validate.js';
import { optionalFlag } from '../../services/text-fields.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { created, githubPage, noContent, readJson, validationFailed } from './http.js';
import { apiUrl, REPO, repoOf, repositoryFor, shapesOf, V3 } from './lookup.js';

/** Fields of `PATCH /repos/:owner/:repo` this host can change (the rest are refused, never silently dropped). */
const EDITABLE = new Set(['name']);

/** Repositories: create (with `auto_init`), read, rename, delete; branches, tags, a collaborator's permission. */
export function mountRepos(app: H3, ctx: AppContext): void {
  app.get(REPO, async (event) => repositoryFor(ctx, await repoOf(ctx, event), await currentUser(ctx, event)));

  app.post(`${V3}/user/repos`, async (event) => {
    const user = await requireUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.name === undefined) throw validationFailed({ resource: 'Repository', field: 'name', code: 'missing_field' });
    const autoInit = optionalFlag('auto_init', body.auto_init, false);
    const repo = await ctx.repos.create(user, { name: body.name, description: body.description ?? undefined, visibility: optionalFlag('private', body.private, false) ? 'private' : 'public' });
    if (autoInit) {
      // GitHub's initial commit: a README named after the repository, made by the caller.
      const readme = `# ${repo.name}\n${repo.description ? `\n${repo.description}\n` : ''}`;
      await ctx.gitData.changeFile(repo, user, { path: 'README.md', message: 'Initial commit', content: Buffer.from(readme) });
    }
    return created(event, repositoryFor(ctx, ctx.repos.findByName(repo.owner_name, repo.name)!, user));
  });

  app.patch(REPO, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const body = await readJson(ctx, event);
    const refused = Object.keys(body).filter((field) => !EDITABLE.has(field) && !unchanged(repo, field, body[field]));
    if (refused.length > 0) {
      throw validationFailed(...refused.map((field) => ({ resource: 'Repository', field, code: 'custom' as const, message: `repohost cannot change ${field} through this API` })));
    }
    const renamed = body.name === undefined ? repo : await ctx.repos.rename(user, repo.owner_name, repo.name, body.name);
    return repositoryFor(ctx, renamed, user);
  });

  app.delete(REPO, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    await ctx.repos.remove(user, repo.owner_name, repo.name);
    return noContent();
  });

  app.get(`${REPO}/branches`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = ctx.repos.branches(repo, page);
    return page.respond(total, items.map((branch) => branchSummary(ctx, repo, branch.name, branch.commit_sha)));
  });

  // Branch names may hold slashes (`feature/x`): the rest of the path is the name.
  app.get(`${REPO}/branches/**:branch`, async (event) => {
    const repo = await repoOf(ctx, event);
    const name = pathParam(event, 'branch');
    const sha = (await ctx.gitData.refsOf(repo)).get(`refs/heads/${name}`);
    if (!sha) throw notFound('Branch not found');
    const { commit } = await ctx.gitData.commitWithFiles(repo, sha);
    return { ...branchSummary(ctx, repo, name, sha), commit: shapesOf(ctx).commit(ctx.store, repo, commit) };
  });

  app.get(`${REPO}/tags`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.gitData.tags(repo, page);
    return page.respond(total, items.map((tag) => ({ name: tag.name, commit: { sha: tag.commit, url: commitUrl(ctx, repo, tag.commit) } })));
  });

  app.get(`${REPO}/collaborators/:username/permission`, async (event) => {
    const viewer = await requireUser(ctx, event);
    const repo = await repoOf(ctx, event);
    const user = ctx.users.byName(pathParam(event, 'username'));
    if (!user) throw notFound();
    const level = ctx.collaborators.permissionOf(repo, viewer, user);
    return { permission: level, role_name: level, user: shapesOf(ctx).user(user) };
  });
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

function branchSummary(ctx: AppContext, repo: RepositoryRow, name: string, sha: string) {
  return { name, commit: { sha, url: commitUrl(ctx, repo, sha) }, protected: ctx.protection.ruleFor(repo, name) !== undefined };
}
