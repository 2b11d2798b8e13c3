import { setConversationLock, type LockChange } from './conversation-locks.js';
import { noteCrossReferences } from './references.js';
import { insertIssueEvent } from '../store/queries/issue-events.js';
import type { Readable } from 'node:stream';
import { conflict, invalid, notAllowed, notFound } from '../errors.js';
import type { Db, ReadTx, WriteTx } from '../store/interface.js';
import { closeReferencedIssues } from './closing-keywords.js';
import { writeToRepository } from './repository-write.js';
import { countPulls, insertPull, markPullMerged, openPullJoining, openPullsTouching, pullByNumber, pullInRepository, pullsOfRepository, setPullOpen, setPullShas, updatePull, type PullListFilter, type PullListStatus, type PullRow } from '../store/queries/pulls.js';
import { branchTip, branchTipsNamed, deleteBranch, markPushed, takeNextNumber, upsertBranch, type RepositoryRow } from '../store/queries/repositories.js';
import { NOTHING_PUSHED, type EditChanges, type EventRecorder, type PullRequestEvent } from '../events/index.js';
import type { StatusState } from '../store/queries/commit-statuses.js';
import { userById, type UserRow } from '../store/queries/users.js';
import type { ChangedFile, CommitSummary, DiffStats, MergeMethod, MergeResult, PullGit, RefChange } from './git-backend.js';
import type { LruCache } from '../git/lru.js';
import { pullStatsKey } from '../git/diff.js';
import { pushRefusal } from '../git/push-rules.js';
import { deleteRefIntent } from '../store/queries/refs.js';
import type { RefJournal } from './ref-journal.js';
import { MAX_BODY, MAX_TITLE, mayChange } from './issues.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { MergeGates } from './merge-gates.js';
import { requireAccess, type Viewer } from './permissions.js';
import type { BranchProtectionService } from './branch-protection.js';
import type { CommitStatusService } from './statuses.js';
import { optionalText, requiredText } from './text-fields.js';
import { notifyThread } from './notifications.js';

/** How a write's `pull_request` events find what a pull request changes: counted before the write, never inside it. */
type CountsOf = (pull: PullRow) => DiffStats;

/** What a pull request changes when git cannot tell. */
const NO_COUNTS: DiffStats = Object.freeze({ commits: 0, additions: 0, deletions: 0, changed_files: 0 });

/** Most runs of a write that finds pairs uncounted (each run counts the pair it missed; the last takes zeros). */
const COUNTING_ATTEMPTS = 4;

/** Thrown inside a write that needs the counts of a pair of commits not counted yet: counted, then the write runs again. */
class CountsNeeded extends Error {
  constructor(
    readonly base: string,
    readonly head: string,
  ) {
    super(`the changes of ${base}...${head} are not counted yet`);
    this.name = 'CountsNeeded';
  }
}

/** The pull request summary of the API: the spec's fields plus GitHub-like state. */
export interface PullSummary extends Omit<PullRow, 'author_id'> {
  /** True or false for an open pull request; null once merged or closed. */
  mergeable: boolean | null;
  merged: boolean;
  /** The combined commit status of the head commit (see statuses.ts); `status` stays open/closed/merged. */
  checks_state: StatusState;
}

/** Two branches compared before a pull request joins them. */
export interface BranchComparison {
  baseSha: string;
  headSha: string;
  commits: CommitSummary[];
  files: ChangedFile[];
  mergeable: boolean;
}

export interface NewPull {
  title: unknown;
  description?: unknown;
  head: unknown;
  base: unknown;
}

export interface PullChanges {
  title?: unknown;
  description?: unknown;
  status?: unknown;
  base?: unknown;
}

export interface MergeRequest {
  method?: unknown;
  title?: unknown;
  message?: unknown;
  headSha?: unknown;
  deleteBranch?: unknown;
}

const METHODS: readonly MergeMethod[] = ['merge', 'squash', 'rebase', 'fast-forward'];
const BRANCH_PREFIX = 'refs/heads/';

/** Parses the list filter: `open` (default), `closed` (closed or merged), `merged` or `all`. */
export function parsePullStatus(value: string | undefined): PullListStatus {
  const status = value ?? 'open';
  if (status === 'all') return undefined;
  if (status !== 'open' && status !== 'closed' && status !== 'merged') throw invalid("status must be 'open', 'closed', 'merged' or 'all'");
  return status;
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}

