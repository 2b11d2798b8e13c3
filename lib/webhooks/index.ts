import type { EventOutbox } from '../events/recorder.js';
import type { Db, SharedLocks } from '../store/interface.js';
import type { GitHubShapes } from '../github/shapes.js';
import { enqueueDeliveries, subscribersOf } from './outbox.js';
import { WebhookService } from './service.js';
import { DeliveryWorker, type DeliveryPolicy } from './worker.js';

export { WebhookService, type Delivery, type Hook, type HookInput } from './service.js';
export { DeliveryWorker, type DeliveryPolicy } from './worker.js';

/** The webhook layer of one host: the API's service, the worker that sends, and the outbox events are recorded into. */
export interface Webhooks {
  service: WebhookService;
  worker: DeliveryWorker;
  outbox: EventOutbox;
}

/** `now` is the host's clock: the times deliveries and attempts are recorded with. */
export function createWebhooks(store: Db, shapes: GitHubShapes, policy: DeliveryPolicy, now: () => Date, sharedLocks?: SharedLocks): Webhooks {
  const worker = new DeliveryWorker(store, policy, now, sharedLocks);
  return {
    worker,
    service: new WebhookService(store, worker, shapes, policy.allowLocalNetwork, () => now().toISOString()),
    outbox: { subscribers: subscribersOf, enqueue: enqueueDeliveries, wake: (hookIds) => worker.wake(hookIds) },
  };
}
