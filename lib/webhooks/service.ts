import { randomUUID } from 'node:crypto';
import { invalid, notFound } from '../errors.js';
import type { EventFields } from '../events/recorder.js';
import type { PingEvent } from '../events/types.js';
import { SUBSCRIBABLE_EVENTS } from '../events/types.js';
import type { GitHubShapes } from '../github/shapes.js';
import { githubTime } from '../github/time.js';
import { requireAccess, type Viewer } from '../services/permissions.js';
import { writeToRepository } from '../services/repository-write.js';
import { optionalFlag, optionalText } from '../services/text-fields.js';
import type { Db, WriteTx } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import { repositoryById, type RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import {
  countDeliveries,
  countHooks,
  deleteHook,
  deliveriesOfHook,
  deliveryOfHook,
  hookInRepository,
  hooksOfRepository,
  lastAttemptsOfHooks,
  insertHook,
  updateHook,
  type DeliveryRow,
  type HookContentType,
  type HookFields,
  type HookRow,
} from '../store/queries/webhooks.js';
import { enqueueFor, subscribes } from './outbox.js';
import { hookTargetUrl } from '../net/target-url.js';
import type { DeliveryWorker } from './worker.js';

/** Hooks one repository may have (GitHub's limit too). */
export const MAX_HOOKS_PER_REPOSITORY = 20;
const ADMIN_ONLY = 'Managing webhooks needs admin access';

export interface HookInput {
  url?: unknown;
  content_type?: unknown;
  secret?: unknown;
  events?: unknown;
  active?: unknown;
}

/** A hook as the API shows it: never its secret, only whether it has one. */
export interface Hook {
  id: number;
  type: 'Repository';
  name: 'web';
  url: string;
  content_type: HookContentType;
  events: string[];
  active: boolean;
  has_secret: boolean;
  config: { url: string; content_type: HookContentType; insecure_ssl: '0' };
  created_at: string;
  updated_at: string;
  /** GitHub's `last_response`: how the last delivery attempted went (`unused` before any). */
  last_response: { code: number | null; status: string; message: string | null };
}

/** One delivery with its last attempt, as `GET /hooks/:id/deliveries` lists it (GitHub's fields and the attempt count). */
export interface Delivery {
  id: number;
  guid: string;
  event: string;
  action: string | null;
  redelivery: boolean;
  state: DeliveryRow['state'];
  attempts: number;
  status_code: number | null;
  status: string;
  duration: number | null;
  error: string | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: string | null;
  request: { headers: Record<string, string> | null; payload: unknown };
  response: { headers: Record<string, string> | null; payload: string | null };
}

type LastAttempt = Pick<DeliveryRow, 'state' | 'status_code' | 'error'>;

/** GitHub's words for a hook's last response: `unused`, `active` after a success, `failed` (repohost's) otherwise. */
function lastResponseOf(attempt: LastAttempt | undefined): Hook['last_response'] {
  if (!attempt) return { code: null, status: 'unused', message: null };
  if (attempt.state === 'delivered') return { code: attempt.status_code, status: 'active', message: 'OK' };
  return { code: attempt.status_code, status: 'failed', message: attempt.status_code !== null ? `Invalid HTTP Response: ${attempt.status_code}` : attempt.error };
}

function hookOf(row: HookRow, attempt?: LastAttempt): Hook {
  return {
    id: row.id,
    type: 'Repository',
    name: 'web',
    url: row.url,
    content_type: row.content_type,
    events: JSON.parse(row.events) as string[],
    active: row.active === 1,
    has_secret: row.secret !== '',
    config: { url: row.url, content_type: row.content_type, insecure_ssl: '0' },
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_response: lastResponseOf(attempt),
  };
}

function deliveryOf(row: DeliveryRow): Delivery {
  const status =
    row.state === 'pending' && row.attempts === 0 ? 'pending' : row.status_code !== null ? (row.state === 'delivered' ? 'OK' : `Invalid HTTP Response: ${row.status_code}`) : (row.error ?? 'pending');
  return {
    id: row.id,
    guid: row.guid,
    event: row.event,
    action: row.action,
    redelivery: row.redelivery === 1,
    state: row.state,
    attempts: row.attempts,
    status_code: row.status_code,
    status,
    duration: row.duration_ms,
    error: row.error,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
    next_attempt_at: row.state === 'pending' && row.attempts > 0 ? new Date(row.next_attempt_at).toISOString() : null,
    request: { headers: row.request_headers ? (JSON.parse(row.request_headers) as Record<string, string>) : null, payload: JSON.parse(row.payload) },
    response: { headers: row.response_headers ? (JSON.parse(row.response_headers) as Record<string, string>) : null, payload: row.response_body },
  };
}

function contentType(value: unknown, fallback: HookContentType): HookContentType {
  if (value === undefined || value === null || value === '') return fallback;
  if (value !== 'json' && value !== 'form') throw invalid("content_type must be 'json' or 'form'");
  return value;
}

function eventList(value: unknown, fallback: readonly string[]): string[] {
  if (value === undefined || value === null) return [...fallback];
  const list = typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) throw invalid('events must be a list of event names');
  const unknown = list.filter((item) => item !== '*' && !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(item));
  if (unknown.length > 0) throw invalid(`events may only name ${SUBSCRIBABLE_EVENTS.join(', ')} or *; not ${unknown.join(', ')}`);
  return list.includes('*') ? ['*'] : [...new Set(list as string[])];
}

