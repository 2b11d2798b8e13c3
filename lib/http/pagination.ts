import { type H3Event } from 'h3';
import { queryString } from './validate.js';

// TEMPORARY (collab branch): replaced by the pagination module of issue 7 at merge.
export interface PageRequest {
  page: number;
  limit: number;
  offset: number;
}

export function readPage(event: H3Event): PageRequest {
  const page = Math.max(1, Number.parseInt(queryString(event, 'page') ?? '1', 10) || 1);
  const limit = Math.min(100, Math.max(1, Number.parseInt(queryString(event, 'limit') ?? '30', 10) || 30));
  return { page, limit, offset: (page - 1) * limit };
}

export function pagedList<T>(event: H3Event, _page: PageRequest, total: number, items: T[]): T[] {
  event.res.headers.set('x-total-count', String(total));
  return items;
}
