import { invalid } from '../errors.js';
import type { EventRecorder } from '../events/index.js';
import type { Db } from '../store/interface.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { HookRow } from '../store/queries/webhooks.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';

/** GitHub's limits on `POST /repos/{owner}/{repo}/dispatches`. */
const MAX_EVENT_TYPE = 100;
const MAX_PAYLOAD_PROPERTIES = 10;
const MAX_PAYLOAD_BYTES = 65_536;

/**
 * Repository dispatches (GitHub's `repository_dispatch`): a writer asks for an event of a type of its own naming, with
 * a payload of its own, which the apps installed on the repository that subscribe to it receive. Nothing else happens
 * here: GitHub runs workflows on it, repohost has none.
 */
export class DispatchService {
  constructor(
    private readonly store: Db,
    private readonly events: EventRecorder,
  ) {}

  async dispatch(repo: RepositoryRow, viewer: Viewer, input: { event_type?: unknown; client_payload?: unknown }): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Dispatching events needs write access');
    const type = input.event_type;
    if (typeof type !== 'string' || type === '' || type.length > MAX_EVENT_TYPE) throw invalid(`event_type must be a text of 1 to ${MAX_EVENT_TYPE} characters`);
    const payload = input.client_payload ?? null;
    if (payload !== null && (typeof payload !== 'object' || Array.isArray(payload))) throw invalid('client_payload must be an object');
    if (payload !== null && Object.keys(payload).length > MAX_PAYLOAD_PROPERTIES) throw invalid(`client_payload may have at most ${MAX_PAYLOAD_PROPERTIES} top-level properties`);
    if (Buffer.byteLength(JSON.stringify(payload)) >= MAX_PAYLOAD_BYTES) throw invalid('client_payload must be less than 64 KB');
    const clientPayload = payload as Record<string, unknown> | null;
    await writeToRepository(this.store, repo, async (tx) => {
      // GitHub sends `repository_dispatch` to GitHub Apps alone (their hooks, with `installation`), never to a
      // repository's own webhooks.
      const toApps = (hook: HookRow) => hook.installation_id !== null;
      await this.events.record(tx, repo, viewer!, 'repository_dispatch', async (current) => ({ action: type, branch: current.default_branch, client_payload: clientPayload }), toApps);
    });
  }
}
