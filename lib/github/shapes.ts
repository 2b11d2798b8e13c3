import type { ReadTx } from '../store/interface.js';
import type { IssueCommentRow, IssueRow } from '../store/queries/issues.js';
import type { PullCommentRow, PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { userByName, usersByIds, usersByNames, type UserRow } from '../store/queries/users.js';
import { appsOfBots } from '../store/queries/apps.js';
import { githubApp } from './app-object.js';
import { collaboratorsAmong } from '../store/queries/collaborators.js';
import { reviewFactsOfPulls } from '../store/queries/reviews.js';
import { labelsOfPulls, type LabelRow } from '../store/queries/labels.js';
import { assigneesOf } from '../store/queries/assignees.js';
import { milestonesOfNumbers } from '../store/queries/milestones.js';
import type { IssueEventRow } from '../store/queries/issue-events.js';
import { githubTime } from './time.js';
import { REACTION_CONTENTS, reactionCounts, type ReactionCounts, type ReactionSubject } from '../store/queries/reactions.js';
import type { GitHubPullStats, GitHubReactions, GitHubAuthorAssociation, GitHubBranchRef, GitHubComment, GitHubIssue, GitHubIssueEvent, GitHubMilestone, GitHubPullRequest, GitHubRepository, GitHubUser, GitHubApp } from './types.js';
import { nodeId } from './api-ids.js';
import { RepositoryShapes } from './repository-shapes.js';

/** What shaping reads besides the rows it is given: accounts by name, and the repository's own shape. */
interface ShapeReads {
  user(username: string | null): Promise<GitHubUser | null>;
  repository(): Promise<GitHubRepository>;
  association(username: string | null): Promise<GitHubAuthorAssociation>;
  /** Who is asked to review a pull request, and how many review comments it has. */
  reviews(pullId: number): Promise<{ reviewers: GitHubUser[]; comments: number }>;
  /** Who an issue or a pull request (by its number) is assigned to. */
  assignees(number: number): Promise<GitHubUser[]>;
  /** The milestone of an issue or a pull request (by its number). */
  milestone(number: number): Promise<GitHubMilestone | null>;
  /** The labels of a pull request. */
  pullLabels(pullId: number): Promise<LabelRow[]>;
  /** The reaction counts of an object: an issue or pull request by its number, a comment by its id. */
  reactions(subject: ReactionSubject, id: number): Promise<ReactionCounts | undefined>;
  /** The app whose bot `username` is (what it made was `performed_via_github_app`), or null. */
  app(username: string | null): Promise<GitHubApp | null>;
}

/** What GitHub's `author_association` says of an account: the owner, a collaborator (`collaborators`: lower-cased names), or neither. */
function associationOf(repo: RepositoryRow, username: string | null, collaborators: ReadonlySet<string>): GitHubAuthorAssociation {
  if (!username) return 'NONE';
  const name = username.toLowerCase();
  if (name === repo.owner_name.toLowerCase()) return 'OWNER';
  return collaborators.has(name) ? 'COLLABORATOR' : 'NONE';
}

/** Whose collaboration `associationOf` needs to know: the names other than the owner's. */
const nonOwners = (repo: RepositoryRow, usernames: ReadonlyArray<string | null>): string[] =>
  usernames.filter((name): name is string => !!name && name.toLowerCase() !== repo.owner_name.toLowerCase());

/**
 * What the objects of a page share, read before any of them is shaped, in a fixed number of queries: their accounts
 * (each shaped once for the page), author associations, assignees and milestones (by number, of the page's numbers).
 * Its lookups are synchronous: a page of 30 issues is shaped without a promise per field.
 */
export interface PageFacts {
  user(username: string | null): GitHubUser | null;
  association(username: string | null): GitHubAuthorAssociation;
  assignees(number: number): GitHubUser[];
  milestone(number: number): GitHubMilestone | null;
  /** The reaction counts of the page's objects (`PageReactions`), undefined for any other. */
  reactions(subject: ReactionSubject, id: number): ReactionCounts | undefined;
  /** Whether `reactions` knows the object's counts (those nobody reacted to included). */
  knowsReactions(subject: ReactionSubject, id: number): boolean;
  /** The app whose bot an account of the page is, or null. */
  app(username: string | null): GitHubApp | null;
}

/** Which of a page's objects its reaction counts are read for: all of one kind. */
export interface PageReactions {
  subject: ReactionSubject;
  ids: readonly number[];
}

/** What an issue's shape takes besides its row. */
interface IssueFacts {
  user: GitHubUser;
  assignees: GitHubUser[];
  milestone: GitHubMilestone | null;
  association: GitHubAuthorAssociation;
  reactions: ReactionCounts | undefined;
  app: GitHubApp | null;
}

/**
 * An object's node id in GitHub's legacy form (base64 of `0<length of type>:<type><id>`, e.g. `MDQ6VXNlcjE=` for
 * user 1; a commit's id is `<repository id>:<sha>`): opaque, stable, and distinct per kind of object.
 */
/**
 * Where the ids of pull requests' issues start: a pull request seen as an issue (the issue list, `issue_comment`
 * events) needs an id no issue has, and issues and pull requests number their rows apart. Past int32, as GitHub's own
 * issue ids are by now.
 */
export const PULL_ISSUE_IDS = 2 ** 31;

/** GitHub's reaction rollup of the object at `url`: how many of each reaction it has (`counts`: none when absent). */
export function reactionRollup(url: string, counts: ReactionCounts | undefined): GitHubReactions {
  const rollup = { url: `${url}/reactions`, total_count: 0 } as GitHubReactions;
  for (const content of REACTION_CONTENTS) {
    const n = counts?.get(content) ?? 0;
    rollup[content] = n;
    rollup.total_count += n;
  }
  return rollup;
}

/** GitHub's `locked` and `active_lock_reason` of an issue or a pull request. */
const lockOf = (row: { locked: boolean; lock_reason: string | null }) => ({ locked: row.locked, active_lock_reason: row.locked ? row.lock_reason : null });

/** GitHub's `assignee` (the first) and `assignees` of an issue or a pull request. */
const assigned = (users: GitHubUser[]) => ({ assignee: users[0] ?? null, assignees: users });

/**
 * Builds GitHub's objects from repohost's rows: the shapes of webhook payloads (and of the GitHub-compatible API).
 * This class adds issues, pull requests, their comments and events to RepositoryShapes (repository-shapes.ts).
 * Every method reads through the `db` it is given, so inside a write it sees the write's own changes.
 */
export class GitHubShapes extends RepositoryShapes {
  constructor(
    baseUrl: () => string,
    avatarUrl: (user: Pick<UserRow, 'avatar_file' | 'username'>) => string,
    noreplyDomain = '',
    sshUrl: (fullName: string) => string = () => '',
    /** What a pair of commits changes when already counted (a pull request's stats, never counted here). */
    private readonly knownStats: (base: string, head: string) => GitHubPullStats | undefined = () => undefined,
  ) {
    super(baseUrl, avatarUrl, noreplyDomain, sshUrl);
  }

  /** Reads for one object: each account and the repository's shape when it is needed. */
  private reads(db: ReadTx, repo: RepositoryRow): ShapeReads {
    // Promises are kept, not their values: the objects of a page are shaped concurrently and share one read.
    let repository: Promise<GitHubRepository> | undefined;
    return {
      user: async (username) => await this.userNamed(db, username),
      repository: async () => await (repository ??= this.repository(db, repo)),
      association: async (username) => associationOf(repo, username, await collaboratorsAmong(db, repo.id, nonOwners(repo, [username]))),
      reviews: async (pullId) => await this.reviewFacts(db, pullId),
      assignees: async (number) => (await this.assigneesOfPage(db, repo, [number]))(number),
      milestone: async (number) => (await this.milestonesOfPage(db, repo, [number]))(number),
      pullLabels: async (pullId) => (await labelsOfPulls(db, [pullId])).get(pullId) ?? [],
      reactions: async (subject, id) => (await reactionCounts(db, repo.id, subject, [id])).get(id),
      app: async (username) => {
        const bot = username?.endsWith('[bot]') ? await userByName(db, username) : undefined;
        return bot ? ((await this.appsOfBots(db, [bot])).get(bot.id) ?? null) : null;
      },
    };
  }

  /** The apps whose bots are among `users`, by the bot's id: none read when no account is a bot, two queries else. */
  private async appsOfBots(db: ReadTx, users: Iterable<UserRow>): Promise<Map<number, GitHubApp>> {
    const bots = [...users].filter((user) => user.username.endsWith('[bot]')).map((user) => user.id);
    const apps = await appsOfBots(db, bots);
    const owners = await usersByIds(db, [...apps.values()].map((app) => app.owner_id));
    return new Map([...apps].map(([botId, app]) => [botId, githubApp(this.baseUrl(), app, this.user(owners.get(app.owner_id)!))]));
  }

  /** The milestones of several numbers of a repository, in two queries. */
  private async milestonesOfPage(db: ReadTx, repo: RepositoryRow, numbers: readonly number[]): Promise<(number: number) => GitHubMilestone | null> {
    const byNumber = await milestonesOfNumbers(db, repo.id, numbers);
    const users = await usersByNames(db, [...byNumber.values()].map((row) => row.creator));
    return (number) => {
      const row = byNumber.get(number);
      return row ? this.milestone(repo, row, users.get(row.creator.toLowerCase())) : null;
    };
  }

  /** The assignees of several numbers of a repository, in two queries. */
  private async assigneesOfPage(db: ReadTx, repo: RepositoryRow, numbers: readonly number[]): Promise<(number: number) => GitHubUser[]> {
    const byNumber = await assigneesOf(db, repo.id, numbers);
    const users = await usersByNames(db, [...byNumber.values()].flat());
    return (number) => (byNumber.get(number) ?? []).map((name) => this.user(users.get(name.toLowerCase())!));
  }

  /** `reviews` of ShapeReads for one pull request. */
  private async reviewFacts(db: ReadTx, pullId: number): Promise<{ reviewers: GitHubUser[]; comments: number }> {
    return (await this.reviewFactsOfPage(db, [pullId]))(pullId);
  }

  /** Requested reviewers and review comment counts of several pull requests, in a fixed number of queries. */
  private async reviewFactsOfPage(db: ReadTx, pullIds: readonly number[]): Promise<(pullId: number) => { reviewers: GitHubUser[]; comments: number }> {
    const facts = await reviewFactsOfPulls(db, pullIds);
    const users = await usersByNames(db, [...facts.reviewers.values()].flat());
    return (pullId) => ({ reviewers: (facts.reviewers.get(pullId) ?? []).map((name) => this.user(users.get(name.toLowerCase())!)), comments: facts.comments.get(pullId) ?? 0 });
  }

  /** The facts a page of objects shares (see PageFacts), read at once. */
  async pageFacts(db: ReadTx, repo: RepositoryRow, usernames: ReadonlyArray<string | null>, numbers: readonly number[] = [], reacted?: PageReactions): Promise<PageFacts> {
    const named = usernames.filter((username): username is string => !!username);
    const users = await usersByNames(db, named);
    const assignees = await this.assigneesOfPage(db, repo, numbers);
    const milestones = await this.milestonesOfPage(db, repo, numbers);
    const collaborators = await collaboratorsAmong(db, repo.id, nonOwners(repo, named));
    const reactions = reacted ? await reactionCounts(db, repo.id, reacted.subject, reacted.ids) : new Map<number, ReactionCounts>();
    const apps = await this.appsOfBots(db, users.values());
    const knowsReactions = (subject: ReactionSubject, id: number) => subject === reacted?.subject && reacted.ids.includes(id);
    // One shape per account: the author of every issue of a page is often the same person.
    const shaped = new Map<string, GitHubUser>();
    return {
      user: (username) => {
        const key = username?.toLowerCase();
        const row = key === undefined ? undefined : users.get(key);
        if (key === undefined || !row) return null;
        let user = shaped.get(key);
        if (!user) shaped.set(key, (user = this.user(row)));
        return user;
      },
      association: (username) => associationOf(repo, username, collaborators),
      assignees,
      milestone: milestones,
      reactions: (subject, id) => (knowsReactions(subject, id) ? reactions.get(id) : undefined),
      knowsReactions,
      app: (username) => {
        const row = username ? users.get(username.toLowerCase()) : undefined;
        return (row && apps.get(row.id)) ?? null;
      },
    };
  }

  /**
   * Reads for a page of objects over its facts: the page's own numbers and accounts from them, the page's pull
   * requests' reviews and labels together the first time one is asked for, the repository's shape once.
   */
  private readsOver(db: ReadTx, repo: RepositoryRow, facts: PageFacts, pullIds: readonly number[] = [], numbers: readonly number[] = []): ShapeReads {
    let repository: Promise<GitHubRepository> | undefined;
    let reviews: ReturnType<GitHubShapes['reviewFactsOfPage']> | undefined;
    let pullLabels: ReturnType<typeof labelsOfPulls> | undefined;
    return {
      pullLabels: async (pullId) => (pullIds.includes(pullId) ? ((await (pullLabels ??= labelsOfPulls(db, pullIds))).get(pullId) ?? []) : ((await labelsOfPulls(db, [pullId])).get(pullId) ?? [])),
      milestone: async (number) => (numbers.includes(number) ? facts.milestone(number) : (await this.milestonesOfPage(db, repo, [number]))(number)),
      assignees: async (number) => (numbers.includes(number) ? facts.assignees(number) : (await this.assigneesOfPage(db, repo, [number]))(number)),
      reviews: async (pullId) => (pullIds.includes(pullId) ? (await (reviews ??= this.reviewFactsOfPage(db, pullIds)))(pullId) : await this.reviewFacts(db, pullId)),
      association: async (username) => facts.association(username),
      user: async (username) => facts.user(username),
      repository: async () => await (repository ??= this.repository(db, repo)),
      reactions: async (subject, id) => (facts.knowsReactions(subject, id) ? facts.reactions(subject, id) : (await reactionCounts(db, repo.id, subject, [id])).get(id)),
      app: async (username) => facts.app(username),
    };
  }

  /** A page of issues and pull requests (the issue list), in a fixed number of queries whatever its length. */
  async conversations(db: ReadTx, repo: RepositoryRow, items: ReadonlyArray<{ kind: 'issue'; issue: IssueRow } | { kind: 'pull'; pull: PullRow }>): Promise<GitHubIssue[]> {
    const numbers = items.map((item) => (item.kind === 'issue' ? item.issue.number : item.pull.number));
    const pullIds = items.flatMap((item) => (item.kind === 'pull' ? [item.pull.id] : []));
    const facts = await this.pageFacts(db, repo, items.flatMap((item) => (item.kind === 'issue' ? [item.issue.author] : [item.pull.author, item.pull.merged_by])), numbers, { subject: 'issue', ids: numbers });
    const reads = this.readsOver(db, repo, facts, pullIds, numbers);
    // Pull requests read their reviews, labels and the repository (once for all); issues come straight from the facts.
    const pulls = new Map(await Promise.all(items.flatMap((item) => (item.kind === 'pull' ? [this.pullAsIssue(db, repo, item.pull, reads).then((shape) => [item.pull.id, shape] as const)] : []))));
    return items.map((item) => (item.kind === 'issue' ? this.issueFrom(repo, item.issue, this.issueFacts(facts, item.issue)) : pulls.get(item.pull.id)!));
  }

  private issueFacts(facts: PageFacts, issue: IssueRow): IssueFacts {
    return {
      user: facts.user(issue.author)!,
      assignees: facts.assignees(issue.number),
      milestone: facts.milestone(issue.number),
      association: facts.association(issue.author),
      reactions: facts.reactions('issue', issue.number),
      app: facts.app(issue.author),
    };
  }

  /** A page of pull requests, in a fixed number of queries whatever its length. */
  async pulls(db: ReadTx, repo: RepositoryRow, pulls: readonly PullRow[]): Promise<GitHubPullRequest[]> {
    const numbers = pulls.map((pull) => pull.number);
    const facts = await this.pageFacts(db, repo, pulls.flatMap((pull) => [pull.author, pull.merged_by]), numbers);
    const reads = this.readsOver(db, repo, facts, pulls.map((pull) => pull.id), numbers);
    return (await Promise.all(pulls.map(async (pull) => await this.pull(db, repo, pull, reads))));
  }

  /** A page of comments of one issue or pull request, in one query whatever its length. */
  /** Comments of one issue or pull request (`number`), or of several (`numbers`, one for each comment). */
  async comments(db: ReadTx, repo: RepositoryRow, number: number | readonly number[], comments: ReadonlyArray<Omit<IssueCommentRow, 'author_id'> | Omit<PullCommentRow, 'author_id'>>): Promise<GitHubComment[]> {
    const reads = this.readsOver(db, repo, await this.pageFacts(db, repo, comments.map((comment) => comment.author), [], { subject: 'comment', ids: comments.map((comment) => comment.id) }));
    const numberOf = (index: number) => (typeof number === 'number' ? number : number[index]!);
    return (await Promise.all(comments.map(async (comment, index) => await this.comment(db, repo, numberOf(index), comment, reads))));
  }

  /** Events of issues and pull requests as GitHub lists them, every account they name read in one query. */
  async issueEvents(db: ReadTx, repo: RepositoryRow, rows: readonly IssueEventRow[]): Promise<GitHubIssueEvent[]> {
    const users = await usersByNames(db, rows.flatMap((row) => [row.actor, row.subject]).filter((name): name is string => name !== null));
    const user = (name: string | null) => {
      const row = name === null ? undefined : users.get(name.toLowerCase());
      return row ? this.user(row) : null;
    };
    const api = (path: string) => this.api(`/repos/${repo.owner_name}/${repo.name}${path}`);
    return rows.map((row) => {
      const actor = user(row.actor);
      const event: GitHubIssueEvent = {
        id: row.id,
        node_id: nodeId('IssueEvent', row.id),
        url: api(`/issues/events/${row.id}`),
        actor,
        event: row.event,
        commit_id: row.commit_id,
        commit_url: row.commit_id ? api(`/commits/${row.commit_id}`) : null,
        created_at: githubTime(row.created_at),
        performed_via_github_app: null,
      };
      if (row.label_name !== null) event.label = { name: row.label_name, color: row.label_color ?? '' };
      if (row.event === 'assigned' || row.event === 'unassigned') Object.assign(event, { assignee: user(row.subject), assigner: actor });
      if (row.milestone_title !== null) event.milestone = { title: row.milestone_title };
      if (row.rename_from !== null) event.rename = { from: row.rename_from, to: row.rename_to ?? '' };
      if (row.event === 'review_requested' || row.event === 'review_request_removed') Object.assign(event, { review_requester: actor, requested_reviewer: user(row.subject) });
      if (row.event === 'closed' || row.event === 'reopened') event.state_reason = row.state_reason;
      if (row.event === 'locked') event.lock_reason = row.lock_reason;
      if (row.event === 'review_dismissed') {
        event.dismissed_review = { state: (row.review_state ?? '').toLowerCase(), review_id: row.review_id ?? 0, dismissal_message: row.dismissal_message, dismissal_commit_id: row.dismissal_commit };
      }
      return event;
    });
  }

  async issue(db: ReadTx, repo: RepositoryRow, issue: IssueRow, reads: ShapeReads = this.reads(db, repo)): Promise<GitHubIssue> {
    const user = (await reads.user(issue.author))!;
    const assignees = await reads.assignees(issue.number);
    const milestone = await reads.milestone(issue.number);
    return this.issueFrom(repo, issue, { user, assignees, milestone, association: await reads.association(issue.author), reactions: await reads.reactions('issue', issue.number), app: await reads.app(issue.author) });
  }

  private issueFrom(repo: RepositoryRow, issue: IssueRow, facts: IssueFacts): GitHubIssue {
    return {
      id: issue.id,
      node_id: nodeId('Issue', issue.id),
      number: issue.number,
      title: issue.title,
      body: issue.body || null,
      state: issue.status === 'closed' ? 'closed' : 'open',
      state_reason: issue.state_reason,
      user: facts.user,
      labels: issue.labels.map((label) => this.label(repo, label)),
      ...assigned(facts.assignees),
      milestone: facts.milestone,
      ...lockOf(issue),
      author_association: facts.association,
      comments: issue.comments,
      html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/issues/${issue.number}`,
      ...this.issueUrls(repo, issue.number, facts.reactions, facts.app),
      created_at: githubTime(issue.created_at),
      updated_at: githubTime(issue.updated_at),
      closed_at: githubTime(issue.closed_at),
    };
  }

  /** The URL fields of an issue (or of a pull request as an issue), with its reactions and the app that made it. */
  private issueUrls(
    repo: RepositoryRow,
    number: number,
    reactions: ReactionCounts | undefined,
    app: GitHubApp | null,
  ): Pick<GitHubIssue, 'url' | 'repository_url' | 'labels_url' | 'comments_url' | 'events_url' | 'timeline_url' | 'reactions' | 'performed_via_github_app'> {
    const repository = this.api(`/repos/${repo.owner_name}/${repo.name}`);
    const url = `${repository}/issues/${number}`;
    return {
      url,
      repository_url: repository,
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      timeline_url: `${url}/timeline`,
      reactions: reactionRollup(url, reactions),
      performed_via_github_app: app,
    };
  }

  /** A pull request as the issue GitHub's `issue_comment` event carries for it. */
  async pullAsIssue(db: ReadTx, repo: RepositoryRow, pull: PullRow, reads: ShapeReads = this.reads(db, repo)): Promise<GitHubIssue> {
    const shaped = await this.pull(db, repo, pull, reads);
    return {
      // Pull requests have ids of their own, which issues' ids may equal: their issues have ids above every issue's
      // (bots know an issue by its id). On GitHub too a pull request's issue has an id and an `Issue` node id of its
      // own, not the pull request's (microsoft/ghcrawler#163).
      id: PULL_ISSUE_IDS + pull.id,
      node_id: nodeId('Issue', PULL_ISSUE_IDS + pull.id),
      number: pull.number,
      title: pull.title,
      body: shaped.body,
      state: shaped.state,
      user: shaped.user,
      labels: shaped.labels,
      assignee: shaped.assignee,
      assignees: shaped.assignees,
      milestone: shaped.milestone,
      ...lockOf(pull),
      author_association: shaped.author_association,
      comments: pull.comments,
      html_url: shaped.html_url,
      ...this.issueUrls(repo, pull.number, await reads.reactions('issue', pull.number), await reads.app(pull.author)),
      created_at: githubTime(pull.created_at),
      updated_at: githubTime(pull.updated_at),
      closed_at: githubTime(pull.closed_at),
      pull_request: { url: shaped.url, html_url: shaped.html_url, diff_url: shaped.diff_url, patch_url: shaped.patch_url, merged_at: githubTime(pull.merged_at) },
    };
  }

  /**
   * A pull request as an event other than its own opening or moves carries it (labeled, assigned, milestoned, a review
   * asked for): with what it changes when that was counted already (it was, for the event that opened it, whenever
   * someone listened), as GitHub's payloads always have it.
   */
  async pullForEvent(db: ReadTx, repo: RepositoryRow, pull: PullRow): Promise<GitHubPullRequest> {
    return await this.pull(db, repo, pull, this.reads(db, repo), this.knownStats(pull.base_sha, pull.head_sha));
  }

  /**
   * A pull request; `stats` (what it changes, counted by git) where GitHub shows them: webhook payloads and a single
   * pull request's answer.
   */
  async pull(db: ReadTx, repo: RepositoryRow, pull: PullRow, reads: ShapeReads = this.reads(db, repo), stats?: GitHubPullStats): Promise<GitHubPullRequest> {
    const repository = await reads.repository();
    const reviews = await reads.reviews(pull.id);
    const html = `${this.baseUrl()}/${repo.owner_name}/${repo.name}/pull/${pull.number}`;
    const branch = (ref: string, sha: string): GitHubBranchRef => ({ label: `${repo.owner_name}:${ref}`, ref, sha, user: repository.owner, repo: repository });
    const url = this.api(`/repos/${repo.owner_name}/${repo.name}/pulls/${pull.number}`);
    const issueUrl = this.api(`/repos/${repo.owner_name}/${repo.name}/issues/${pull.number}`);
    const links = {
      self: url,
      html,
      issue: issueUrl,
      comments: `${issueUrl}/comments`,
      review_comments: `${url}/comments`,
      review_comment: this.api(`/repos/${repo.owner_name}/${repo.name}/pulls/comments{/number}`),
      commits: `${url}/commits`,
      statuses: this.api(`/repos/${repo.owner_name}/${repo.name}/statuses/${pull.head_sha}`),
    };
    return {
      id: pull.id,
      node_id: nodeId('PullRequest', pull.id),
      number: pull.number,
      state: pull.status === 'open' ? 'open' : 'closed',
      title: pull.title,
      body: pull.description || null,
      user: (await reads.user(pull.author))!,
      head: branch(pull.head, pull.head_sha),
      base: branch(pull.base, pull.base_sha),
      merged: pull.status === 'merged',
      merged_at: githubTime(pull.merged_at),
      merged_by: await reads.user(pull.merged_by),
      merge_commit_sha: pull.merge_commit_sha,
      mergeable: null,
      mergeable_state: 'unknown',
      maintainer_can_modify: false,
      auto_merge: null,
      labels: (await reads.pullLabels(pull.id)).map((label) => this.label(repo, label)),
      ...assigned(await reads.assignees(pull.number)),
      milestone: await reads.milestone(pull.number),
      ...lockOf(pull),
      requested_reviewers: reviews.reviewers,
      requested_teams: [],
      author_association: await reads.association(pull.author),
      draft: false,
      comments: pull.comments,
      review_comments: reviews.comments,
      html_url: html,
      url,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: links.issue,
      commits_url: links.commits,
      review_comments_url: links.review_comments,
      review_comment_url: links.review_comment,
      comments_url: links.comments,
      statuses_url: links.statuses,
      _links: {
        self: { href: links.self },
        html: { href: links.html },
        issue: { href: links.issue },
        comments: { href: links.comments },
        review_comments: { href: links.review_comments },
        review_comment: { href: links.review_comment },
        commits: { href: links.commits },
        statuses: { href: links.statuses },
      },
      created_at: githubTime(pull.created_at),
      updated_at: githubTime(pull.updated_at),
      closed_at: githubTime(pull.closed_at),
      ...stats,
    };
  }

  async comment(
    db: ReadTx,
    repo: RepositoryRow,
    number: number,
    comment: Omit<IssueCommentRow, 'author_id'> | Omit<PullCommentRow, 'author_id'>,
    reads: ShapeReads = this.reads(db, repo),
  ): Promise<GitHubComment> {
    const issuePath = `/repos/${repo.owner_name}/${repo.name}/issues/${number}`;
    const url = this.api(`/repos/${repo.owner_name}/${repo.name}/issues/comments/${comment.id}`);
    return {
      id: comment.id,
      node_id: nodeId('IssueComment', comment.id),
      body: 'body' in comment ? comment.body : comment.text,
      user: (await reads.user(comment.author))!,
      author_association: await reads.association(comment.author),
      html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/issues/${number}#issuecomment-${comment.id}`,
      url,
      issue_url: this.api(issuePath),
      reactions: reactionRollup(url, await reads.reactions('comment', comment.id)),
      performed_via_github_app: await reads.app(comment.author),
      created_at: githubTime(comment.created_at),
      updated_at: githubTime(comment.updated_at),
    };
  }
}
