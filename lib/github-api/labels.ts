import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { pathParam } from '../http/validate.js';
import { conflictAs, created, githubPage, noContent, readJson, refuseTooLong, validationFailed } from './http.js';
import { REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

/** GitHub's answer to a label name the repository already has (a 409 under `/api/v1`). */
const labelExists = () => validationFailed({ resource: 'Label', code: 'already_exists', field: 'name' });

/** Repository labels, named by their name in paths as on GitHub. */
export function mountLabels(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);
  const LABEL = `${REPO}/labels/:name`;

  app.get(`${REPO}/labels`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.labels.list(repo, page);
    return page.respond(total, items.map((label) => shapes.label(repo, label)));
  });

  app.post(`${REPO}/labels`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.name === undefined) throw validationFailed({ resource: 'Label', field: 'name', code: 'missing_field' });
    refuseTooLong('Label', 'description', body.description, MAX_DESCRIPTION);
    // GitHub's color is optional (a default grey); repohost's service needs one.
    const label = await conflictAs(() => ctx.labels.create(repo, user, { name: body.name, color: body.color ?? 'ededed', description: body.description ?? undefined }), labelExists);
    return created(event, shapes.label(repo, label));
  });

  app.get(LABEL, async (event) => {
    const repo = await repoOf(ctx, event);
    return shapes.label(repo, await ctx.labels.byName(repo, pathParam(event, 'name')));
  });

  app.patch(LABEL, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const current = await ctx.labels.byName(repo, pathParam(event, 'name'));
    refuseTooLong('Label', 'description', body.description, MAX_DESCRIPTION);
    const changes = { name: body.new_name ?? body.name ?? undefined, color: body.color ?? undefined, description: body.description ?? undefined };
    const label = await conflictAs(() => ctx.labels.update(repo, user, current.id, changes), labelExists);
    return shapes.label(repo, label);
  });

  app.delete(LABEL, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.labels.remove(repo, user, (await ctx.labels.byName(repo, pathParam(event, 'name'))).id);
    return noContent();
  });
}

/** GitHub's bound on a label's description (the spec API keeps Gitea's 200). */
const MAX_DESCRIPTION = 100;
