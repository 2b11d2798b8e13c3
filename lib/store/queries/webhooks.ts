import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import type { PageWindow } from './page-window.js';

export type HookContentType = 'json' | 'form';
export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface HookRow {
  id: number;
  repo_id: number;
  url: string;
  content_type: HookContentType;
  secret: string;
  /** JSON list of event names, or `["*"]`. */
  events: string;
  active: number;
  created_at: string;
  updated_at: string;
  /** Set on the hook rows of an app's installation (see migration 16): its deliveries carry `installation`. */
  installation_id: number | null;
}

export interface DeliveryRow {
  id: number;
  hook_id: number;
  guid: string;
  event: string;
  action: string | null;
  redelivery: number;
  payload: string;
  state: DeliveryState;
  attempts: number;
  /** Epoch milliseconds: when the next attempt of a pending delivery is due. */
  next_attempt_at: number;
  status_code: number | null;
  duration_ms: number | null;
  request_headers: string | null;
  response_headers: string | null;
  response_body: string | null;
  error: string | null;
  created_at: string;
  delivered_at: string | null;
}

const HOOK_COLUMNS = 'id, repo_id, url, content_type, secret, events, active, created_at, updated_at, installation_id';

/** The repository's own hooks (the ones its admins manage; not the hook rows of installed apps). */
export async function hooksOfRepository(db: ReadTx, repoId: number): Promise<HookRow[]> {
  return await db.all<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE repo_id = ? AND installation_id IS NULL ORDER BY id`, [repoId]);
}

/** Every hook that may hear of the repository's events: its own and those of the apps installed on it. */
export async function allHooksOfRepository(db: ReadTx, repoId: number): Promise<HookRow[]> {
  return await db.all<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE repo_id = ? ORDER BY id`, [repoId]);
}

export async function hookInRepository(db: ReadTx, repoId: number, id: number): Promise<HookRow | undefined> {
  return await db.get<HookRow>(`SELECT ${HOOK_COLUMNS} FROM webhooks WHERE repo_id = ? AND id = ? AND installation_id IS NULL`, [repoId, id]);
}

/** A hook as the delivery worker sends with it: an installation's names its app (GitHub's target of the delivery). */
export async function hookById(db: ReadTx, id: number): Promise<(HookRow & { app_id: number | null }) | undefined> {
  return await db.get<HookRow & { app_id: number | null }>(
    `SELECT ${HOOK_COLUMNS}, (SELECT i.app_id FROM app_installations i WHERE i.id = webhooks.installation_id) AS app_id FROM webhooks WHERE id = ?`,
    [id],
  );
}

export async function countHooks(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhooks WHERE repo_id = ? AND installation_id IS NULL', [repoId]))!.n;
}

export interface HookFields {
  url: string;
  contentType: HookContentType;
  secret: string;
  events: readonly string[];
  active: boolean;
}

export async function insertHook(tx: WriteTx, repoId: number, hook: HookFields, now: string): Promise<HookRow> {
  return (await tx.run<HookRow>(
    `INSERT INTO webhooks (repo_id, url, content_type, secret, events, active, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${HOOK_COLUMNS}`,
    [repoId, hook.url, hook.contentType, hook.secret, JSON.stringify(hook.events), hook.active ? 1 : 0, now, now],
  )).rows[0]!;
}

export async function updateHook(tx: WriteTx, id: number, hook: HookFields, now: string): Promise<HookRow> {
  return (await tx.run<HookRow>(
    `UPDATE webhooks SET url = ?, content_type = ?, secret = ?, events = ?, active = ?, updated_at = ? WHERE id = ? RETURNING ${HOOK_COLUMNS}`,
    [hook.url, hook.contentType, hook.secret, JSON.stringify(hook.events), hook.active ? 1 : 0, now, id],
  )).rows[0]!;
}

export async function deleteHook(tx: WriteTx, id: number): Promise<boolean> {
  return (await tx.run('DELETE FROM webhooks WHERE id = ?', [id])).changes > 0;
}

const DELIVERY_COLUMNS = `id, hook_id, guid, event, action, redelivery, payload, state, attempts, next_attempt_at, status_code, duration_ms,
  request_headers, response_headers, response_body, error, created_at, delivered_at`;

export interface NewDelivery {
  hookId: number;
  guid: string;
  event: string;
  action: string | null;
  redelivery: boolean;
  payload: string;
  /** A delivery refused before any attempt (its hook's backlog is full) is recorded failed with this error. */
  refused?: string;
  now: string;
}

