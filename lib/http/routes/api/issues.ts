import type { H3 } from 'h3';
import type { AppContext } from '../../../context.js';
import { parseIssueFilter } from '../../../services/issues.js';
import { parseLabelNames } from '../../../services/labels.js';
import { requireUser } from '../../auth.js';
import { jsonAnswer, rememberedAnswer } from '../../answer-cache.js';
import { pageOf } from '../../pagination.js';
import { idParam, pathParam, queryString, readForm } from '../../validate.js';
import { repoFromPath } from './lookup.js';

const ISSUE = '/api/v1/repos/:owner/:repo/issues/:id';

export function mountIssueRoutes(app: H3, ctx: AppContext): void {
  app.get('/api/v1/repos/:owner/:repo/issues', async (event) => {
    const repo = await repoFromPath(ctx, event);
    const answer = await rememberedAnswer(ctx, event, async () => {
      const filter = parseIssueFilter({
        status: queryString(event, 'status') ?? queryString(event, 'state'),
        labels: queryString(event, 'labels'),
        sort: queryString(event, 'sort'),
        direction: queryString(event, 'direction'),
      });
      const page = pageOf(ctx, event);
      const { items, total } = await ctx.issues.list(repo, filter, page);
      return page.respond(total, items.map((issue) => ctx.issues.summary(issue)));
    });
    return jsonAnswer(event, answer);
  });

  app.post('/api/v1/repos/:owner/:repo/issues', async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.issues.summary(await ctx.issues.create(repo, user, { title: form.title, body: form.body }));
  });

  app.get(ISSUE, async (event) => {
    const repo = await repoFromPath(ctx, event);
    return ctx.issues.summary(await ctx.issues.get(repo, idParam(event, 'id')));
  });

  app.patch(ISSUE, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.issues.summary(await ctx.issues.update(repo, user, idParam(event, 'id'), { title: form.title, body: form.body, status: form.status ?? form.state }));
  });

  app.get(`${ISSUE}/comments`, async (event) => {
    const repo = await repoFromPath(ctx, event);
    const page = pageOf(ctx, event);
    const { items, total } = await ctx.issues.comments(repo, idParam(event, 'id'), page);
    return page.respond(total, items);
  });

  app.post(`${ISSUE}/comments`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.issues.comment(repo, idParam(event, 'id'), user, form.body);
  });

  app.patch(`${ISSUE}/comments/:comment_id`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const form = await readForm(event, ctx.options.maxBodyBytes);
    return ctx.issues.editComment(repo, idParam(event, 'id'), idParam(event, 'comment_id'), user, form.body);
  });

  app.delete(`${ISSUE}/comments/:comment_id`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    await ctx.issues.deleteComment(repo, idParam(event, 'id'), idParam(event, 'comment_id'), user);
    return new Response(null, { status: 204 });
  });

  // Labels of one issue: replace the set (PUT), add (POST), remove one by name (DELETE); each answers the labels now on it.
  for (const [method, replace] of [['put', true], ['post', false]] as const) {
    app[method](`${ISSUE}/labels`, async (event) => {
      const user = await requireUser(ctx, event);
      const repo = await repoFromPath(ctx, event);
      const form = await readForm(event, ctx.options.maxBodyBytes);
      const issue = await ctx.issues.get(repo, idParam(event, 'id'));
      await ctx.labels.setOnIssue(repo, user, issue, parseLabelNames(form.labels ?? []), replace);
      return (await ctx.issues.get(repo, issue.id)).labels;
    });
  }

  app.delete(`${ISSUE}/labels/:name`, async (event) => {
    const user = await requireUser(ctx, event);
    const repo = await repoFromPath(ctx, event);
    const issue = await ctx.issues.get(repo, idParam(event, 'id'));
    await ctx.labels.removeFromIssue(repo, user, issue, pathParam(event, 'name'));
    return (await ctx.issues.get(repo, issue.id)).labels;
  });
}
