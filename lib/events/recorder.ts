import { randomUUID } from 'node:crypto';
import type { GitHubShapes } from '../github/shapes.js';
import type { PushedRef } from '../git/push-commits.js';
import type { RefChange } from '../git/refs.js';
import type { WriteTx } from '../store/database.js';
import { repositoryById, type RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { userById } from '../store/queries/users.js';
import type { HostEvents } from './bus.js';
import { refEvents } from './push.js';
import type { RepoEventMap, RepoEventName } from './types.js';

/** Where recorded events go besides the in-process listeners: the webhook outbox (lib/webhooks). */
export interface EventOutbox {
  /** Records deliveries inside the write; returns the hooks to wake once it is durable. */
  enqueue(tx: WriteTx, repoId: number, event: { event: string; action: string | null; payload: string; guid: () => string; now: string }): number[];
  wake(hookIds: readonly number[]): void;
}

/** The payload fields an event adds to `repository` and `sender`. */
export type EventFields<N extends RepoEventName> = Omit<RepoEventMap[N], 'repository' | 'sender'>;

/**
 * Records an event inside the write that makes the change it reports: the webhook deliveries go into the same
 * durable transaction, and listeners in the process hear of it once that transaction is on disk.
 */
export class EventRecorder {
  constructor(
    private readonly shapes: GitHubShapes,
    private readonly bus: HostEvents,
    private readonly outbox: EventOutbox,
    private readonly now: () => string,
    private readonly baseUrl: () => string,
    /** The address shown for a pusher (account addresses are private). */
    private readonly publicEmail: (user: UserRow) => string,
  ) {}

  get github(): GitHubShapes {
    return this.shapes;
  }

  /**
   * `repo` is re-read inside the write (a rename may have happened since the request looked it up); `sender` is who
   * caused the event, the owner when nobody did.
   */
  record<N extends Exclude<RepoEventName, 'ping'>>(tx: WriteTx, repo: Pick<RepositoryRow, 'id'>, sender: UserRow | undefined, name: N, fields: EventFields<N>): void {
    const current = repositoryById(tx, repo.id);
    if (!current) return;
    const actor = sender ?? userById(tx, current.owner_id)!;
    const payload = { ...fields, repository: this.shapes.repository(tx, current), sender: this.shapes.user(actor) } as RepoEventMap[N];
    const action = 'action' in fields && typeof fields.action === 'string' ? fields.action : undefined;
    const hooks = this.outbox.enqueue(tx, current.id, { event: name, action: action ?? null, payload: JSON.stringify(payload), guid: randomUUID, now: this.now() });
    tx.onDurable(() => {
      this.outbox.wake(hooks);
      this.bus.emit({ name, action, payload });
    });
  }

  /**
   * The events of refs that moved (a push, a merge, a deleted branch): per change `create` or `delete` when a ref
   * appeared or went, and `push`; `pushed[i]` is what `changes[i]` brought (see git/push-commits.ts).
   */
  recordRefChanges(tx: WriteTx, repo: Pick<RepositoryRow, 'id'>, pusher: UserRow | undefined, changes: readonly RefChange[], pushed: readonly PushedRef[]): void {
    const current = repositoryById(tx, repo.id);
    if (!current) return;
    const actor = pusher ?? userById(tx, current.owner_id)!;
    const identity = { name: actor.username, email: this.publicEmail(actor) };
    changes.forEach((change, index) => {
      const events = refEvents(current, this.baseUrl(), change, pushed[index] ?? NOTHING_PUSHED, identity);
      if (events.create) this.record(tx, current, actor, 'create', events.create);
      this.record(tx, current, actor, 'push', events.push);
      if (events.delete) this.record(tx, current, actor, 'delete', events.delete);
    });
  }
}

/** What a ref change is known to bring when its commits could not be read (or there are none: a deletion). */
export const NOTHING_PUSHED: PushedRef = Object.freeze({ commits: [], head: null, forced: false });