export async function insertDelivery(tx: WriteTx, delivery: NewDelivery): Promise<number> {
  return (await tx.run<{ id: number }>(
    `INSERT INTO webhook_deliveries (hook_id, guid, event, action, redelivery, payload, state, error, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [
      delivery.hookId,
      delivery.guid,
      delivery.event,
      delivery.action,
      delivery.redelivery ? 1 : 0,
      delivery.payload,
      delivery.refused ? 'failed' : 'pending',
      delivery.refused ?? null,
      delivery.now,
    ],
  )).rows[0]!.id;
}

export async function countPendingDeliveries(db: ReadTx, hookId: number): Promise<number> {
  return (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending' AND hook_id = ?", [hookId]))!.n;
}

/** The oldest pending delivery of a hook: deliveries of one hook go out in the order of their events. */
export async function nextPendingDelivery(db: ReadTx, hookId: number): Promise<DeliveryRow | undefined> {
  return await db.get<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE state = 'pending' AND hook_id = ? ORDER BY id LIMIT 1`, [hookId]);
}

/** By id: the order SQLite's index gave, said so PostgreSQL (whose DISTINCT may hash) gives it too. */
export async function hooksWithPendingDeliveries(db: ReadTx): Promise<number[]> {
  return (await db.all<{ hook_id: number }>("SELECT DISTINCT hook_id FROM webhook_deliveries WHERE state = 'pending' ORDER BY hook_id")).map((row) => row.hook_id);
}

export async function deliveryOfHook(db: ReadTx, hookId: number, id: number): Promise<DeliveryRow | undefined> {
  return await db.get<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE hook_id = ? AND id = ?`, [hookId, id]);
}

/** Newest first. */
export async function deliveriesOfHook(db: ReadTx, hookId: number, page: PageWindow): Promise<DeliveryRow[]> {
  return await db.all<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE hook_id = ? ORDER BY id DESC LIMIT ? OFFSET ?`, [
    hookId,
    page.limit,
    page.offset,
  ]);
}

/** The last delivery each hook attempted (one attempt at least), by hook: what its `last_response` tells. */
export async function lastAttemptsOfHooks(db: ReadTx, hookIds: readonly number[]): Promise<Map<number, Pick<DeliveryRow, 'state' | 'status_code' | 'error'>>> {
  if (hookIds.length === 0) return new Map();
  const list = inList([...new Set(hookIds)]);
  const rows = await db.all<{ hook_id: number; state: DeliveryRow['state']; status_code: number | null; error: string | null }>(
    `SELECT hook_id, state, status_code, error FROM webhook_deliveries
     WHERE id IN (SELECT MAX(id) FROM webhook_deliveries WHERE hook_id ${list.sql} AND attempts > 0 GROUP BY hook_id)`,
    list.params,
  );
  return new Map(rows.map(({ hook_id, ...attempt }) => [hook_id, attempt]));
}

export async function countDeliveries(db: ReadTx, hookId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_deliveries WHERE hook_id = ?', [hookId]))!.n;
}

export interface AttemptRecord {
  state: DeliveryState;
  nextAttemptAt: number;
  statusCode: number | null;
  durationMs: number;
  requestHeaders: string;
  responseHeaders: string | null;
  responseBody: string | null;
  error: string | null;
  at: string;
}

/** Records one attempt; false when the delivery (or its hook) was deleted meanwhile. */
export async function recordAttempt(tx: WriteTx, id: number, attempt: AttemptRecord): Promise<boolean> {
  return (
    (await tx.run(
      `UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?, status_code = ?, duration_ms = ?,
       request_headers = ?, response_headers = ?, response_body = ?, error = ?, delivered_at = ? WHERE id = ? AND state = 'pending'`,
      [
        attempt.state,
        attempt.nextAttemptAt,
        attempt.statusCode,
        attempt.durationMs,
        attempt.requestHeaders,
        attempt.responseHeaders,
        attempt.responseBody,
        attempt.error,
        attempt.at,
        id,
      ],
    )).changes > 0
  );
}

/** Drops the finished deliveries of a hook beyond its newest `keep`, so the history stays bounded. */
export async function pruneDeliveries(tx: WriteTx, hookId: number, keep: number): Promise<void> {
  await tx.run(
    `DELETE FROM webhook_deliveries WHERE hook_id = ? AND state != 'pending'
     AND id <= (SELECT id FROM webhook_deliveries WHERE hook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    [hookId, hookId, keep],
  );
}
