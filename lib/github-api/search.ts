import type { H3 } from 'h3';
import type { AppContext } from '../context.js';
import { currentUser } from '../http/auth.js';
import { queryString } from '../http/validate.js';
import type { Conversation } from '../services/issues.js';
import { issuesByIds } from '../store/queries/issues.js';
import { pullsByIds } from '../store/queries/pulls.js';
import { repositoryById } from '../store/queries/repositories.js';
import type { GitHubIssue } from '../github/types.js';
import { githubPage, validationFailed } from './http.js';
import { shapesOf, V3 } from './lookup.js';

/** GitHub gives at most the first 1,000 results of a search. */
const MAX_RESULTS = 1000;

/** `GET /search/issues`: issues and pull requests (as issues) the query finds, in GitHub's search answer. */
export function mountSearch(app: H3, ctx: AppContext): void {
  app.get(`${V3}/search/issues`, async (event) => {
    const viewer = await currentUser(ctx, event);
    const page = githubPage(ctx, event);
    if (page.offset + page.limit > MAX_RESULTS) throw validationFailed({ resource: 'Search', field: 'page', code: 'invalid', message: `Only the first ${MAX_RESULTS} search results are available` });
    const { items, total } = await ctx.search.issues(viewer, queryString(event, 'q') ?? '', queryString(event, 'sort'), queryString(event, 'order'), page);
    // Shaped repository by repository (a page spans a handful), then put back in the search's order.
    const shaped = new Map<string, GitHubIssue>();
    for (const repoId of new Set(items.map((hit) => hit.repo_id))) {
      const repo = await repositoryById(ctx.store, repoId);
      // Deleted since the search ran: its hits are left out.
      if (!repo) continue;
      const ids = (kind: 'issue' | 'pull') => items.filter((hit) => hit.repo_id === repoId && hit.kind === kind).map((hit) => hit.id);
      const conversations: Conversation[] = [
        ...(await issuesByIds(ctx.store, repoId, ids('issue'))).map((issue) => ({ kind: 'issue' as const, issue })),
        ...(await pullsByIds(ctx.store, repoId, ids('pull'))).map((pull) => ({ kind: 'pull' as const, pull })),
      ];
      const issues = await shapesOf(ctx).conversations(ctx.store, repo, conversations);
      conversations.forEach((conversation, index) => shaped.set(`${conversation.kind}:${conversation.kind === 'issue' ? conversation.issue.id : conversation.pull.id}`, issues[index]!));
    }
    // GitHub's relevance `score` of each hit: repohost ranks by its sort alone, every hit alike.
    const found = items.map((hit) => shaped.get(`${hit.kind}:${hit.id}`)).filter((issue): issue is GitHubIssue => issue !== undefined).map((issue) => ({ ...issue, score: 1 }));
    // `search_type`: repohost matches words as they are written, GitHub's `lexical` search.
    return { total_count: total, incomplete_results: false, search_type: 'lexical', items: page.respond(Math.min(total, MAX_RESULTS), found) };
  });
}
