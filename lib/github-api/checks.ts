import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { pathParam, queryString } from '../http/validate.js';
import { CHECK_STATUSES, type CheckSuite } from '../services/checks.js';
import type { CheckRunFilter, CheckRunRow } from '../store/queries/checks.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { AppShapes } from '../github/app-shapes.js';
import { CheckShapes } from '../github/check-shapes.js';
import { created, githubPage, readJson, validationFailed } from './http.js';
import { numberParam, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

/** The filters of GitHub's check run lists; `app_id` keeps the runs of that app's installations. */
async function runFilter(ctx: AppContext, event: H3Event): Promise<CheckRunFilter> {
  const filter = queryString(event, 'filter') ?? 'latest';
  if (filter !== 'latest' && filter !== 'all') throw validationFailed({ resource: 'CheckRun', field: 'filter', code: 'invalid' });
  const status = queryString(event, 'status');
  if (status !== undefined && !(CHECK_STATUSES as readonly string[]).includes(status)) throw validationFailed({ resource: 'CheckRun', field: 'status', code: 'invalid' });
  const appId = queryString(event, 'app_id');
  if (appId !== undefined && !/^\d{1,15}$/.test(appId)) throw validationFailed({ resource: 'CheckRun', field: 'app_id', code: 'invalid' });
  // An app that does not exist made no runs (an id no account has).
  const creatorId = appId === undefined ? undefined : ((await ctx.apps.byId(Number(appId)))?.bot_id ?? -1);
  return { name: queryString(event, 'check_name'), status, latest: filter === 'latest', creatorId };
}

/**
 * GitHub's Checks API: check runs (create, update, read, list for a commit or a suite, annotations) and the one check
 * suite per commit they belong to. Lists answer `{ total_count, check_runs }` as on GitHub.
 */
export function mountChecks(app: H3, ctx: AppContext): void {
  const shapes = new CheckShapes(() => ctx.baseUrl());
  const runs = async (repo: RepositoryRow, rows: readonly CheckRunRow[]) => await ctx.checks.shapeRuns(ctx.store, repo, rows);
  const appShapes = new AppShapes(() => ctx.baseUrl(), shapesOf(ctx));
  /** Suites as GitHub shows them, each with its app, its head commit and its repository. */
  const suiteShapes = async (repo: RepositoryRow, suites: readonly CheckSuite[]) => {
    const pulls = await ctx.checks.pullsAt(repo, suites.map((suite) => suite.head_sha));
    const apps = await appShapes.appsByIds(ctx.store, suites.map((suite) => suite.app_id));
    const heads = await ctx.checks.headCommits(repo, suites.map((suite) => suite.head_sha));
    const repository = await shapesOf(ctx).repository(ctx.store, repo);
    return suites.map((suite) => ({ ...shapes.suite(repo, suite, pulls, apps.get(suite.app_id) ?? null), head_commit: heads.get(suite.head_sha) ?? null, repository }));
  };
  const RUN = `${REPO}/check-runs/:check_run_id`;
  const SUITE = `${REPO}/check-suites/:check_suite_id`;

  app.post(`${REPO}/check-runs`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (Array.isArray(body.actions) && body.actions.length > 0) throw validationFailed({ resource: 'CheckRun', field: 'actions', code: 'invalid', message: 'repohost does not offer check run actions' });
    return created(event, (await runs(repo, [await ctx.checks.create(repo, user, body)]))[0]);
  });

  app.get(RUN, async (event) => {
    const repo = await repoOf(ctx, event);
    return (await runs(repo, [await ctx.checks.get(repo, numberParam(event, 'check_run_id'))]))[0];
  });

  app.patch(RUN, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    return (await runs(repo, [await ctx.checks.update(repo, user, numberParam(event, 'check_run_id'), body)]))[0];
  });

  app.get(`${RUN}/annotations`, async (event) => {
    const repo = await repoOf(ctx, event);
    const run = await ctx.checks.get(repo, numberParam(event, 'check_run_id'));
    const page = githubPage(ctx, event);
    const items = await ctx.checks.annotations(repo, run.id, page);
    return page.respond(run.annotations_count, items.map((annotation) => shapes.annotation(repo, run.head_sha, annotation)));
  });

  app.get(`${REPO}/commits/:ref/check-runs`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.checks.forRef(repo, pathParam(event, 'ref'), await runFilter(ctx, event), page);
    return { total_count: total, check_runs: page.respond(total, await runs(repo, items)) };
  });

  app.get(`${SUITE}/check-runs`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.checks.forSuite(repo, numberParam(event, 'check_suite_id'), await runFilter(ctx, event), page);
    return { total_count: total, check_runs: page.respond(total, await runs(repo, items)) };
  });

  app.get(SUITE, async (event) => {
    const repo = await repoOf(ctx, event);
    return (await suiteShapes(repo, [await ctx.checks.suite(repo, numberParam(event, 'check_suite_id'))]))[0];
  });

  app.get(`${REPO}/commits/:ref/check-suites`, async (event) => {
    const repo = await repoOf(ctx, event);
    const appId = queryString(event, 'app_id');
    if (appId !== undefined && !/^\d{1,15}$/.test(appId)) throw validationFailed({ resource: 'CheckSuite', field: 'app_id', code: 'invalid' });
    if (queryString(event, 'check_name') !== undefined) throw validationFailed({ resource: 'CheckSuite', field: 'check_name', code: 'invalid', message: 'repohost does not filter check suites by check name' });
    const page = githubPage(ctx, event);
    const suites = await ctx.checks.suitesForRef(repo, pathParam(event, 'ref'), appId === undefined ? undefined : Number(appId));
    // A commit has a suite per app: few enough to page in memory (with GitHub's Link).
    return { total_count: suites.length, check_suites: await suiteShapes(repo, page.slice(suites)) };
  });

  // An app makes its suite of a commit (201), or finds the one it has (200).
  app.post(`${REPO}/check-suites`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const { suite, created: made } = await ctx.checks.createSuite(repo, user, (await readJson(ctx, event)).head_sha);
    const [shaped] = await suiteShapes(repo, [suite]);
    return made ? created(event, shaped) : shaped;
  });

  app.post(`${SUITE}/rerequest`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.checks.rerequestSuite(repo, user, numberParam(event, 'check_suite_id'));
    return created(event, {});
  });

  app.post(`${RUN}/rerequest`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await ctx.checks.rerequestRun(repo, user, numberParam(event, 'check_run_id'));
    return created(event, {});
  });
}