/**
 * Webhooks of a repository (admin only): the hooks, their delivery history, redeliveries and pings. Sending is the
 * worker's; every delivery recorded here goes to it once its write is durable.
 */
export class WebhookService {
  constructor(
    private readonly store: Db,
    private readonly worker: DeliveryWorker,
    private readonly shapes: GitHubShapes,
    private readonly allowLocalNetwork: boolean,
    private readonly now: () => string,
  ) {}

  async list(repo: RepositoryRow, viewer: Viewer): Promise<Hook[]> {
    await requireAccess(this.store, viewer, repo, 'admin', ADMIN_ONLY);
    const rows = await hooksOfRepository(this.store, repo.id);
    const attempts = await lastAttemptsOfHooks(this.store, rows.map((row) => row.id));
    return rows.map((row) => hookOf(row, attempts.get(row.id)));
  }

  async get(repo: RepositoryRow, viewer: Viewer, id: number): Promise<Hook> {
    return await this.withLastResponse(await this.hook(repo, viewer, id));
  }

  private async withLastResponse(row: HookRow): Promise<Hook> {
    return hookOf(row, (await lastAttemptsOfHooks(this.store, [row.id])).get(row.id));
  }

  /** Creates a hook and, if it is active, pings it (as GitHub does) in the same write. */
  async create(repo: RepositoryRow, viewer: Viewer, input: HookInput): Promise<Hook> {
    await requireAccess(this.store, viewer, repo, 'admin', ADMIN_ONLY);
    const fields: HookFields = {
      url: await hookTargetUrl(input.url, this.allowLocalNetwork),
      contentType: contentType(input.content_type, 'json'),
      secret: optionalText('secret', input.secret, 255),
      events: eventList(input.events, ['push']),
      active: optionalFlag('active', input.active, true),
    };
    const now = this.now();
    const row = await this.writeWaking(repo, async (tx) => {
      if (await countHooks(tx, repo.id) >= MAX_HOOKS_PER_REPOSITORY) throw invalid(`a repository has at most ${MAX_HOOKS_PER_REPOSITORY} webhooks`);
      const hook = await insertHook(tx, repo.id, fields, now);
      if (hook.active === 1) await this.enqueuePing(tx, hook, viewer!);
      return { result: hook, wake: hook.id };
    });
    return hookOf(row);
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: HookInput): Promise<Hook> {
    const current = await this.hook(repo, viewer, id);
    const fields: HookFields = {
      url: input.url === undefined ? current.url : await hookTargetUrl(input.url, this.allowLocalNetwork),
      contentType: contentType(input.content_type, current.content_type),
      secret: input.secret === undefined ? current.secret : optionalText('secret', input.secret, 255),
      events: eventList(input.events, JSON.parse(current.events) as string[]),
      active: optionalFlag('active', input.active, current.active === 1),
    };
    const now = this.now();
    const row = await this.writeWaking(repo, async (tx) => {
      if (!await hookInRepository(tx, repo.id, id)) throw notFound('Hook not found');
      // Deliveries waiting for an inactive hook go out once it is active again.
      return { result: await updateHook(tx, id, fields, now), wake: fields.active ? id : undefined };
    });
    return await this.withLastResponse(row);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await this.hook(repo, viewer, id);
    const removed = await writeToRepository(this.store, repo, async (tx) => await deleteHook(tx, id));
    if (!removed) throw notFound('Hook not found');
  }

  /** `POST /hooks/:id/tests`: sends a ping now. */
  async ping(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await this.hook(repo, viewer, id);
    await this.writeWaking(repo, async (tx) => {
      const hook = await hookInRepository(tx, repo.id, id);
      if (!hook) throw notFound('Hook not found');
      await this.enqueuePing(tx, hook, viewer!);
      return { result: undefined, wake: id };
    });
  }

