import type { H3, H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { currentUser } from '../http/auth.js';
import { pathParam, queryString } from '../http/validate.js';
import { parseIssueFilter, referenceKey, type Conversation, type ReferenceSource } from '../services/issues.js';
import type { IssueFilter } from '../store/queries/issues.js';
import { lockReasonOf, type LockChange } from '../services/conversation-locks.js';
import { labelName, parseLabelNames } from '../services/labels.js';
import { atLeast } from '../services/permissions.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import type { GitHubCrossReference, GitHubIssue, GitHubIssueEvent, GitHubRepository, GitHubTimelineComment } from '../github/types.js';
import { commentOrderOf, created, githubPage, noContent, readJson, readJsonOrArray, remembered, sinceOf, unprocessable, validationFailed } from './http.js';
import { conversationOf, numberParam, REPO, repoAndUser, repoOf, shapesOf } from './lookup.js';

const ISSUE = `${REPO}/issues/:number`;
/** The most items of a timeline its pages reach (GitHub's timeline stops paging too). */
const MAX_TIMELINE_ITEMS = 10_000;

/**
 * Issues as GitHub serves them: one numbering with pull requests (which the list includes, marked `pull_request`),
 * comments on either, and the labels of an issue.
 */
export function mountIssues(app: H3, ctx: AppContext): void {
  const shapes = shapesOf(ctx);
  const issueShape = async (repo: RepositoryRow, conversation: Conversation): Promise<GitHubIssue> =>
    conversation.kind === 'issue' ? await shapes.issue(ctx.store, repo, conversation.issue) : await shapes.pullAsIssue(ctx.store, repo, conversation.pull);
  /** The conversation again after a change, as it is now. */
  const reread = async (repo: RepositoryRow, number: number) => await issueShape(repo, await conversationOf(ctx, repo, number));

  app.get(`${REPO}/issues`, async (event) => {
    const repo = await repoOf(ctx, event);
    return await remembered(ctx, event, async () => {
      // GitHub's sorts: the spec's two, and by comments.
      const sort = queryString(event, 'sort');
      const parsed = parseIssueFilter({ status: queryString(event, 'state'), labels: queryString(event, 'labels'), sort: sort === 'comments' ? undefined : sort, direction: queryString(event, 'direction') });
      const filter = { ...parsed, ...(sort === 'comments' ? { sort: 'comments' as const } : {}), ...await githubFilters(ctx, event) };
      const page = githubPage(ctx, event);
      const { items, total } = await ctx.issues.listWithPulls(repo, filter, page);
      return page.respond(total, await shapes.conversations(ctx.store, repo, items));
    });
  });

  app.post(`${REPO}/issues`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    if (body.title === undefined) throw validationFailed({ resource: 'Issue', field: 'title', code: 'missing_field' });
    // As on GitHub, labels given by someone who may not label issues are dropped, not refused; names no label has are
    // made into labels, and names no label could have are refused before anything is written.
    const triage = await triageOf(ctx, repo, user, body);
    const labels = body.labels !== undefined && triage.allowed ? labelsToSet(body.labels) : undefined;
    const issue = await ctx.issues.create(repo, user, { title: body.title, body: body.body ?? undefined });
    if (!labels && !triage.sets) return created(event, await issueShape(repo, { kind: 'issue', issue }));
    if (labels) await ctx.labels.setOnIssue(repo, user, issue, labels, true, 'create');
    await triage.apply(issue.number);
    return created(event, await reread(repo, issue.number));
  });

  app.get(ISSUE, async (event) => {
    const repo = await repoOf(ctx, event);
    const conversation = await conversationOf(ctx, repo, numberParam(event));
    // The one issue also says who closed it (GitHub's lists and payloads do not).
    const closer = await ctx.issues.closedBy(repo, conversation);
    return { ...(await issueShape(repo, conversation)), closed_by: closer ? await shapes.userNamed(ctx.store, closer) : null };
  });

  app.patch(ISSUE, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const conversation = await conversationOf(ctx, repo, numberParam(event));
    const state = body.state ?? undefined;
    const triage = await triageOf(ctx, repo, user, body);
    if (conversation.kind === 'pull') {
      const labels = body.labels === undefined ? undefined : labelsToSet(body.labels);
      await ctx.pulls.update(repo, user, conversation.pull.id, { title: body.title ?? undefined, description: body.body ?? undefined, status: state });
      if (labels) await ctx.labels.setOnPull(repo, user, conversation.pull, labels, true, 'create');
      await triage.apply(conversation.pull.number);
      return await reread(repo, conversation.pull.number);
    }
    const issue = conversation.issue;
    const labels = body.labels === undefined ? undefined : labelsToSet(body.labels);
    await ctx.issues.update(repo, user, issue.id, { title: body.title ?? undefined, body: body.body ?? undefined, status: state, stateReason: body.state_reason ?? undefined });
    if (labels) await ctx.labels.setOnIssue(repo, user, issue, labels, true, 'create');
    await triage.apply(issue.number);
    return await reread(repo, issue.number);
  });

  // Assignees: of issues and pull requests alike, by the number; who may be assigned.
  for (const [method, mode] of [
    ['post', 'add'],
    ['delete', 'remove'],
  ] as const) {
    app[method](`${ISSUE}/assignees`, async (event) => {
      const { repo, user } = await repoAndUser(ctx, event);
      const body = await readJson(ctx, event);
      const number = numberOf(await conversationOf(ctx, repo, numberParam(event)));
      await ctx.assignees.change(repo, user, number, body.assignees ?? [], mode);
      const shape = await reread(repo, number);
      return mode === 'add' ? created(event, shape) : shape;
    });
  }

  app.get(`${REPO}/assignees`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    return await shapes.usersNamed(ctx.store, page.slice(await ctx.assignees.list(repo)));
  });

  // Whether an account may be assigned: 204, or 404 (of the repository, and of one of its issues alike).
  const assignable = async (repo: RepositoryRow, event: H3Event) => {
    const user = await ctx.users.byName(pathParam(event, 'assignee'));
    if (!user || !(await ctx.assignees.assignable(repo, user))) throw notFound();
    return noContent();
  };
  app.get(`${REPO}/assignees/:assignee`, async (event) => await assignable(await repoOf(ctx, event), event));
  app.get(`${ISSUE}/assignees/:assignee`, async (event) => {
    const repo = await repoOf(ctx, event);
    await conversationOf(ctx, repo, numberParam(event));
    return await assignable(repo, event);
  });

  // Events (labels, assignees, milestones, closing, merging, renaming, review requests) and the timeline, which
  // interleaves them with the comments: of issues and pull requests alike, by the number.
  app.get(`${ISSUE}/events`, async (event) => {
    const repo = await repoOf(ctx, event);
    const number = numberOf(await conversationOf(ctx, repo, numberParam(event)));
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.issues.eventsOf(repo, number, page);
    return page.respond(total, await shapes.issueEvents(ctx.store, repo, items));
  });

  // Every issue's and pull request's events, newest first, each with its issue (GitHub's `issue` field).
  app.get(`${REPO}/issues/events`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total, conversations } = await ctx.issues.repositoryEvents(repo, page);
    const found = [...conversations.values()];
    const issues = new Map((await shapes.conversations(ctx.store, repo, found)).map((issue) => [issue.number, issue]));
    const shaped = await shapes.issueEvents(ctx.store, repo, items);
    return page.respond(total, shaped.map((item, index) => ({ ...item, issue: issues.get(items[index]!.number) ?? null })));
  });

  app.get(`${REPO}/issues/events/:id`, async (event) => {
    const repo = await repoOf(ctx, event);
    const id = pathParam(event, 'id');
    if (!/^\d{1,15}$/.test(id)) throw notFound();
    return (await shapes.issueEvents(ctx.store, repo, [await ctx.issues.event(repo, Number(id))]))[0];
  });

  /** The issues (with their repository) that cross-references came from, shaped per repository in a fixed number of reads. */
  const referencedIssues = async (sources: ReadonlyMap<string, ReferenceSource>): Promise<Map<string, GitHubIssue & { repository: GitHubRepository }>> => {
    const byRepo = new Map<number, ReferenceSource[]>();
    for (const source of sources.values()) byRepo.set(source.repo.id, [...(byRepo.get(source.repo.id) ?? []), source]);
    const shaped = new Map<string, GitHubIssue & { repository: GitHubRepository }>();
    for (const list of byRepo.values()) {
      const repo = list[0]!.repo;
      const conversations = await ctx.issues.byKeys(repo, list);
      const issues = await shapes.conversations(ctx.store, repo, conversations);
      const repository = await shapes.repository(ctx.store, repo);
      issues.forEach((issue) => shaped.set(referenceKey(repo.id, issue.number), { ...issue, repository }));
    }
    return shaped;
  };

  app.get(`${ISSUE}/timeline`, async (event) => {
    const repo = await repoOf(ctx, event);
    const conversation = await conversationOf(ctx, repo, numberParam(event));
    const number = numberOf(conversation);
    const page = githubPage(ctx, event);
    // Both lists up to the end of the page, merged in time order: a fixed number of queries whatever the page, and
    // at most MAX_TIMELINE_ITEMS read (a page beyond them is empty). Cross-references from repositories the caller may
    // not read are left out of the list and of its count.
    const reach = { limit: Math.min(page.offset + page.limit, MAX_TIMELINE_ITEMS), offset: 0 };
    const viewer = await currentUser(ctx, event);
    const events = await ctx.issues.eventsOf(repo, number, reach, { viewer });
    const visible = await ctx.issues.visibleTimeline(viewer, events.items);
    const sources = await referencedIssues(visible.sources);
    const comments = conversation.kind === 'issue' ? await ctx.issues.comments(repo, conversation.issue.id, reach) : await ctx.pullComments.comments(repo, conversation.pull.id, reach);
    const shapedEvents = await shapes.issueEvents(ctx.store, repo, visible.events);
    const shapedComments = await shapes.comments(ctx.store, repo, number, comments.items);
    // Ordered by the stored times (milliseconds; the shapes' are whole seconds), events before comments at a tie.
    const items: Array<{ at: string; item: GitHubIssueEvent | GitHubTimelineComment | GitHubCrossReference }> = [
      ...visible.events.map((row, index) => ({ at: row.created_at, item: row.event === 'cross-referenced' ? crossReference(shapedEvents[index]!, sources.get(referenceKey(row.source_repo_id!, row.source_number!))) : shapedEvents[index]! })),
      ...comments.items.map((row, index) => ({ at: row.created_at, item: { ...shapedComments[index]!, event: 'commented' as const, actor: shapedComments[index]!.user } })),
    ];
    items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    return page.respond(events.total + comments.total, items.slice(page.offset, page.offset + page.limit).map((entry) => entry.item));
  });

  // Comments: on issues and on pull requests alike, by the number, and by the comment id (one sequence for both).
  app.get(`${ISSUE}/comments`, async (event) => {
    const repo = await repoOf(ctx, event);
    return await remembered(ctx, event, async () => {
      const conversation = await conversationOf(ctx, repo, numberParam(event));
      const since = sinceOf(event, 'IssueComment');
      const page = githubPage(ctx, event);
      const number = numberOf(conversation);
      const { items, total } = conversation.kind === 'issue' ? await ctx.issues.comments(repo, conversation.issue.id, page, since) : await ctx.pullComments.comments(repo, conversation.pull.id, page, since);
      return page.respond(total, await shapes.comments(ctx.store, repo, number, items));
    });
  });

  // Every comment of the repository's issues and pull requests (octokit's `issues.listCommentsForRepo`).
  app.get(`${REPO}/issues/comments`, async (event) => {
    const repo = await repoOf(ctx, event);
    const page = githubPage(ctx, event);
    const { items, total } = await ctx.issues.commentsOfRepository(repo, commentOrderOf(event, 'IssueComment'), page);
    return page.respond(total, await shapes.comments(ctx.store, repo, items.map((comment) => comment.number), items));
  });

  app.post(`${ISSUE}/comments`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const conversation = await conversationOf(ctx, repo, numberParam(event));
    const comment = conversation.kind === 'issue' ? await ctx.issues.comment(repo, conversation.issue.id, user, body.body) : await ctx.pullComments.comment(repo, conversation.pull.id, user, body.body);
    return created(event, await shapes.comment(ctx.store, repo, numberOf(conversation), comment));
  });

  // Locking a conversation (an issue's or a pull request's): only writers comment on it then. 204, as on GitHub.
  const setLock = async (event: H3Event, change: LockChange) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const conversation = await conversationOf(ctx, repo, numberParam(event));
    if (conversation.kind === 'issue') await ctx.issues.setLock(repo, user, conversation.issue.id, change);
    else await ctx.pulls.setLock(repo, user, conversation.pull.id, change);
    return noContent();
  };
  app.put(`${ISSUE}/lock`, async (event) => await setLock(event, { locked: true, reason: lockReasonOf((await readJson(ctx, event)).lock_reason) }));
  app.delete(`${ISSUE}/lock`, async (event) => await setLock(event, { locked: false }));

  const COMMENT = `${REPO}/issues/comments/:comment_id`;
  app.get(COMMENT, async (event) => {
    const repo = await repoOf(ctx, event);
    const { conversation, id } = await commentOf(ctx, repo, event);
    const comment = conversation.kind === 'issue' ? await ctx.issues.getComment(repo, conversation.issue.id, id) : await ctx.pullComments.getComment(repo, conversation.pull.id, id);
    return await shapes.comment(ctx.store, repo, numberOf(conversation), comment);
  });

  app.patch(COMMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const body = await readJson(ctx, event);
    const { conversation, id } = await commentOf(ctx, repo, event);
    const comment =
      conversation.kind === 'issue' ? await ctx.issues.editComment(repo, conversation.issue.id, id, user, body.body) : await ctx.pullComments.editComment(repo, conversation.pull.id, id, user, body.body);
    return await shapes.comment(ctx.store, repo, numberOf(conversation), comment);
  });

  app.delete(COMMENT, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const { conversation, id } = await commentOf(ctx, repo, event);
    if (conversation.kind === 'issue') await ctx.issues.deleteComment(repo, conversation.issue.id, id, user);
    else await ctx.pullComments.deleteComment(repo, conversation.pull.id, id, user);
    return noContent();
  });

  // The labels of one issue or pull request: list, add (POST), set (PUT), remove one or all.
  const labelsNow = async (repo: RepositoryRow, number: number) => (await reread(repo, number)).labels;
  const setLabels = async (repo: RepositoryRow, user: UserRow, conversation: Conversation, names: readonly string[], replace: boolean) =>
    conversation.kind === 'issue' ? await ctx.labels.setOnIssue(repo, user, conversation.issue, names, replace, 'create') : await ctx.labels.setOnPull(repo, user, conversation.pull, names, replace, 'create');

  app.get(`${ISSUE}/labels`, async (event) => await labelsNow(await repoOf(ctx, event), numberParam(event)));

  for (const [method, replace] of [['post', false], ['put', true]] as const) {
    app[method](`${ISSUE}/labels`, async (event) => {
      const { repo, user } = await repoAndUser(ctx, event);
      // `{ "labels": [...] }` or the bare list `[...]` (octokit.rb and PyGithub send that), of names or `{ name }`s.
      const body = await readJsonOrArray(ctx, event);
      const conversation = await conversationOf(ctx, repo, numberParam(event));
      await setLabels(repo, user, conversation, labelsToSet(Array.isArray(body) ? body : (body.labels ?? [])), replace);
      return await labelsNow(repo, numberOf(conversation));
    });
  }

  app.delete(`${ISSUE}/labels`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    await setLabels(repo, user, await conversationOf(ctx, repo, numberParam(event)), [], true);
    return noContent();
  });

  app.delete(`${ISSUE}/labels/:name`, async (event) => {
    const { repo, user } = await repoAndUser(ctx, event);
    const conversation = await conversationOf(ctx, repo, numberParam(event));
    if (conversation.kind === 'issue') await ctx.labels.removeFromIssue(repo, user, conversation.issue, pathParam(event, 'name'));
    else await ctx.labels.removeFromPull(repo, user, conversation.pull, pathParam(event, 'name'));
    return await labelsNow(repo, numberOf(conversation));
  });
}

