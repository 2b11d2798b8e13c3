import { randomUUID } from 'node:crypto';
import type { GitHubShapes } from '../github/shapes.js';
import type { PushedCommit, PushedRef } from '../git/push-commits.js';
import type { RefChange } from '../git/refs.js';
import type { ReadTx, WriteTx } from '../store/interface.js';
import type { HookRow } from '../store/queries/webhooks.js';
import { repositoryById, type RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { userById } from '../store/queries/users.js';
import type { HostEvents } from './bus.js';
import { refEvents } from './push.js';
import type { RepoEventMap, RepoEventName } from './types.js';

/** Where recorded events go besides the in-process listeners: the webhook outbox (lib/webhooks). */
export interface EventOutbox {
  /** The active hooks of the repository subscribed to the event. */
  subscribers(tx: ReadTx, repoId: number, event: string): Promise<HookRow[]>;
  /** Records a delivery for each of `hooks` inside the write; returns the hooks to wake once it is durable. */
  enqueue(tx: WriteTx, hooks: readonly HookRow[], event: { event: string; action: string | null; payload: string; guid: () => string; now: string }): Promise<number[]>;
  wake(hookIds: readonly number[]): void;
}

/** The payload fields an event adds to `repository` and `sender`. */
export type EventFields<N extends RepoEventName> = WithoutContext<RepoEventMap[N]>;
/** A payload without what the recorder adds, kept apart for each kind of a union (`Omit` of a union keeps only shared keys). */
type WithoutContext<E> = E extends unknown ? Omit<E, 'repository' | 'sender'> : never;

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
   * caused the event, the owner when nobody did. `fields` may be given as a function of that re-read repository: it
   * is called only when a hook or a listener in the process is there to be told (building a pull request's shape
   * reads rows).
   */
  async record<N extends Exclude<RepoEventName, 'ping'>>(
    tx: WriteTx,
    repo: Pick<RepositoryRow, 'id'>,
    sender: UserRow | undefined,
    name: N,
    fields: EventFields<N> | ((repo: RepositoryRow) => Promise<EventFields<N>>),
    /** The hooks among the subscribers that hear it (GitHub sends some events to one app only); all when absent. */
    to?: (hook: HookRow) => boolean,
  ): Promise<void> {
    const current = await repositoryById(tx, repo.id);
    if (!current) return;
    const subscribed = await this.outbox.subscribers(tx, current.id, name);
    const hooks = to ? subscribed.filter(to) : subscribed;
    // Nobody to tell: no payload is built. A listener added after this write began does not hear of it.
    if (hooks.length === 0 && !this.bus.hears(name)) return;
    const given = typeof fields === 'function' ? await fields(current) : fields;
    const actor = sender ?? (await userById(tx, current.owner_id))!;
    const payload = { ...given, repository: await this.shapes.repository(tx, current), sender: this.shapes.user(actor) } as unknown as RepoEventMap[N];
    const action = 'action' in given && typeof given.action === 'string' ? given.action : undefined;
    const woken = hooks.length === 0 ? [] : await this.outbox.enqueue(tx, hooks, { event: name, action: action ?? null, payload: JSON.stringify(payload), guid: randomUUID, now: this.now() });
    tx.onDurable(() => {
      this.outbox.wake(woken);
      this.bus.emit({ name, action, payload });
    });
  }

  /** The payload fields of the push of `change`, bringing `pushed`, by `pusher`: for a hook's test delivery (lib/webhooks). */
  pushFields(repo: RepositoryRow, pusher: UserRow, change: RefChange, pushed: PushedRef): EventFields<'push'> {
    return refEvents(repo, this.baseUrl(), change, pushed, this.pusherIdentity(pusher)).push;
  }

  private pusherIdentity(actor: UserRow): { name: string; email: string } {
    return { name: actor.username, email: this.publicEmail(actor) };
  }

  /** The installations (ids) whose app's hook on the repository subscribes to the event. */
  async installationsHearing(db: ReadTx, repoId: number, name: RepoEventName): Promise<number[]> {
    return (await this.outbox.subscribers(db, repoId, name)).flatMap((hook) => (hook.installation_id === null ? [] : [hook.installation_id]));
  }

  /** True when a hook of the repository or a listener in the process would hear any of the events. */
  async anyoneHears(db: ReadTx, repoId: number, names: readonly RepoEventName[]): Promise<boolean> {
    for (const name of names) if (this.bus.hears(name) || (await this.outbox.subscribers(db, repoId, name)).length > 0) return true;
    return false;
  }

  /**
   * Told of the branch heads a push, merge or ref update brought (with their commits, inside the same write): the
   * Checks API asks apps for check suites there (`CheckEvents.requestSuites`). Set once by the host.
   */
  branchHeadsListener: ((tx: WriteTx, repo: RepositoryRow, sender: UserRow, heads: ReadonlyArray<{ branch: string; before: string; commit: PushedCommit }>) => Promise<void>) | undefined;

  /**
   * The events of refs that moved (a push, a merge, a deleted branch): per change `create` or `delete` when a ref
   * appeared or went, and `push`; `pushed[i]` is what `changes[i]` brought (see git/push-commits.ts). As on GitHub,
   * a push of more than 5,000 branches causes no events for its branches, and one of more than three tags none for its
   * tags. `reconciled` marks events of changes found after a crash (`repohost_reconciled: true` in the payload).
   */
  async recordRefChanges(
    tx: WriteTx,
    repo: Pick<RepositoryRow, 'id'>,
    pusher: UserRow | undefined,
    changes: readonly RefChange[],
    pushed: readonly PushedRef[],
    options: { reconciled?: boolean } = {},
  ): Promise<void> {
    const current = await repositoryById(tx, repo.id);
    if (!current) return;
    const actor = pusher ?? (await userById(tx, current.owner_id))!;
    const identity = this.pusherIdentity(actor);
    const branches = changes.filter((change) => change.ref.startsWith('refs/heads/')).length;
    const tags = changes.filter((change) => change.ref.startsWith('refs/tags/')).length;
    const mark = options.reconciled ? { repohost_reconciled: true as const } : {};
    for (const [index, change] of changes.entries()) {
      if (change.ref.startsWith('refs/heads/') ? branches > MAX_BRANCHES_WITH_EVENTS : change.ref.startsWith('refs/tags/') && tags > MAX_TAGS_WITH_EVENTS) continue;
      const events = refEvents(current, this.baseUrl(), change, pushed[index] ?? NOTHING_PUSHED, identity);
      if (events.create) await this.record(tx, current, actor, 'create', { ...events.create, ...mark });
      await this.record(tx, current, actor, 'push', { ...events.push, ...mark });
      if (events.delete) await this.record(tx, current, actor, 'delete', { ...events.delete, ...mark });
    }
    const heads = branches > MAX_BRANCHES_WITH_EVENTS ? [] : changes.flatMap((change, index) => {
      const commit = pushed[index]?.head;
      return change.ref.startsWith('refs/heads/') && commit && !options.reconciled ? [{ branch: change.ref.slice('refs/heads/'.length), before: change.before, commit }] : [];
    });
    if (heads.length > 0) await this.branchHeadsListener?.(tx, current, actor, heads);
  }
}

/** GitHub's limits: no events for the branches of a push of more than 5,000, nor the tags of one of more than three. */
const MAX_BRANCHES_WITH_EVENTS = 5000;
const MAX_TAGS_WITH_EVENTS = 3;

/** What a ref change is known to bring when its commits could not be read (or there are none: a deletion). */
export const NOTHING_PUSHED: PushedRef = Object.freeze({ commits: [], head: null, forced: false });
