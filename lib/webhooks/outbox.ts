import type { ReadTx, WriteTx } from '../store/interface.js';
import { allHooksOfRepository, countPendingDeliveries, insertDelivery, type HookRow } from '../store/queries/webhooks.js';
import { installationField } from '../github/app-shapes.js';

/** Deliveries one hook may have waiting; beyond it new ones are recorded as failed at once (a hook down for long). */
export const MAX_PENDING_PER_HOOK = 1000;

export interface OutboxEntry {
  event: string;
  action: string | null;
  /** The payload as JSON: the exact text every attempt sends. */
  payload: string;
  guid: () => string;
  now: string;
}

/** Whether a hook subscribes to an event (`ping` reaches only the hook it tests, see `enqueueFor`). */
export function subscribes(hook: Pick<HookRow, 'active' | 'events'>, event: string): boolean {
  if (hook.active !== 1) return false;
  const events = JSON.parse(hook.events) as string[];
  return events.includes('*') || events.includes(event);
}

/** The active hooks of the repository that subscribe to the event, those of apps installed on it included. */
export async function subscribersOf(tx: ReadTx, repoId: number, event: string): Promise<HookRow[]> {
  return (await allHooksOfRepository(tx, repoId)).filter((hook) => subscribes(hook, event));
}

/**
 * Records a delivery of the event for each of `hooks` (see subscribersOf), inside the write that made the change:
 * the outbox. Returns the hooks that have something new to send.
 */
export async function enqueueDeliveries(tx: WriteTx, hooks: readonly Pick<HookRow, 'id' | 'installation_id'>[], entry: OutboxEntry): Promise<number[]> {
  for (const hook of hooks) {
    // An app's delivery names the installation it comes through, as GitHub's do (the payload's last field).
    const payload = hook.installation_id === null ? entry.payload : `${entry.payload.slice(0, -1)},"installation":${JSON.stringify(installationField(hook.installation_id))}}`;
    await enqueueFor(tx, hook.id, { ...entry, payload }, false);
  }
  return hooks.map((hook) => hook.id);
}

/** Records one delivery for one hook (a ping, a redelivery keeping its guid). */
export async function enqueueFor(tx: WriteTx, hookId: number, entry: OutboxEntry, redelivery: boolean): Promise<number> {
  const full = await countPendingDeliveries(tx, hookId) >= MAX_PENDING_PER_HOOK;
  return await insertDelivery(tx, {
    hookId,
    guid: entry.guid(),
    event: entry.event,
    action: entry.action,
    redelivery,
    payload: entry.payload,
    refused: full ? `not sent: ${MAX_PENDING_PER_HOOK} deliveries of this hook were already waiting` : undefined,
    now: entry.now,
  });
}