function numberOf(conversation: Conversation): number {
  return conversation.kind === 'issue' ? conversation.issue.number : conversation.pull.number;
}

/** Label names as GitHub sends them: strings, or objects with a `name`. */
function labelNames(value: unknown): string[] {
  // GitHub's words for labels that are not a list (the spec API takes a comma-separated string; this one does not).
  if (!Array.isArray(value)) throw unprocessable(`Invalid request.\n\nFor 'properties/labels', ${String(JSON.stringify(value)).slice(0, 100)} is not an array.`);
  return parseLabelNames(value.map((item) => (item && typeof item === 'object' && 'name' in item ? (item as { name: unknown }).name : item)));
}

/** The label names a body gives, each one a label could have (GitHub makes the labels that do not exist yet). */
function labelsToSet(value: unknown): string[] {
  const names = labelNames(value);
  names.forEach(labelName);
  return names;
}

/**
 * The assignees and milestone a body sets, checked before anything is written (a refused one leaves no issue or
 * change behind), and dropped, as GitHub drops them, when the caller may not push.
 */
async function triageOf(ctx: AppContext, repo: RepositoryRow, user: UserRow, body: Record<string, unknown>): Promise<{ allowed: boolean; sets: boolean; apply: (number: number) => Promise<void> }> {
  const allowed = await mayLabel(ctx, repo, user);
  const assignees = allowed ? assigneesOf(body) : undefined;
  const milestone = allowed ? body.milestone : undefined;
  if (assignees !== undefined) await ctx.assignees.check(repo, assignees);
  if (milestone !== undefined) await ctx.milestones.check(repo, milestone);
  return {
    allowed,
    /** Whether `apply` changes anything (assignees or a milestone). */
    sets: assignees !== undefined || milestone !== undefined,
    apply: async (number) => {
      if (assignees !== undefined) await ctx.assignees.change(repo, user, number, assignees, 'replace');
      if (milestone !== undefined) await ctx.milestones.setOn(repo, user, number, milestone);
    },
  };
}

