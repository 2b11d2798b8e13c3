import { getRequestHeader, HTTPResponse, type H3Event } from 'h3';
import { PreparedJson } from '../answer-cache.js';
import type { AppContext } from '../context.js';
import { lastModifiedOf } from '../github/time.js';
import { currentUser } from './auth.js';

/** The headers a page sets (pagination.ts), kept with its answer. */
const PAGE_HEADERS = ['link', 'x-total-count'] as const;

/**
 * A GET answer kept until the database changes (AnswerCache), for reads whose answer is made of nothing but the
 * database and the request: its URL, its `Accept` and its viewer. Access is checked before this, on every request;
 * `make` reads and shapes (it may set the page's headers).
 */
export async function rememberedAnswer(ctx: AppContext, event: H3Event, make: () => Promise<unknown>): Promise<PreparedJson> {
  const viewer = await currentUser(ctx, event);
  const caller = viewer?.installation ? `installation ${viewer.installation.installationId}` : `user ${viewer?.id ?? 0}`;
  const key = `${caller}\n${ctx.baseUrl()}${event.url.pathname}${event.url.search}\n${getRequestHeader(event, 'accept') ?? ''}`;
  return await ctx.answers.answer(key, async () => {
    const answer = await make();
    const headers = event.res.headers;
    return new PreparedJson(Buffer.from(JSON.stringify(answer)), [
      ...PAGE_HEADERS.flatMap((name) => {
        const value = headers.get(name);
        return value === null ? [] : [[name, value] as const];
      }),
      ...lastModifiedOf(answer),
    ]);
  });
}

/** A prepared answer as h3 answers a returned object (its content type; no ETag), with its page's headers. */
export function jsonAnswer(event: H3Event, prepared: PreparedJson): HTTPResponse {
  for (const [name, value] of prepared.headers) event.res.headers.set(name, value);
  return new HTTPResponse(prepared.bytes as unknown as BodyInit, { headers: { 'content-type': 'application/json;charset=UTF-8' } });
}
