import type { ReadTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';
import { readableBy } from './readable.js';

/** What a search for issues and pull requests asks (GitHub's `q` qualifiers, parsed by services/search.ts). */
export interface ConversationSearch {
  /** Repositories to search; undefined: every one the viewer may read. */
  repoIds?: readonly number[];
  /** Owners whose repositories to search (`user:`, `org:`). */
  ownerIds?: readonly number[];
  viewerId: number | null;
  kind?: 'issue' | 'pull';
  state?: 'open' | 'closed';
  merged?: boolean;
  authorId?: number;
  assigneeId?: number;
  noAssignee?: boolean;
  /** Lower-cased label names, every one of which must be on the issue or pull request. */
  labels: readonly string[];
  noLabel?: boolean;
  /** Lower-cased title of the milestone every match is in (`milestone:`), or none at all (`no:milestone`). */
  milestone?: string;
  noMilestone?: boolean;
  /** Words every match has in its title or body (or only the one `in:` names). */
  words: readonly string[];
  in: 'title' | 'body' | 'both';
  /** Times as stored (ISO 8601), by column: `created_at >= ?` and so on. */
  times: ReadonlyArray<{ column: 'created_at' | 'updated_at' | 'closed_at' | 'merged_at'; op: '>' | '>=' | '<' | '<='; value: string }>;
  sort: 'created' | 'updated' | 'comments';
  order: 'asc' | 'desc';
}

export interface SearchHit {
  kind: 'issue' | 'pull';
  id: number;
  repo_id: number;
}

/** `LIKE` that takes the text literally (`%` and `_` escaped). */
const like = (word: string) => `%${word.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

function conditions(search: ConversationSearch): { where: string; params: Array<string | number> } {
  const parts: string[] = [];
  const params: Array<string | number> = [];
  if (search.repoIds) {
    const list = inList(search.repoIds);
    parts.push(`c.repo_id ${list.sql}`);
    params.push(...(list.params as number[]));
  }
  if (search.ownerIds) {
    const list = inList(search.ownerIds);
    parts.push(`r.owner_id ${list.sql}`);
    params.push(...(list.params as number[]));
  }
  // What the viewer may read: public repositories, their own, and those they collaborate on.
  parts.push(readableBy('?'));
  params.push(search.viewerId ?? 0, search.viewerId ?? 0);
  if (search.kind) {
    parts.push('c.kind = ?');
    params.push(search.kind);
  }
  if (search.state === 'open') parts.push("c.state = 'open'");
  if (search.state === 'closed') parts.push("c.state IN ('closed', 'merged')");
  if (search.merged === true) parts.push("c.state = 'merged'");
  if (search.merged === false) parts.push("c.kind = 'pull' AND c.state <> 'merged'");
  if (search.authorId !== undefined) {
    parts.push('c.author_id = ?');
    params.push(search.authorId);
  }
  const assigned = 'SELECT 1 FROM assignees a WHERE a.repo_id = c.repo_id AND a.number = c.number';
  if (search.assigneeId !== undefined) {
    parts.push(`EXISTS (${assigned} AND a.user_id = ?)`);
    params.push(search.assigneeId);
  }
  if (search.noAssignee) parts.push(`NOT EXISTS (${assigned})`);
  // Issues and pull requests keep their labels in tables of their own.
  const labelled = (name: boolean) =>
    `(EXISTS (SELECT 1 FROM issue_labels il JOIN labels l ON l.id = il.label_id WHERE c.kind = 'issue' AND il.issue_id = c.id${name ? ' AND l.name_lower = ?' : ''})
      OR EXISTS (SELECT 1 FROM pull_labels pl JOIN labels l ON l.id = pl.label_id WHERE c.kind = 'pull' AND pl.pull_id = c.id${name ? ' AND l.name_lower = ?' : ''}))`;
  for (const name of search.labels) {
    parts.push(labelled(true));
    params.push(name, name);
  }
  if (search.noLabel) parts.push(`NOT ${labelled(false)}`);
  const milestoned = 'SELECT 1 FROM conversation_milestones cm JOIN milestones m ON m.id = cm.milestone_id WHERE cm.repo_id = c.repo_id AND cm.number = c.number';
  if (search.milestone !== undefined) {
    parts.push(`EXISTS (${milestoned} AND m.title_lower = ?)`);
    params.push(search.milestone);
  }
  if (search.noMilestone) parts.push(`NOT EXISTS (${milestoned})`);
  for (const word of search.words) {
    const columns = search.in === 'title' ? ['c.title'] : search.in === 'body' ? ['c.body'] : ['c.title', 'c.body'];
    parts.push(`(${columns.map((column) => `LOWER(${column}) LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    for (let i = 0; i < columns.length; i++) params.push(like(word.toLowerCase()));
  }
  for (const time of search.times) {
    parts.push(`c.${time.column} ${time.op} ?`);
    params.push(time.value);
  }
  return { where: parts.join(' AND '), params };
}

const CONVERSATIONS = `(
  SELECT 'issue' AS kind, i.id, i.repo_id, i.number, i.title, i.body, i.status AS state, i.author_id, i.created_at, i.updated_at, i.closed_at,
    NULL AS merged_at, i.comment_count AS comments FROM issues i
  UNION ALL
  SELECT 'pull' AS kind, p.id, p.repo_id, p.number, p.title, p.description AS body, p.status AS state, p.author_id, p.created_at, p.updated_at,
    p.closed_at, p.merged_at, p.comment_count AS comments FROM pull_requests p
) AS c JOIN repositories r ON r.id = c.repo_id`;

/** A page of the issues and pull requests a search finds, and how many it finds in all. */
export async function searchConversations(db: ReadTx, search: ConversationSearch, page: PageWindow): Promise<{ items: SearchHit[]; total: number }> {
  const { where, params } = conditions(search);
  const direction = search.order === 'asc' ? 'ASC' : 'DESC';
  const column = search.sort === 'updated' ? 'c.updated_at' : search.sort === 'comments' ? 'c.comments' : 'c.created_at';
  const items = await db.all<SearchHit>(`SELECT c.kind, c.id, c.repo_id FROM ${CONVERSATIONS} WHERE ${where} ORDER BY ${column} ${direction}, c.id ${direction} LIMIT ? OFFSET ?`, [
    ...params,
    page.limit,
    page.offset,
  ]);
  const total = (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${CONVERSATIONS} WHERE ${where}`, params))!.n;
  return { items, total };
}