/** The assignees a body sets: `assignees` (a list), or GitHub's older single `assignee` (null clears); else undefined. */
function assigneesOf(body: Record<string, unknown>): unknown {
  if (body.assignees !== undefined && body.assignees !== null) return body.assignees;
  if (body.assignee === null) return [];
  return body.assignee === undefined ? undefined : [body.assignee];
}

async function mayLabel(ctx: AppContext, repo: RepositoryRow, user: UserRow): Promise<boolean> {
  return atLeast(await ctx.repos.access(user, repo), 'write');
}

async function commentOf(ctx: AppContext, repo: RepositoryRow, event: H3Event): Promise<{ conversation: Conversation; id: number }> {
  const raw = pathParam(event, 'comment_id');
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  const owner = await ctx.issues.commentOwner(repo, id);
  if (!owner) throw notFound();
  const conversation: Conversation =
    owner.kind === 'issue' ? { kind: 'issue', issue: await ctx.issues.get(repo, owner.id) } : { kind: 'pull', pull: await ctx.pulls.get(repo, owner.id) };
  return { conversation, id };
}

/**
 * GitHub's narrowing filters of the issue list: `creator`, `since`, `assignee` (a login, `none` or `*`) and
 * `milestone` (a number, `none` or `*`). `mentioned` is refused with 422 rather than silently ignored.
 */
