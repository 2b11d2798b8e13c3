import { randomBytes } from 'node:crypto';
import { link, open, readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';

/** Another live process (or this one) already owns the database. */
export class DatabaseLockedError extends Error {
  constructor(
    readonly dbPath: string,
    readonly pid: number,
  ) {
    super(`database ${dbPath} is in use by another repohost process (pid ${pid}); stop it first (if pid ${pid} is not repohost, remove ${lockPathOf(dbPath)})`);
    this.name = 'DatabaseLockedError';
  }
}

/** The lock of one database, held until `release()`. */
export interface DatabaseLock {
  readonly path: string;
  release(): Promise<void>;
}

interface LockContent {
  pid: number;
  host: string;
  started: string;
}

// Locks this process holds. A lock file naming our own pid that is not in here is stale: pids repeat,
// e.g. a server that runs as pid 1 in a container and was killed, then restarted.
const heldHere = new Set<string>();

export function lockPathOf(dbPath: string): string {
  return `${dbPath}.lock`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid named by the lock file when that process is alive (and not a stale entry of ours), else undefined. */
export async function lockHolder(dbPath: string): Promise<number | undefined> {
  const path = lockPathOf(dbPath);
  let content: Partial<LockContent>;
  try {
    content = JSON.parse(await readFile(path, 'utf8')) as Partial<LockContent>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // Unreadable or garbage (locks are linked into place complete, so not one being written): stale.
    return undefined;
  }
  const pid = content.pid;
  if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (content.host !== undefined && content.host !== hostname()) return pid; // cannot check another machine's pids
  if (pid === process.pid) return heldHere.has(path) ? pid : undefined;
  return isAlive(pid) ? pid : undefined;
}

/**
 * Takes `<db>.lock`, a file holding our pid. A lock whose process is gone is stale and is taken over;
 * a live one refuses with DatabaseLockedError. Nothing else about the database is touched.
 */
export async function acquireLock(dbPath: string, options: { sync?: boolean } = {}): Promise<DatabaseLock> {
  const path = lockPathOf(dbPath);
  const content: LockContent = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    // Written in full under a temporary name, then linked into place: link fails when the lock exists,
    // and a reader never sees a half-written lock file.
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(`${JSON.stringify(content)}\n`);
      // A ':memory:' host's lock lives in its own temporary directory, removed on close: nothing to make durable.
      if (options.sync !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    let linked = false;
    try {
      await link(temp, path);
      linked = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temp, { force: true });
    }
    if (linked) {
      heldHere.add(path);
      let released = false;
      return {
        path,
        async release() {
          if (released) return;
          released = true;
          heldHere.delete(path);
          await rm(path, { force: true });
        },
      };
    }
    const holder = await lockHolder(dbPath);
    if (holder !== undefined) throw new DatabaseLockedError(dbPath, holder);
    // Stale: remove it and try again (the exclusive create decides between racing starters).
    await rm(path, { force: true });
  }
  throw new DatabaseLockedError(dbPath, (await lockHolder(dbPath)) ?? 0);
}
