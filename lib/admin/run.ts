import { openHostCore } from '../host.js';
import type { RepoHostOptions } from '../options.js';
import { DatabaseLockedError, lockHolder } from '../store/lock.js';
import { ChannelUnreachableError, remoteAdmin } from './channel-client.js';
import { readChannelFile, type ChannelInfo } from './channel-file.js';
import { ADMIN_OPERATION_NAMES, type AsyncAdminOperations } from './protocol.js';

/** How long to wait for a server that holds the lock to publish its admin channel (it may be starting). */
const CHANNEL_WAIT_MS = 5_000;

async function waitForChannel(dbPath: string, holder: number): Promise<ChannelInfo> {
  const deadline = Date.now() + CHANNEL_WAIT_MS;
  for (;;) {
    const channel = await readChannelFile(dbPath);
    if (channel && channel.pid === holder) return channel;
    if (Date.now() > deadline || (await lockHolder(dbPath)) !== holder) {
      throw new DatabaseLockedError(dbPath, holder);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Runs admin work against the database at `options.dbPath`: through the running server that holds it (so
 * the change is live at once and never overwritten), or, when no server runs, by opening it here under the
 * same lock. Both paths call the one implementation in services/admin.ts.
 */
export async function withAdmin<T>(options: RepoHostOptions & { dbPath: string }, work: (admin: AsyncAdminOperations) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    let holder: number;
    try {
      const core = await openHostCore(options);
      try {
        const local = Object.fromEntries(
          ADMIN_OPERATION_NAMES.map((name) => [name, async (...args: unknown[]) => (core.admin[name] as (...a: unknown[]) => unknown)(...args)]),
        ) as unknown as AsyncAdminOperations;
        return await work(local);
      } finally {
        await core.close();
      }
    } catch (error) {
      if (!(error instanceof DatabaseLockedError)) throw error;
      holder = error.pid;
    }
    const channel = await waitForChannel(options.dbPath, holder);
    try {
      return await work(remoteAdmin(channel));
    } catch (error) {
      // The server stopped between our look at its files and the call: the database may be free now.
      if (!(error instanceof ChannelUnreachableError) || attempt > 0 || (await lockHolder(options.dbPath)) === holder) throw error;
    }
  }
}