async function githubFilters(ctx: AppContext, event: H3Event): Promise<Pick<IssueFilter, 'creatorId' | 'since' | 'assigneeId' | 'assigned' | 'milestoneNumber' | 'milestoned' | 'nothing'>> {
  if (queryString(event, 'mentioned')) throw unprocessable('repohost does not support the mentioned filter of the issue list');
  const filter: Pick<IssueFilter, 'creatorId' | 'since' | 'assigneeId' | 'assigned' | 'milestoneNumber' | 'milestoned' | 'nothing'> = {};
  const creator = queryString(event, 'creator');
  if (creator) {
    const user = await ctx.users.byName(creator);
    if (user) filter.creatorId = user.id;
    else filter.nothing = true;
  }
  const since = sinceOf(event, 'Issue');
  if (since) filter.since = since;
  const assignee = queryString(event, 'assignee');
  if (assignee === 'none') filter.assigned = 'none';
  else if (assignee === '*') filter.assigned = 'any';
  else if (assignee) {
    const user = await ctx.users.byName(assignee);
    if (user) filter.assigneeId = user.id;
    else filter.nothing = true;
  }
  const milestone = queryString(event, 'milestone');
  if (milestone === 'none') filter.milestoned = 'none';
  else if (milestone === '*') filter.milestoned = 'any';
  else if (milestone !== undefined && milestone !== '') {
    if (!/^\d{1,9}$/.test(milestone)) throw validationFailed({ resource: 'Issue', field: 'milestone', code: 'invalid' });
    filter.milestoneNumber = Number(milestone);
  }
  return filter;
}

/** A cross-reference as GitHub's timeline shows it: who, when, and the issue (or pull request) that mentioned this one. */
function crossReference(event: GitHubIssueEvent, issue: (GitHubIssue & { repository: GitHubRepository }) | undefined): GitHubCrossReference {
  return { event: 'cross-referenced', actor: event.actor, created_at: event.created_at, updated_at: event.created_at, source: { type: 'issue', issue: issue ?? null } };
}
