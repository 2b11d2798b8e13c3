import { timingSafeEqual } from 'node:crypto';
import { getRequestHeader, type H3, type H3Event } from 'h3';
import { readLimitedText } from '../http/validate.js';
import type { HostSnapshot } from './snapshots.js';
import type { HarnessClock } from './clock.js';
import { LATEST_GIT_TIME } from '../git/objects.js';

/** What the control endpoints act on: a running host. */
export interface ControlledHost {
  app: H3;
  reset(): Promise<void>;
  snapshot(): Promise<HostSnapshot>;
  restore(snapshot: HostSnapshot): Promise<void>;
  idle(): Promise<void>;
}

/** Where the endpoints live: `-` starts no account name, so no page or repository path is taken. */
export const CONTROL_PREFIX = '/-/harness';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } });
const noContent = () => new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });

/**
 * The harness operations over HTTP, for harnesses written in other languages (`repohost serve --harness`):
 * `POST /-/harness/reset`, `POST /-/harness/snapshots` (201 `{ id }`), `POST /-/harness/snapshots/:id/restore`,
 * `POST /-/harness/idle`, and `GET`/`PUT /-/harness/clock` (`{ now: ISO | null, advance_ms }`). Every one needs
 * `Authorization: Bearer <token>` (401 otherwise); the token is never logged.
 */
export function mountHarnessControl(host: ControlledHost, token: string, clock: HarnessClock): void {
  const expected = Buffer.from(token);
  const snapshots = new Map<string, HostSnapshot>();
  const guarded = (handler: (event: H3Event) => Promise<Response>) => async (event: H3Event) => {
    const given = Buffer.from(/^Bearer (.+)$/i.exec(getRequestHeader(event, 'authorization') ?? '')?.[1] ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return json(401, { message: 'the harness token is missing or wrong' });
    return await handler(event);
  };
  const { app } = host;

  app.post(`${CONTROL_PREFIX}/reset`, guarded(async () => {
    await host.reset();
    return noContent();
  }));
  app.post(`${CONTROL_PREFIX}/snapshots`, guarded(async () => {
    const id = String(snapshots.size + 1);
    snapshots.set(id, await host.snapshot());
    return json(201, { id });
  }));
  app.post(`${CONTROL_PREFIX}/snapshots/:id/restore`, guarded(async (event) => {
    const snapshot = snapshots.get(event.context.params?.id ?? '');
    if (!snapshot) return json(404, { message: 'no such snapshot' });
    await host.restore(snapshot);
    return noContent();
  }));
  app.post(`${CONTROL_PREFIX}/idle`, guarded(async () => {
    await host.idle();
    return noContent();
  }));
  const clockState = () => json(200, { now: clock.now().toISOString(), stopped: clock.stopped });
  app.get(`${CONTROL_PREFIX}/clock`, guarded(async () => clockState()));
  app.put(`${CONTROL_PREFIX}/clock`, guarded(async (event) => {
    let body: { now?: unknown; advance_ms?: unknown } | undefined;
    try {
      body = JSON.parse(await readLimitedText(event, 4096)) as typeof body;
    } catch {
      body = undefined;
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return json(400, { message: 'send a JSON object: { "now": ISO 8601 | null, "advance_ms": number }' });
    if (body.now !== undefined) {
      // Within what git records (1970 to 9999): a commit made at any other time fails, and ISO times past 9999 sort
      // before earlier ones (expiry checks compare them as text).
      const at = typeof body.now === 'string' ? Date.parse(body.now) : NaN;
      if (body.now !== null && !(at >= 0 && at <= LATEST_GIT_TIME)) return json(422, { message: 'now must be an ISO 8601 time from 1970 to 9999, or null' });
      clock.set(body.now === null ? null : new Date(at));
    }
    if (body.advance_ms !== undefined) {
      // A step past what git records would break every commit the host makes.
      const after = clock.now().getTime() + (typeof body.advance_ms === 'number' ? body.advance_ms : NaN);
      if (!Number.isSafeInteger(body.advance_ms) || (body.advance_ms as number) < 0 || !(after <= LATEST_GIT_TIME)) return json(422, { message: 'advance_ms must be a whole number of milliseconds, 0 or more, that keeps the clock within the year 9999' });
      clock.advance(body.advance_ms as number);
    }
    return clockState();
  }));
}
