import type { EventRecorder } from '../events/index.js';
import type { WriteTx } from '../store/interface.js';
import { insertIssueEvent } from '../store/queries/issue-events.js';
import { issueByNumber, issueInRepository, setIssueStatus } from '../store/queries/issues.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';

/**
 * GitHub's closing keywords: `close`, `fix` or `resolve` (any tense, any case, an optional colon) before `#N` or
 * `owner/repo#N`. Only references to the repository itself are kept (a reference to another repository is left
 * alone), at most MAX_CLOSED of them.
 */
const KEYWORD = /(?:^|[^\w/])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:([\w.-]+)\/([\w.-]+))?#(\d{1,9})\b/gi;
const MAX_CLOSED = 50;

/** The numbers of this repository's issues that `texts` close, in order of first mention. */
export function closedIssueNumbers(texts: readonly string[], repo: Pick<RepositoryRow, 'owner_name' | 'name'>): number[] {
  const numbers = new Set<number>();
  for (const text of texts) {
    for (const match of text.matchAll(KEYWORD)) {
      const [, owner, name, number] = match;
      if (owner !== undefined && (owner.toLowerCase() !== repo.owner_name.toLowerCase() || name!.toLowerCase() !== repo.name.toLowerCase())) continue;
      numbers.add(Number(number));
      if (numbers.size === MAX_CLOSED) return [...numbers];
    }
  }
  return [...numbers];
}

/**
 * Closes (as completed) the open issues `texts` name with a closing keyword, inside the write of the change that
 * reached the default branch (a merge, a push): each with its `issues` `closed` event, sent by `actor`. Pull request
 * numbers and unknown numbers are left alone. Answers the numbers it closed.
 */
export async function closeReferencedIssues(tx: WriteTx, events: EventRecorder, repo: RepositoryRow, actor: UserRow, texts: readonly string[], now: string): Promise<number[]> {
  const closed: number[] = [];
  for (const number of closedIssueNumbers(texts, repo)) {
    const issue = await issueByNumber(tx, repo.id, number);
    if (!issue || issue.status !== 'open') continue;
    await setIssueStatus(tx, issue.id, 'closed', actor.id, now, 'completed');
    await events.record(tx, repo, actor, 'issues', async (current) => ({ action: 'closed' as const, issue: await events.github.issue(tx, current, (await issueInRepository(tx, repo.id, issue.id))!) }));
    await insertIssueEvent(tx, repo.id, number, 'closed', { actorId: actor.id, stateReason: 'completed' }, now);
    closed.push(number);
  }
  return closed;
}