  /**
   * GitHub's hook test: `push` (the latest push, built by the caller from git) delivered to this hook alone, when it
   * hears `push`; nothing otherwise (GitHub answers 204 either way). No listener in the process hears it: nothing moved.
   */
  async test(repo: RepositoryRow, viewer: Viewer, id: number, push: EventFields<'push'> | undefined): Promise<void> {
    await this.hook(repo, viewer, id);
    await this.writeWaking(repo, async (tx) => {
      const hook = await hookInRepository(tx, repo.id, id);
      if (!hook) throw notFound('Hook not found');
      const current = await repositoryById(tx, repo.id);
      if (!push || !current || !subscribes(hook, 'push')) return { result: undefined, wake: undefined };
      const payload = { ...push, repository: await this.shapes.repository(tx, current), sender: this.shapes.user(viewer!) };
      await enqueueFor(tx, hook.id, { event: 'push', action: null, payload: JSON.stringify(payload), guid: randomUUID, now: this.now() }, false);
      return { result: undefined, wake: id };
    });
  }

  async deliveries(repo: RepositoryRow, viewer: Viewer, id: number, page: PageWindow): Promise<{ items: Delivery[]; total: number }> {
    const hook = await this.hook(repo, viewer, id);
    return await this.store.read(async (tx) => ({ items: (await deliveriesOfHook(tx, hook.id, page)).map(deliveryOf), total: await countDeliveries(tx, hook.id) }));
  }

  async delivery(repo: RepositoryRow, viewer: Viewer, id: number, deliveryId: number): Promise<Delivery> {
    const hook = await this.hook(repo, viewer, id);
    const row = Number.isSafeInteger(deliveryId) ? await deliveryOfHook(this.store, hook.id, deliveryId) : undefined;
    if (!row) throw notFound('Delivery not found');
    return deliveryOf(row);
  }

  /** Sends a delivery again as a new one with the same guid and payload (GitHub's redelivery). */
  async redeliver(repo: RepositoryRow, viewer: Viewer, id: number, deliveryId: number): Promise<Delivery> {
    const original = await this.delivery(repo, viewer, id, deliveryId);
    const now = this.now();
    const newId = await this.writeWaking(repo, async (tx) => {
      const row = await deliveryOfHook(tx, id, deliveryId);
      if (!row) throw notFound('Delivery not found');
      const entry = { event: row.event, action: row.action, payload: row.payload, guid: () => original.guid, now };
      return { result: await enqueueFor(tx, id, entry, true), wake: id };
    });
    return deliveryOf((await deliveryOfHook(this.store, id, newId))!);
  }

  private async hook(repo: RepositoryRow, viewer: Viewer, id: number): Promise<HookRow> {
    await requireAccess(this.store, viewer, repo, 'admin', ADMIN_ONLY);
    const hook = Number.isSafeInteger(id) ? await hookInRepository(this.store, repo.id, id) : undefined;
    if (!hook) throw notFound('Hook not found');
    return hook;
  }

  /** A repository write that hands a hook to the worker once it is durable. */
  private async writeWaking<T>(repo: RepositoryRow, work: (tx: WriteTx) => Promise<{ result: T; wake: number | undefined }>): Promise<T> {
    return await writeToRepository(this.store, repo, async (tx) => {
      const { result, wake } = await work(tx);
      if (wake !== undefined) tx.onDurable(() => this.worker.wake([wake]));
      return result;
    });
  }

  private async enqueuePing(tx: WriteTx, hook: HookRow, sender: UserRow): Promise<void> {
    const repo = (await repositoryById(tx, hook.repo_id))!;
    const shaped = hookOf(hook);
    const payload: PingEvent = {
      zen: 'Keep it logically awesome.',
      hook_id: hook.id,
      hook: {
        type: 'Repository',
        id: hook.id,
        name: 'web',
        active: shaped.active,
        events: shaped.events,
        config: { ...shaped.config, ...(shaped.has_secret ? { secret: '********' as const } : {}) },
        created_at: githubTime(shaped.created_at),
        updated_at: githubTime(shaped.updated_at),
        ...this.shapes.hookUrls(repo, hook.id),
      },
      repository: await this.shapes.repository(tx, repo),
      sender: this.shapes.user(sender),
    };
    await enqueueFor(tx, hook.id, { event: 'ping', action: null, payload: JSON.stringify(payload), guid: randomUUID, now: this.now() }, false);
  }
}
