import { openHostCore } from '../host.js';
import type { RepoHostOptions } from '../options.js';
import type { AdminOperations } from '../admin/operations.js';
import { realDatabasePath } from '../store/database-path.js';
import { DatabaseLockedError, lockHolder } from '../store/lock.js';
import { ChannelUnreachableError, remoteAdmin } from './admin-channel-client.js';
import { readChannelFile } from '../admin/channel-file.js';
import { ADMIN_OPERATION_NAMES, type AsyncAdminOperations } from '../admin/protocol.js';

/**
 * How long to keep trying when the database is locked but nobody answers for it yet: a server that is
 * still starting (its channel file comes after the lock), or another command that holds it for a moment.
 */
const LOCKED_WAIT_MS = 10_000;

/** The host's own admin operations, each made asynchronous as the channel's are. */
function localOperations(admin: AdminOperations): AsyncAdminOperations {
  return Object.fromEntries(
    ADMIN_OPERATION_NAMES.map((name) => [name, async (...args: unknown[]) => (admin[name] as (...a: unknown[]) => unknown)(...args)]),
  ) as unknown as AsyncAdminOperations;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs admin work against the database at `options.dbPath`: through the running server that holds it (so
 * the change is live at once and never overwritten), or, when no server runs, by opening it here under the
 * same lock. Both paths call the one implementation in services/admin.ts.
 */
export async function withAdmin<T>(given: RepoHostOptions & { dbPath: string }, work: (admin: AsyncAdminOperations) => Promise<T>): Promise<T> {
  if (given.databaseUrl) {
    // PostgreSQL is shared: the work goes to the database directly, while servers run or not.
    const core = await openHostCore(given);
    try {
      return await work(localOperations(core.admin));
    } finally {
      await core.close();
    }
  }
  // The server names its channel after the real database file; a path through a link must find it.
  const options = { ...given, dbPath: await realDatabasePath(given.dbPath) };
  const deadline = Date.now() + LOCKED_WAIT_MS;
  let reachedServer = false;
  for (;;) {
    let locked: DatabaseLockedError;
    try {
      const core = await openHostCore(options);
      try {
        return await work(localOperations(core.admin));
      } finally {
        await core.close();
      }
    } catch (error) {
      if (!(error instanceof DatabaseLockedError)) throw error;
      locked = error;
    }
    const channel = await readChannelFile(options.dbPath);
    if (channel && channel.pid === locked.pid) {
      try {
        return await work(remoteAdmin(channel));
      } catch (error) {
        // The server stopped between our look at its files and the call: the database may be free now.
        // Only once, and only when it is really gone, so a call the server may have carried out is not repeated blindly.
        if (!(error instanceof ChannelUnreachableError) || reachedServer || (await lockHolder(options.dbPath)) === locked.pid) throw error;
        reachedServer = true;
        continue;
      }
    }
    if (Date.now() > deadline) throw locked;
    await sleep(100);
  }
}
