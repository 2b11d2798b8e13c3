import { insertIssueEvent } from '../store/queries/issue-events.js';
import { invalid } from '../errors.js';
import type { EventRecorder } from '../events/index.js';
import type { Db, WriteTx } from '../store/interface.js';
import { assign, assignableUsernames, assigneesOf, unassign } from '../store/queries/assignees.js';
import { collaboratorPermission } from '../store/queries/collaborators.js';
import { issueByNumber } from '../store/queries/issues.js';
import { pullByNumber } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { userByName, type UserRow } from '../store/queries/users.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { notifyThread } from './notifications.js';

/** GitHub's most assignees of one issue or pull request. */
const MAX_ASSIGNEES = 10;

/**
 * Assignees of issues and pull requests (by their number, one numbering for both): accounts that may be assigned are
 * the owner and the collaborators; assigning needs write access. Each account assigned or unassigned is an `issues` or
 * `pull_request` event (`assigned`, `unassigned`), as on GitHub.
 */
export class AssigneeService {
  constructor(
    private readonly store: Db,
    private readonly now: () => string,
    private readonly events: EventRecorder,
  ) {}

  /** Whether the account may be assigned in the repository. */
  async assignable(repo: RepositoryRow, user: UserRow): Promise<boolean> {
    return user.id === repo.owner_id || (await collaboratorPermission(this.store, repo.id, user.id)) !== undefined;
  }

  /** The assignees of the issue or pull request `number`. */
  async of(repo: RepositoryRow, number: number): Promise<string[]> {
    return (await assigneesOf(this.store, repo.id, [number])).get(number) ?? [];
  }

  /** Who may be assigned: the owner, then the collaborators. */
  async list(repo: RepositoryRow): Promise<string[]> {
    return await assignableUsernames(this.store, repo.id);
  }

  /**
   * The accounts `logins` names, checked (a list of at most 10 logins of accounts that may be assigned, or for
   * `removing`, of existing accounts): callers check before they write anything else.
   */
  async check(repo: RepositoryRow, logins: unknown, removing = false): Promise<UserRow[]> {
    if (!Array.isArray(logins) || !logins.every((login) => typeof login === 'string')) throw invalid('assignees must be a list of logins');
    const distinct = [...new Set(logins as string[])];
    if (distinct.length > MAX_ASSIGNEES) throw invalid(`an issue or pull request has at most ${MAX_ASSIGNEES} assignees`);
    const users: UserRow[] = [];
    for (const login of distinct) {
      const user = await userByName(this.store, login);
      if (!user || (!removing && !(await this.assignable(repo, user)))) throw invalid(`assignees must be accounts that may be assigned here (the owner or a collaborator): ${login}`);
      users.push(user);
    }
    return users;
  }

  /** Adds, removes or replaces the assignees of an issue or pull request; unknown or unassignable logins are refused. */
  async change(repo: RepositoryRow, viewer: Viewer, number: number, logins: unknown, mode: 'add' | 'remove' | 'replace'): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Assigning needs write access');
    const users = await this.check(repo, logins, mode === 'remove');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const current = new Set((await assigneesOf(tx, repo.id, [number])).get(number) ?? []);
      const removed = mode === 'remove' ? users : mode === 'replace' ? [...current].filter((name) => !users.some((user) => user.username === name)) : [];
      const added = mode === 'remove' ? [] : users.filter((user) => !current.has(user.username));
      if (current.size - removed.length + added.length > MAX_ASSIGNEES) throw invalid(`an issue or pull request has at most ${MAX_ASSIGNEES} assignees`);
      for (const user of removed) {
        const row = typeof user === 'string' ? await userByName(tx, user) : user;
        if (row && (await unassign(tx, repo.id, number, row.id))) await this.announce(tx, repo, viewer, number, 'unassigned', row, now);
      }
      for (const user of added) if (await assign(tx, repo.id, number, user.id, now)) await this.announce(tx, repo, viewer, number, 'assigned', user, now);
    });
  }

  /** The webhook event of an assignee added or removed, and the timeline's. */
  private async announce(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, number: number, action: 'assigned' | 'unassigned', user: UserRow, now: string): Promise<void> {
    await insertIssueEvent(tx, repo.id, number, action, { actorId: viewer?.id, subjectId: user.id }, now);
    if (action === 'assigned') await notifyThread(tx, repo, number, viewer?.id, { direct: [{ userId: user.id, reason: 'assign' }] }, now);
    const github = this.events.github;
    const issue = await issueByNumber(tx, repo.id, number);
    if (issue) {
      await this.events.record(tx, repo, viewer, 'issues', async (current) => ({ action, issue: await github.issue(tx, current, issue), assignee: github.user(user) }));
      return;
    }
    const pull = (await pullByNumber(tx, repo.id, number))!;
    await this.events.record(tx, repo, viewer, 'pull_request', async (current) => ({ action, number, pull_request: await github.pullForEvent(tx, current, pull), assignee: github.user(user) }));
  }
}
