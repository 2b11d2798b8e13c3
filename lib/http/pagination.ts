import type { H3Event } from 'h3';
import type { AppContext } from '../context.js';
import { queryString } from './validate.js';

/** Items per page unless `limit` says otherwise, and the most one page may hold (as Gitea). */
const DEFAULT_PAGE_LIMIT = 30;
const MAX_PAGE_LIMIT = 100;

/** One page of a list: what the store needs (`limit`, `offset`) and how to answer it (headers). */
export interface Page {
  readonly page: number;
  readonly limit: number;
  readonly offset: number;
  /** Sets `X-Total-Count` and an RFC 8288 `Link` header (first, prev, next, last) and returns the items. */
  respond<T>(total: number, items: T[]): T[];
  /** The page's share of a whole list held in memory (a pull request's commits or files), answered as `respond`. */
  slice<T>(all: readonly T[]): T[];
}

/** A positive integer query parameter; anything else (missing, 0, negative, not a number) is `fallback`. */
function positive(value: string | undefined, fallback: number): number {
  if (value === undefined || !/^\d{1,9}$/.test(value)) return fallback;
  const number = Number(value);
  return number >= 1 ? number : fallback;
}

/**
 * The page a list request asks for: `page` from 1 and `limit` from 1 to 100 (default 30), read leniently like
 * Gitea (a bad value means the default, a too large limit the maximum), so a list request never fails on paging;
 * `sizes` changes the default and the maximum for lists that page otherwise (a commit's files: 300).
 * Links are absolute, built on the host's base URL (never the request's Host header).
 */
export function pageOf(
  ctx: AppContext,
  event: H3Event,
  linkSizeParam: 'limit' | 'per_page' = 'limit',
  sizes: { default: number; max: number } = { default: DEFAULT_PAGE_LIMIT, max: MAX_PAGE_LIMIT },
): Page {
  const page = positive(queryString(event, 'page'), 1);
  const limit = Math.min(positive(queryString(event, 'limit') ?? queryString(event, 'per_page'), sizes.default), sizes.max);
  return {
    page,
    limit,
    offset: (page - 1) * limit,
    respond<T>(total: number, items: T[]): T[] {
      const headers = event.res.headers;
      headers.set('x-total-count', String(total));
      const last = Math.max(1, Math.ceil(total / limit));
      if (page === 1 && last === 1) return items;
      // One URL for every link (URLs are costly to build on a hot path); each link sets its page in place.
      const url = new URL(`${ctx.baseUrl()}${event.url.pathname}${event.url.search}`);
      url.searchParams.set('page', String(page));
      // The links name the page size the way the API does (`limit` here, `per_page` on the GitHub-compatible API).
      url.searchParams.delete(linkSizeParam === 'limit' ? 'per_page' : 'limit');
      url.searchParams.set(linkSizeParam, String(limit));
      const link = (target: number, rel: string) => {
        url.searchParams.set('page', String(target));
        return `<${url.href}>; rel="${rel}"`;
      };
      const links: string[] = [];
      if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
      if (page > 1) links.push(link(1, 'first'), link(Math.min(page - 1, last), 'prev'));
      headers.set('link', links.join(', '));
      return items;
    },
    slice<T>(all: readonly T[]): T[] {
      return this.respond(all.length, all.slice(this.offset, this.offset + limit));
    },
  };
}