/**
 * Pull requests: opening, the conversation, what they change, and merging them in the bare repository. Reads
 * of mergeability are computed from the real commits and cached by the (base, head) pair, so never stale.
 */
export class PullService {
  constructor(
    private readonly store: Db,
    private readonly git: PullGit,
    private readonly now: () => string,
    private readonly committerEmail: (user: UserRow) => string,
    private readonly statuses: CommitStatusService,
    /** What a merge must meet: required checks and approving reviews (merge-gates.ts). */
    private readonly gates: MergeGates,
    private readonly protection: BranchProtectionService,
    private readonly events: EventRecorder,
    private readonly journal: RefJournal,
    /** Runs work on a repository that can be neither deleted nor renamed meanwhile (RepositoryService.whileUnchanged). */
    private readonly whileUnchanged: <T>(repo: RepositoryRow, work: (current: RepositoryRow) => Promise<T>) => Promise<T>,
    /**
     * What pairs of commits change (by `pullStatsKey`), counted ahead of the writes whose `pull_request` events carry it
     * (see writeCounting); the shapes read it too, for the events other services record (labeled, assigned, …).
     */
    private readonly counted: LruCache<string, DiffStats>,
  ) {}

  private readonly pending = new Set<Promise<unknown>>();

  async list(repo: RepositoryRow, status: PullListStatus, page: PageWindow, branches: PullListFilter = {}): Promise<{ items: PullRow[]; total: number }> {
    return await this.store.read(async (tx) => ({ items: await pullsOfRepository(tx, repo.id, status, page, branches), total: await countPulls(tx, repo.id, status, branches) }));
  }

  async get(repo: RepositoryRow, id: number): Promise<PullRow> {
    const pull = Number.isSafeInteger(id) ? await pullInRepository(this.store, repo.id, id) : undefined;
    if (!pull) throw notFound('Pull request not found');
    return pull;
  }

  /** The pull request author as a commit author (their noreply address, as for the merges they make). */
  private async authorIdentity(pull: PullRow, date: string): Promise<{ name: string; email: string; date: string } | undefined> {
    const author = await userById(this.store, pull.author_id);
    return author ? { name: author.full_name || author.username, email: this.committerEmail(author), date } : undefined;
  }

  /** The pull request numbered `number` in the repository (a number may instead name an issue: undefined then). */
  async byNumber(repo: RepositoryRow, number: number): Promise<PullRow | undefined> {
    return Number.isSafeInteger(number) ? await pullByNumber(this.store, repo.id, number) : undefined;
  }

  /** Opens a pull request from `head` into `base`: both must be branches of the repository, and not yet joined. */
  async create(repo: RepositoryRow, author: UserRow, input: NewPull): Promise<PullRow> {
    await requireAccess(this.store, author, repo, 'read');
    const title = requiredText('title', input.title, MAX_TITLE);
    const description = optionalText('description', input.description, MAX_BODY);
    const head = requiredText('head', input.head, 255);
    const base = requiredText('base', input.base, 255);
    if (head === base) throw invalid('head and base must be different branches');
    const now = this.now();
    const ahead = async () => {
      const known = branchTips(this.store, repo.id);
      return [[await known.get(base), await known.get(head)] as const];
    };
    const id = await this.writeCounting(repo, ahead, async (tx, countsOf) => {
      const tips = branchTips(tx, repo.id);
      for (const [field, branch] of [['head', head], ['base', base]] as const) {
        if (!await tips.has(branch)) throw invalid(`${field} branch '${branch}' does not exist`);
      }
      if (await openPullJoining(tx, repo.id, head, base)) throw conflict(`an open pull request already merges ${head} into ${base}`);
      const number = await takeNextNumber(tx, repo.id);
      if (number === undefined) throw notFound('Not found');
      const pullId = await insertPull(tx, { repoId: repo.id, number, authorId: author.id, title, description, head, base, headSha: (await tips.get(head))!, baseSha: (await tips.get(base))!, now });
      await this.recordPullEvent(tx, repo, author, pullId, countsOf, { action: 'opened' });
      await noteCrossReferences(tx, repo, number, author, description, now);
      await notifyThread(tx, repo, number, author.id, { text: description, everyone: true, opened: true }, now);
      return pullId;
    });
    const created = await this.get(repo, id);
    this.prepareMerges(repo, [{ base: created.base_sha, head: created.head_sha }]);
    return created;
  }

