import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { integrationScope, mountApps } from './apps.js';
import { bodyFormats } from './body-formats.js';
import { mountBranchProtection } from './branch-protection.js';
import { mountChecks } from './checks.js';
import { mountCommits } from './commits.js';
import { mountContents } from './contents.js';
import { mountGitData } from './git-data.js';
import { mountHooks } from './hooks.js';
import { GitHubApiError, githubEnvelope } from './http.js';
import { mountIssues } from './issues.js';
import { mountKeys } from './keys.js';
import { mountLabels } from './labels.js';
import { mountMarkdown } from './markdown.js';
import { mountMeta } from './meta.js';
import { mountMilestones } from './milestones.js';
import { mountNotifications } from './notifications.js';
import { mountPulls } from './pulls.js';
import { mountReleases } from './releases.js';
import { mountRepos } from './repos.js';
import { mountReviews } from './reviews.js';
import { mountSearch } from './search.js';
import { mountStatuses } from './statuses.js';
import { mountUsers } from './users.js';
import { mountReactions } from './reactions.js';
import { mountDeployments } from './deployments.js';
import { mountEnvironments } from './environments.js';
import { mountCommitComments } from './commit-comments.js';
import { mountStars } from './stars.js';
import { mountWatching } from './watching.js';
import { REPO, V3 } from './lookup.js';
import { bearerJwt, currentUser, refuseIntegration } from '../http/auth.js';
import { getRequestHeader } from 'h3';
import { UPLOADS_PREFIX } from '../github/release-shapes.js';

/**
 * The GitHub-compatible REST API at `/api/v3` (GitHub Enterprise Server's path, so `new Octokit({ baseUrl })` works
 * unchanged for the subset served here; asset uploads at its `/api/uploads`). Thin translators over the services /api/v1 uses: numbers to rows,
 * GitHub's field names and shapes, GitHub's errors. Anything else under /api/v3 is a 404 naming what is missing.
 */
export function mountGitHubApi(app: H3, ctx: AppContext, log: (message: string) => void): void {
  const envelope = githubEnvelope(ctx, ctx.githubRateLimits, log);
  app.use(`${V3}/**`, envelope);
  app.use(`${UPLOADS_PREFIX}/**`, envelope);
  app.use(`${V3}/**`, bodyFormats(ctx));
  // Credentials that name nobody (unknown, revoked or expired tokens, wrong passwords) are refused, as GitHub refuses
  // them everywhere, rather than served as an anonymous caller; an app's JSON web token is checked by its routes.
  for (const path of [`${V3}/**`, V3, `${UPLOADS_PREFIX}/**`]) {
    app.use(path, async (event) => {
      if (getRequestHeader(event, 'authorization') && !bearerJwt(event) && !(await currentUser(ctx, event))) throw new GitHubApiError(401, 'Bad credentials');
    });
  }
  // What belongs to an account is not an app's, whatever its installation may do (GitHub's 403 for installation tokens).
  for (const path of [`${V3}/user`, `${V3}/user/**`, `${V3}/notifications`, `${V3}/notifications/**`, `${REPO}/notifications`]) app.use(path, async (event) => await refuseIntegration(ctx, event));
  for (const path of [REPO, `${REPO}/**`, `${UPLOADS_PREFIX}/repos/**`]) app.use(path, async (event) => await integrationScope(ctx, event));
  mountApps(app, ctx);
  mountMeta(app, ctx);
  mountMarkdown(app, ctx);
  mountUsers(app, ctx);
  mountKeys(app, ctx);
  mountRepos(app, ctx);
  mountBranchProtection(app, ctx);
  mountGitData(app, ctx);
  mountContents(app, ctx);
  mountCommits(app, ctx);
  mountIssues(app, ctx);
  mountLabels(app, ctx);
  mountMilestones(app, ctx);
  mountPulls(app, ctx);
  mountReviews(app, ctx);
  mountStatuses(app, ctx);
  mountChecks(app, ctx);
  mountReleases(app, ctx);
  mountReactions(app, ctx);
  mountDeployments(app, ctx);
  mountEnvironments(app, ctx);
  mountCommitComments(app, ctx);
  mountStars(app, ctx);
  mountWatching(app, ctx);
  mountSearch(app, ctx);
  mountHooks(app, ctx);
  mountNotifications(app, ctx);
}
