import { invalid } from '../errors.js';
import type { Db } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { repositoryByFullName } from '../store/queries/repositories.js';
import { searchConversations, type ConversationSearch, type SearchHit } from '../store/queries/search.js';
import { userByName } from '../store/queries/users.js';
import { accessLevel, type Viewer } from './permissions.js';

const MAX_QUERY = 256;
const MAX_WORDS = 10;
const DATE = /^(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?)$/;
const TIME_COLUMNS = { created: 'created_at', updated: 'updated_at', closed: 'closed_at', merged: 'merged_at' } as const;

/** The words and `key:value` qualifiers of a query, quotes keeping spaces inside one. */
function tokens(q: string): string[] {
  return [...q.matchAll(/(?:[^\s"]+:)?"[^"]*"|\S+/g)].map((match) => match[0].replace(/"/g, ''));
}

function date(qualifier: string, value: string): string {
  if (!DATE.test(value) || Number.isNaN(Date.parse(value))) throw invalid(`${qualifier} needs a date such as 2026-01-31: ${value}`);
  return new Date(Date.parse(value)).toISOString();
}

/** `created:>=2026-01-01`, `updated:<2026-02-01`, `merged:2026-01-01..2026-01-31` as conditions. */
function times(key: keyof typeof TIME_COLUMNS, value: string): ConversationSearch['times'] {
  const column = TIME_COLUMNS[key];
  const range = /^(.+)\.\.(.+)$/.exec(value);
  if (range) return [{ column, op: '>=', value: date(key, range[1]!) }, { column, op: '<=', value: date(key, range[2]!) }];
  const compared = /^(>=|<=|>|<)(.+)$/.exec(value);
  if (compared) return [{ column, op: compared[1] as '>' | '>=' | '<' | '<=', value: date(key, compared[2]!) }];
  // A bare day: that whole day.
  const day = date(key, value);
  return [{ column, op: '>=', value: day }, { column, op: '<', value: new Date(Date.parse(day) + 86_400_000).toISOString() }];
}

/**
 * GitHub's issue search (`GET /search/issues`) over what the viewer may read: `repo:`, `user:`/`org:`, `is:`/`type:`
 * (issue, pr, open, closed, merged, unmerged), `state:`, `author:`, `assignee:`, `no:assignee`, `label:`, `no:label`,
 * `milestone:` (its title), `no:milestone`,
 * `in:title`/`in:body`, `created:`/`updated:`/`closed:`/`merged:` dates, and words matched in titles and bodies. A
 * qualifier it does not know is refused (422), never ignored; a repository or account that does not exist (or is
 * hidden) matches nothing.
 */
export class SearchService {
  constructor(private readonly store: Db) {}

  async issues(viewer: Viewer, q: string, sort: string | undefined, order: string | undefined, page: PageWindow): Promise<{ items: SearchHit[]; total: number }> {
    if (q.trim() === '') throw invalid('q is required');
    if (q.length > MAX_QUERY) throw invalid(`q must be at most ${MAX_QUERY} characters`);
    if (sort !== undefined && sort !== 'created' && sort !== 'updated' && sort !== 'comments') throw invalid("sort must be 'created', 'updated' or 'comments'");
    if (order !== undefined && order !== 'asc' && order !== 'desc') throw invalid("order must be 'asc' or 'desc'");
    const search: ConversationSearch & { labels: string[]; words: string[]; times: Array<ConversationSearch['times'][number]> } = {
      viewerId: viewer?.id ?? null,
      labels: [],
      words: [],
      in: 'both',
      times: [],
      sort: (sort as ConversationSearch['sort'] | undefined) ?? 'created',
      order: (order as ConversationSearch['order'] | undefined) ?? 'desc',
    };
    const repoIds: number[] = [];
    const ownerIds: number[] = [];
    let nothing = false;
    const accountId = async (login: string) => (await userByName(this.store, login))?.id;
    for (const token of tokens(q)) {
      const qualifier = /^([a-z]+):(.+)$/.exec(token);
      if (!qualifier) {
        search.words.push(token);
        continue;
      }
      const [, key, value] = qualifier as unknown as [string, string, string];
      switch (key) {
        case 'repo': {
          const [owner, name] = value.split('/');
          const repo = owner && name ? await repositoryByFullName(this.store, owner, name) : undefined;
          if (repo && (await accessLevel(this.store, viewer, repo)) !== 'none') repoIds.push(repo.id);
          else nothing = true;
          break;
        }
        case 'user':
        case 'org': {
          const id = await accountId(value);
          if (id === undefined) nothing = true;
          else ownerIds.push(id);
          break;
        }
        case 'is':
        case 'type':
        case 'state':
          if (value === 'issue' && key !== 'state') search.kind = 'issue';
          else if ((value === 'pr' || value === 'pull-request') && key !== 'state') search.kind = 'pull';
          else if (value === 'open' || value === 'closed') search.state = value;
          else if ((value === 'merged' || value === 'unmerged') && key === 'is') search.merged = value === 'merged';
          else throw invalid(`repohost does not support ${key}:${value}`);
          break;
        case 'author':
        case 'assignee': {
          const id = await accountId(value);
          if (id === undefined) nothing = true;
          else if (key === 'author') search.authorId = id;
          else search.assigneeId = id;
          break;
        }
        case 'label':
          search.labels.push(value.toLowerCase());
          break;
        case 'milestone':
          search.milestone = value.toLowerCase();
          break;
        case 'no':
          if (value === 'assignee') search.noAssignee = true;
          else if (value === 'label') search.noLabel = true;
          else if (value === 'milestone') search.noMilestone = true;
          else throw invalid(`repohost does not support no:${value}`);
          break;
        case 'in':
          if (value !== 'title' && value !== 'body') throw invalid(`repohost does not support in:${value} (in:title or in:body)`);
          search.in = value;
          break;
        case 'created':
        case 'updated':
        case 'closed':
        case 'merged':
          search.times.push(...times(key, value));
          break;
        default:
          throw invalid(`repohost does not support the qualifier ${key}:`);
      }
    }
    if (search.words.length > MAX_WORDS) throw invalid(`q may hold at most ${MAX_WORDS} words`);
    if (nothing) return { items: [], total: 0 };
    if (repoIds.length > 0) search.repoIds = repoIds;
    if (ownerIds.length > 0) search.ownerIds = ownerIds;
    return await this.store.read(async (tx) => await searchConversations(tx, search, page));
  }
}