  /** Edits title, description, base and open/closed: the author or a collaborator with write access. */
  async update(repo: RepositoryRow, viewer: Viewer, id: number, changes: PullChanges): Promise<PullRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    const pull = await this.get(repo, id);
    await mayChange(this.store, repo, viewer, pull.author_id, 'Only the author or a collaborator with write access may change this pull request');
    const title = changes.title === undefined ? pull.title : requiredText('title', changes.title, MAX_TITLE);
    const description = changes.description === undefined ? pull.description : optionalText('description', changes.description, MAX_BODY);
    const base = changes.base === undefined ? pull.base : requiredText('base', changes.base, 255);
    const status = changes.status;
    if (status !== undefined && status !== 'open' && status !== 'closed') throw invalid("status must be 'open' or 'closed' (merge through the merge endpoint)");
    const now = this.now();
    // What its events may count: as it is, onto the new base, and reopened on the tips of its branches.
    const ahead = async () => {
      const known = branchTips(this.store, repo.id);
      const baseTip = await known.get(base);
      return [[pull.base_sha, pull.head_sha], [baseTip, pull.head_sha], [baseTip, await known.get(pull.head)]] as const;
    };
    await this.writeCounting(repo, ahead, async (tx, countsOf) => {
      const current = await this.recordIn(tx, repo, pull.id);
      const open = status === undefined ? current.status === 'open' : status === 'open';
      if (current.status === 'merged' && (status !== undefined || base !== current.base)) throw conflict('a merged pull request cannot be changed');
      const tips = branchTips(tx, repo.id);
      if (base !== current.base) {
        if (!await tips.has(base)) throw invalid(`base branch '${base}' does not exist`);
        if (base === current.head) throw invalid('head and base must be different branches');
      }
      if (open && (current.status !== 'open' || base !== current.base)) {
        if (!await tips.has(current.head)) throw conflict(`head branch '${current.head}' no longer exists`);
        const other = await openPullJoining(tx, repo.id, current.head, base);
        if (other && other.id !== current.id) throw conflict(`an open pull request already merges ${current.head} into ${base}`);
      }
      await updatePull(tx, current.id, { title, description, base, baseSha: await tips.get(base) ?? current.base_sha }, now);
      const changes: EditChanges = {};
      if (title !== current.title) changes.title = { from: current.title };
      if (description !== current.description) changes.body = { from: current.description };
      if (base !== current.base) changes.base = { ref: { from: current.base }, sha: { from: current.base_sha } };
      if (Object.keys(changes).length > 0) await this.recordPullEvent(tx, repo, viewer!, current.id, countsOf, { action: 'edited', changes });
      if (title !== current.title) await insertIssueEvent(tx, repo.id, current.number, 'renamed', { actorId: viewer?.id, rename: { from: current.title, to: title } }, now);
      if (description !== current.description) await noteCrossReferences(tx, repo, current.number, viewer!, description, now);
      if (status !== undefined && (status === 'open') !== (current.status === 'open')) {
        await setPullOpen(tx, current.id, open, now);
        if (open) await setPullShas(tx, current.id, (await tips.get(current.head))!, (await tips.get(base))!, now);
        await this.recordPullEvent(tx, repo, viewer!, current.id, countsOf, { action: open ? 'reopened' : 'closed' });
        await insertIssueEvent(tx, repo.id, current.number, open ? 'reopened' : 'closed', { actorId: viewer?.id }, now);
        await notifyThread(tx, repo, current.number, viewer?.id, { everyone: true }, now);
      }
    });
    const updated = await this.get(repo, pull.id);
    if (updated.status === 'open' && (updated.base !== pull.base || pull.status !== 'open')) this.prepareMerges(repo, [{ base: updated.base_sha, head: updated.head_sha }]);
    return updated;
  }

  /** A merge on the timeline as GitHub shows it: `merged` with the commit, then `closed`. */
  private async noteMerged(tx: WriteTx, repo: RepositoryRow, number: number, actorId: number | undefined, commitId: string, now: string): Promise<void> {
    await insertIssueEvent(tx, repo.id, number, 'merged', { actorId, commitId }, now);
    await insertIssueEvent(tx, repo.id, number, 'closed', { actorId, commitId }, now);
    await notifyThread(tx, repo, number, actorId, { everyone: true }, now);
  }

  /** The summary with mergeability computed from the commits the pull request joins now. */
  async summary(repo: RepositoryRow, pull: PullRow): Promise<PullSummary> {
    return (await this.summaries(repo, [pull]))[0]!;
  }

  /**
   * The summaries of a list, in a fixed number of statements whatever its length (issue 39): the branch tips and the
   * head commits' statuses of all of them at once; mergeability comes from git, cached by commit id.
   */
  async summaries(repo: RepositoryRow, pulls: readonly PullRow[]): Promise<PullSummary[]> {
    const open = pulls.filter((pull) => pull.status === 'open');
    const tips = await branchTipsNamed(this.store, repo.id, open.flatMap((pull) => [pull.head, pull.base]));
    const checks = await this.statuses.combinedOfEach(repo, pulls.map((pull) => pull.head_sha));
    return await Promise.all(
      pulls.map(async (pull) => {
        const { author_id: _authorId, ...fields } = pull;
        return { ...fields, mergeable: await this.mergeable(repo, pull, tips), merged: pull.status === 'merged', checks_state: checks.get(pull.head_sha)!.state };
      }),
    );
  }

  async commits(repo: RepositoryRow, id: number): Promise<CommitSummary[]> {
    const pull = await this.get(repo, id);
    return this.git.compare.commitsBetween(repo.owner_name, repo.name, pull.base_sha, pull.head_sha);
  }

  /** The files the pull request changes (`ignoreWhitespace`: changes of white space alone left out of the patches). */
  async files(repo: RepositoryRow, id: number, ignoreWhitespace = false): Promise<ChangedFile[]> {
    const pull = await this.get(repo, id);
    return this.git.compare.changedFiles(repo.owner_name, repo.name, pull.base_sha, pull.head_sha, ignoreWhitespace);
  }

  /** The files the pull request changed up to `commit`, one of its commits (what a review comment on it is placed in). */
  async filesAt(repo: RepositoryRow, pull: PullRow, commit: string): Promise<ChangedFile[]> {
    return this.git.compare.changedFiles(repo.owner_name, repo.name, pull.base_sha, commit);
  }

  /** One of the pull request's files with all its lines (`files` shows the lines around each change). */
  async fileWithAllLines(repo: RepositoryRow, id: number, file: ChangedFile, ignoreWhitespace = false): Promise<ChangedFile | undefined> {
    const pull = await this.get(repo, id);
    return this.git.compare.changedFileWithAllLines(repo.owner_name, repo.name, pull.base_sha, pull.head_sha, file, ignoreWhitespace);
  }

  /**
   * What a pull request from `head` into `base` would hold before it is opened (the compare page): the branch tips,
   * the commits, the changed files and whether it merges cleanly. Unknown branches are 404s.
   */
  async compare(repo: RepositoryRow, base: string, head: string): Promise<BranchComparison> {
    const tips = branchTips(this.store, repo.id);
    const baseSha = await tips.get(base);
    const headSha = await tips.get(head);
    if (!baseSha || !headSha) throw notFound('Branch not found');
    if (base === head) return { baseSha, headSha, commits: [], files: [], mergeable: true };
    const [commits, files, mergeable] = await Promise.all([
      this.git.compare.commitsBetween(repo.owner_name, repo.name, baseSha, headSha),
      this.git.compare.changedFiles(repo.owner_name, repo.name, baseSha, headSha),
      this.git.compare.mergeable(repo.owner_name, repo.name, baseSha, headSha),
    ]);
    return { baseSha, headSha, commits, files, mergeable };
  }

  /** The whole unified diff or the format-patch series, streamed from git. */
  async diff(repo: RepositoryRow, id: number, kind: 'diff' | 'patch'): Promise<Readable> {
    const pull = await this.get(repo, id);
    return this.git.compare.diffStream(repo.owner_name, repo.name, pull.base_sha, pull.head_sha, kind);
  }

  /**
   * Merges with write access: the new commit is made in the bare repository and the base moves only if it still
   * points where it did (a concurrent push wins cleanly). 405 when it cannot merge, 409 when head moved.
   */
  async merge(repo: RepositoryRow, viewer: Viewer, id: number, request: MergeRequest): Promise<{ sha: string }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Merging needs write access');
    // A delete or rename racing the merge answers 409 (or the merge 404), never git in a folder that moved.
    return this.whileUnchanged(repo, (current) => this.mergeHolding(current, viewer, id, request));
  }

  private async mergeHolding(repo: RepositoryRow, viewer: Viewer, id: number, request: MergeRequest): Promise<{ sha: string }> {
    const merger = viewer!;
    const method = (request.method ?? 'merge') as MergeMethod;
    if (!METHODS.includes(method)) throw invalid("method must be 'merge', 'squash', 'rebase' or 'fast-forward'");
    const title = optionalText('title', request.title, MAX_TITLE);
    const message = optionalText('message', request.message, MAX_BODY);
    const pull = await this.get(repo, id);
    if (pull.status === 'merged') throw notAllowed('the pull request is already merged');
    if (pull.status !== 'open') throw notAllowed('the pull request is closed');
    const tips = branchTips(this.store, repo.id);
    const headSha = await tips.get(pull.head);
    const baseSha = await tips.get(pull.base);
    if (!headSha) throw notAllowed(`head branch '${pull.head}' no longer exists`);
    if (!baseSha) throw notAllowed(`base branch '${pull.base}' no longer exists`);
    if (request.headSha !== undefined && request.headSha !== '' && request.headSha !== headSha) {
      throw conflict('Head branch was modified. Review and try the merge again.');
    }
    await this.gates.require(repo, viewer, pull.base, pull, headSha);
    const now = this.now();
    const identity = { name: merger.full_name || merger.username, email: this.committerEmail(merger), date: now };
    // GitHub's default titles; a merge names the head as `owner/branch` (tools that read merge commits parse it so).
    const defaultTitle = method === 'squash' ? `${pull.title} (#${pull.number})` : `Merge pull request #${pull.number} from ${repo.owner_name}/${pull.head}`;
    // Noted before the base moves: a crash between update-ref and the record below is reconciled at the next start.
    const intent = await this.journal.open(repo);
    let result: MergeResult;
    try {
      result = await this.git.compare.merge(repo.owner_name, repo.name, {
        base: pull.base,
        baseSha,
        headSha,
        method,
        message: `${title || defaultTitle}\n\n${message || (method === 'squash' ? '' : pull.title)}`.trim() + '\n',
        committer: identity,
        // GitHub credits a squash to the pull request's author; the merger is its committer.
        author: method === 'squash' ? await this.authorIdentity(pull, now) ?? identity : identity,
      });
    } catch (error) {
      // The base moves last in a merge, only if everything before succeeded: a failed merge moved nothing.
      await this.journal.discard(repo, intent);
      throw error;
    }
    const moved = result.sha !== baseSha ? [{ ref: `${BRANCH_PREFIX}${pull.base}`, before: baseSha, after: result.sha }] : [];
    // Like a push, the base moving is a `push` event with the commits it brought (a merge only ever moves it forward).
    const pushed = moved.map(() => ({ commits: result.commits, head: result.commits.at(-1) ?? null, forced: false }));
    try {
      // Its event counts the pair it merged (what `markPullMerged` records).
      await this.writeCounting(repo, async () => [[baseSha, headSha]], async (tx, countsOf) => {
        if (moved.length > 0) {
          await upsertBranch(tx, repo.id, pull.base, result.sha, now);
          await markPushed(tx, repo.id, now);
        }
        // The base holds the merge now (git moved it last): the record follows git even when a close or a change of
        // base raced this merge since it read the pull request, as one merged by hand is marked merged (afterRefsMoved).
        const current = await this.recordIn(tx, repo, pull.id);
        const merging = current.status !== 'merged';
        if (merging) await markPullMerged(tx, pull.id, { byUserId: merger.id, sha: result.sha, headSha, baseSha, base: pull.base, now }, current.status === 'closed' ? 'closed' : 'open');
        await this.events.recordRefChanges(tx, repo, merger, moved, pushed);
        if (merging) {
          await this.recordPullEvent(tx, repo, merger, pull.id, countsOf, { action: 'closed' });
          await this.noteMerged(tx, repo, pull.number, merger.id, result.sha, now);
        }
        // Reaching the default branch, the description's and the commits' closing keywords close their issues.
        if (pull.base === repo.default_branch) await closeReferencedIssues(tx, this.events, repo, merger, [pull.description, ...result.commits.map((commit) => commit.message)], now);
        await deleteRefIntent(tx, intent.id);
      });
    } catch (error) {
      await intent.close(false);
      throw error;
    }
    await intent.close(true);
    // The other open pull requests on this base follow in the background: what they show of mergeability is computed
    // from the branches when read, so only their recorded commits lag by a moment.
    if (moved.length > 0) this.background(() => this.afterRefsMoved(repo, moved, merger));
    if (truthy(request.deleteBranch)) await this.deleteHeadBranch(repo, pull.head, headSha, merger);
    return { sha: result.sha };
  }

  /**
   * Follows refs that moved (a push, a merge): open pull requests get their new commits, and one whose head became
   * reachable from its base was merged by hand and is marked so, as Gitea does. One git run per distinct new base
   * finds what it merged.
   */
  async afterRefsMoved(repo: RepositoryRow, changes: readonly RefChange[], pusher: UserRow | undefined): Promise<void> {
    const moved = new Map(changes.filter((change) => change.ref.startsWith(BRANCH_PREFIX)).map((change) => [change.ref.slice(BRANCH_PREFIX.length), change.after]));
    const pulls = moved.size > 0 ? await openPullsTouching(this.store, repo.id, [...moved.keys()]) : [];
    // A branch's commit: where it moved to, else as recorded (read through `db`: the store, or inside the write its transaction).
    const tipsIn = (db: ReadTx) => {
      const recorded = branchTips(db, repo.id);
      return async (branch: string) => {
        const after = moved.get(branch);
        return after === undefined ? await recorded.get(branch) : /^0+$/.test(after) ? undefined : after;
      };
    };
    const tipOf = tipsIn(this.store);
    const mergedInto = new Map<string, Promise<Set<string>>>();
    /** The pull requests this merged, each with the commit that merged it. */
    const merged = new Map<number, string>();
    for (const pull of pulls) {
      const base = await tipOf(pull.base);
      if (!base || base === pull.base_sha) continue;
      if (!mergedInto.has(base)) {
        const merged = this.git.compare.branchesMergedInto(repo.owner_name, repo.name, base);
        // Not awaited when every head of this base is gone: its failure must not go unhandled then.
        merged.catch(() => undefined);
        mergedInto.set(base, merged);
      }
      const head = await tipOf(pull.head);
      // A deleted head is judged by its last known commit.
      const isMerged = head
        ? (await mergedInto.get(base)!).has(pull.head)
        : pull.head_sha !== '' && (await this.git.compare.isAncestor(repo.owner_name, repo.name, pull.head_sha, base));
      if (isMerged) merged.set(pull.id, await this.git.compare.mergingCommit(repo.owner_name, repo.name, head ?? pull.head_sha, base).catch(() => base));
    }
    if (pulls.length === 0) return;
    // Heads moved to a commit their last one is not part of: force-pushed; else how many commits came (read from git
    // before the write).
    const forced = new Set<number>();
    const gained = new Map<number, number>();
    for (const pull of pulls) {
      const head = moved.get(pull.head);
      if (head === undefined || /^0+$/.test(head) || merged.has(pull.id) || pull.head_sha === '' || head === pull.head_sha) continue;
      if (!(await this.git.compare.isAncestor(repo.owner_name, repo.name, pull.head_sha, head).catch(() => true))) forced.add(pull.id);
      else gained.set(pull.id, await this.git.countCommitsBetween(repo.owner_name, repo.name, pull.head_sha, head).catch(() => 0));
    }
    const now = this.now();
    // The pairs their events will count: a merged one keeps the base it had, the others join the tips they moved to.
    const ahead = async () =>
      await Promise.all(pulls.map(async (pull) => [merged.has(pull.id) ? pull.base_sha : await tipOf(pull.base), (await tipOf(pull.head)) ?? pull.head_sha] as const));
    await this.writeCounting(repo, ahead, async (tx, countsOf) => {
      const tipNow = tipsIn(tx);
      for (const pull of pulls) {
        const current = await pullInRepository(tx, repo.id, pull.id);
        if (!current || current.status !== 'open') continue;
        const base = (await tipNow(pull.base)) ?? current.base_sha;
        const head = (await tipNow(pull.head)) ?? current.head_sha;
        const mergedBy = merged.get(pull.id);
        if (mergedBy !== undefined) {
          await markPullMerged(tx, pull.id, { byUserId: pusher?.id ?? null, sha: mergedBy, headSha: head, baseSha: current.base_sha, now });
          await this.recordPullEvent(tx, repo, pusher, pull.id, countsOf, { action: 'closed' });
          await this.noteMerged(tx, repo, current.number, pusher?.id, mergedBy, now);
        } else {
          await setPullShas(tx, pull.id, head, base, now);
          if (head !== current.head_sha) await this.recordPullEvent(tx, repo, pusher, pull.id, countsOf, { action: 'synchronize', before: current.head_sha, after: head });
          // On the timeline, as GitHub's issue events name them.
          if (forced.has(pull.id) && head !== current.head_sha) await insertIssueEvent(tx, repo.id, current.number, 'head_ref_force_pushed', { actorId: pusher?.id, commitId: head }, now);
          const count = gained.get(pull.id);
          if (count && head !== current.head_sha) {
            await insertIssueEvent(tx, repo.id, current.number, 'pushed', { actorId: pusher?.id, commitId: head, push: { before: current.head_sha, count } }, now);
            await notifyThread(tx, repo, current.number, pusher?.id, { everyone: true }, now);
          }
          if (/^0+$/.test(moved.get(pull.head) ?? '')) await insertIssueEvent(tx, repo.id, current.number, 'head_ref_deleted', { actorId: pusher?.id }, now);
        }
      }
    });
    this.prepareMerges(repo, (await Promise.all(pulls.filter((pull) => !merged.has(pull.id)).map(async (pull) => ({ base: await tipOf(pull.base), head: await tipOf(pull.head) })))));
  }

  /**
   * Mergeability of pairs that are new or moved is worked out now, in the background, one pair at a time, rather than
   * by the next read or merge (which then find it cached by the pair of commit ids).
   */
  private prepareMerges(repo: RepositoryRow, pairs: ReadonlyArray<{ base: string | undefined; head: string | undefined }>): void {
    if (pairs.length === 0) return;
    this.background(async () => {
      for (const { base, head } of pairs) if (base && head) await this.git.compare.prepareMerge(repo.owner_name, repo.name, base, head).catch(() => undefined);
    });
  }

  /** Locks or unlocks the pull request's conversation (writers only), with its issue event and a `pull_request` event. */
  async setLock(repo: RepositoryRow, viewer: Viewer, pullId: number, change: LockChange): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Locking needs write access');
    const pull = await this.get(repo, pullId);
    await this.writeCounting(repo, async () => [[pull.base_sha, pull.head_sha]], async (tx, countsOf) => {
      const current = await this.recordIn(tx, repo, pull.id);
      if (await setConversationLock(tx, 'pull', repo, current, viewer!.id, change, this.now())) await this.recordPullEvent(tx, repo, viewer!, pull.id, countsOf, { action: change.locked ? 'locked' : 'unlocked' });
    });
  }

  /** A `pull_request` event with the pull request as the write left it. */
  private async recordPullEvent(
    tx: WriteTx,
    repo: RepositoryRow,
    sender: UserRow | undefined,
    pullId: number,
    countsOf: CountsOf,
    fields: Pick<PullRequestEvent, 'action' | 'changes' | 'before' | 'after'>,
  ): Promise<void> {
    await this.events.record(tx, repo, sender, 'pull_request', async (current) => {
      const pull = (await pullInRepository(tx, repo.id, pullId))!;
      return { ...fields, number: pull.number, pull_request: await this.events.github.pull(tx, current, pull, undefined, countsOf(pull)) };
    });
  }

  /**
   * What the pull request changes, as GitHub counts it (commits, files, lines), from git and cached by its pair of
   * commits; zeros only where git cannot tell (a pull request recorded without its commits).
   */
  async stats(repo: RepositoryRow, pull: PullRow): Promise<DiffStats> {
    return await this.git.compare.diffStats(repo.owner_name, repo.name, pull.base_sha, pull.head_sha).catch(() => NO_COUNTS);
  }

  /** Counts a pair of commits into `counted`, where writes find it (a failure is not kept: the pair stays uncounted). */
  private async count(repo: RepositoryRow, base: string, head: string): Promise<void> {
    const key = pullStatsKey(base, head);
    if (this.counted.get(key)) return;
    const counts = await this.git.compare.diffStats(repo.owner_name, repo.name, base, head).catch(() => undefined);
    if (counts) this.counted.set(key, counts);
  }

  /**
   * A write whose `pull_request` events carry what the pull requests change, counted by git, which cannot run inside
   * a transaction. When a hook or a listener will hear those events, the pairs of commits `ahead` names (those the
   * write is expected to record) are counted first; a pair the write then finds uncounted (a branch moved meanwhile,
   * a hook was added) is counted and the write runs again. Its last attempt takes zeros for a pair still missing.
   */
  private async writeCounting<T>(
    repo: RepositoryRow,
    ahead: () => Promise<ReadonlyArray<readonly [string | undefined, string | undefined]>>,
    work: (tx: WriteTx, countsOf: CountsOf) => Promise<T>,
  ): Promise<T> {
    if (await this.events.anyoneHears(this.store, repo.id, ['pull_request'])) {
      await Promise.all((await ahead()).map(async ([base, head]) => (base && head ? await this.count(repo, base, head) : undefined)));
    }
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt === COUNTING_ATTEMPTS;
      const countsOf: CountsOf = (pull) => {
        const counted = this.counted.get(pullStatsKey(pull.base_sha, pull.head_sha));
        if (counted) return counted;
        if (last) return NO_COUNTS;
        throw new CountsNeeded(pull.base_sha, pull.head_sha);
      };
      try {
        return await writeToRepository(this.store, repo, (tx) => work(tx, countsOf));
      } catch (error) {
        if (!(error instanceof CountsNeeded) || last) throw error;
        await this.count(repo, error.base, error.head);
      }
    }
  }

  /**
   * Work that follows an answer: kept until done (see `idle`), its failure never breaks a request. It starts on the
   * next turn of the event loop, once the answer in hand is written: spawning git blocks the loop for a moment.
   */
  private background(work: () => Promise<unknown>): void {
    const tracked = new Promise((resolve) => setImmediate(resolve))
      .then(work)
      .catch(() => undefined)
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves once the background work started so far has finished (tests, harnesses). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /**
   * Deletes the merged head branch, only if nobody pushed to it meanwhile and its protection allows deletion (the one
   * rule every ref change passes); otherwise the branch stays as it is and the merge still succeeded.
   */
  private async deleteHeadBranch(repo: RepositoryRow, branch: string, expectedSha: string, deleter: UserRow): Promise<void> {
    const change = { ref: `${BRANCH_PREFIX}${branch}`, before: expectedSha, after: '0'.repeat(expectedSha.length) };
    const refusal = await pushRefusal(await this.protection.pushRules(repo, deleter), change.ref, change.before, change.after, () => false, async () => [], repo.default_branch);
    if (refusal !== undefined) return;
    const intent = await this.journal.open(repo);
    const deleted = await this.git.deleteBranch(repo.owner_name, repo.name, branch, expectedSha).catch(() => false);
    if (!deleted) return this.journal.discard(repo, intent);
    try {
      await writeToRepository(this.store, repo, async (tx) => {
        await deleteBranch(tx, repo.id, branch);
        await this.events.recordRefChanges(tx, repo, deleter, [change], [NOTHING_PUSHED]);
        await deleteRefIntent(tx, intent.id);
      });
    } catch (error) {
      await intent.close(false);
      throw error;
    }
    await intent.close(true);
    await this.afterRefsMoved(repo, [change], deleter);
  }

  /** Whether an open pull request merges cleanly now (`tips`: the branches' commits, by name). */
  /**
   * GitHub's `merge_commit_sha` of an open pull request: the test merge of its branches' tips, or null when they do not
   * merge (or a branch is gone); a merged one's merge commit, as recorded.
   */
  async testMerge(repo: RepositoryRow, pull: PullRow): Promise<string | null> {
    if (pull.status !== 'open') return pull.merge_commit_sha;
    const tips = await branchTipsNamed(this.store, repo.id, [pull.head, pull.base]);
    const head = tips.get(pull.head);
    const base = tips.get(pull.base);
    return (head && base && (await this.git.compare.testMergeCommit(repo.owner_name, repo.name, base, head))) || null;
  }

  private async mergeable(repo: RepositoryRow, pull: PullRow, tips: ReadonlyMap<string, string>): Promise<boolean | null> {
    if (pull.status !== 'open') return null;
    const head = tips.get(pull.head);
    const base = tips.get(pull.base);
    // A deleted branch closes nothing, but there is nothing to merge until it is back.
    if (!head || !base) return false;
    return this.git.compare.mergeable(repo.owner_name, repo.name, base, head);
  }

  private async recordIn(tx: WriteTx, repo: RepositoryRow, id: number): Promise<PullRow> {
    const pull = await pullInRepository(tx, repo.id, id);
    if (!pull) throw notFound('Pull request not found');
    return pull;
  }
}

/** The commit each of the repository's branches points to, as recorded after the last ref change. */
function branchTips(db: ReadTx, repoId: number): { get(branch: string): Promise<string | undefined>; has(branch: string): Promise<boolean> } {
  return { get: async (branch) => await branchTip(db, repoId, branch), has: async (branch) => await branchTip(db, repoId, branch) !== undefined };
}
