import { readFile, stat } from 'node:fs/promises';
import type { Fixtures } from '../fixtures.js';
import { FixtureError } from '../harness/validate.js';
import { HarnessClock } from '../harness/clock.js';
import { mountHarnessControl } from '../harness/control.js';
import { createRepoHost } from '../host.js';
import { UsageError, type CliIO } from './output.js';

/** Attempts of a webhook delivery by `repohost serve` (1 s, 4 s, 16 s and 64 s apart). */
const SERVED_WEBHOOK_ATTEMPTS = 5;

/** Largest fixtures file `--fixtures` reads. */
const MAX_FIXTURES_BYTES = 64 * 1024 * 1024;

export interface ServeFlags {
  port: number;
  /** Serve git over SSH on this port too (see `RepoHostOptions.sshPort`). */
  sshPort?: number;
  host: string;
  db: string;
  data?: string;
  /** A PostgreSQL database instead of `db` (see `RepoHostOptions.databaseUrl`). */
  databaseUrl?: string;
  /** The most connections of this instance's PostgreSQL pool (see `RepoHostOptions.databasePoolSize`). */
  databasePoolSize?: number;
  allowLocalNetwork: boolean;
  allowLocalImport: boolean;
  /** A JSON file of fixtures (see `Fixtures`) loaded before the URL is printed. */
  fixtures?: string;
  /** Start even if the write log's end is damaged (see `RepoHostOptions.acceptLogLoss`). */
  acceptLogLoss?: boolean;
  /** Serve the harness operations over HTTP under `/-/harness`, guarded by this token (harness/control.ts). */
  harnessToken?: string;
  /** Refuse `/api/v3` requests past GitHub's rate limits (a harness's server only counts them). @default true */
  rateLimit?: boolean;
}

/** The parsed fixtures file; a usage error names the file and what is wrong with it. */
async function readFixtures(path: string): Promise<unknown> {
  const size = (await stat(path).catch(() => undefined))?.size;
  if (size === undefined) throw new UsageError(`--fixtures ${path}: no such file`);
  if (size > MAX_FIXTURES_BYTES) throw new UsageError(`--fixtures ${path}: larger than ${MAX_FIXTURES_BYTES} bytes`);
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--fixtures ${path}: not JSON (${(error as Error).message})`);
  }
}

/**
 * Serves until SIGINT or SIGTERM, then stops accepting, lets in-flight work finish (bounded by the host),
 * flushes the database and releases its lock. Resolves with the exit code. Only the CLI installs signal
 * handlers; the library never does.
 */
export async function serve(flags: ServeFlags, io: CliIO): Promise<number> {
  // Handlers go in before the URL is printed: whoever reads the URL may signal at once, and a signal with no
  // handler installed kills the process without closing anything.
  let requested: NodeJS.Signals | undefined;
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => {
    requested = signal;
  };
  const handler = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    const fixtures = flags.fixtures === undefined ? undefined : await readFixtures(flags.fixtures);
    const clock = flags.harnessToken === undefined ? undefined : new HarnessClock();
    const host = await createRepoHost({
      now: clock?.now,
      fixtures: fixtures as Fixtures | undefined,
      port: flags.port,
      sshPort: flags.sshPort,
      host: flags.host,
      dbPath: flags.db,
      dataDir: flags.data,
      databaseUrl: flags.databaseUrl,
      databasePoolSize: flags.databasePoolSize,
      allowLocalNetwork: flags.allowLocalNetwork,
      allowLocalImport: flags.allowLocalImport,
      acceptLogLoss: flags.acceptLogLoss,
      // A server retries deliveries a receiver missed; a harness's host does not, as GitHub does not (nor does a host
      // started from code).
      webhookMaxAttempts: clock ? 1 : SERVED_WEBHOOK_ATTEMPTS,
      // A forge holds its callers to GitHub's limits; a harness's server counts but never throttles a test suite.
      rateLimit: { enforce: !clock && flags.rateLimit !== false },
    });
    if (clock) mountHarnessControl(host, flags.harnessToken!, clock);
    io.stdout.write(`repohost listening on ${host.url} (database ${host.options.databaseUrl === undefined ? host.options.dbPath : withoutPassword(host.options.databaseUrl)})\n`);
    if (host.sshPort !== undefined) io.stdout.write(`repohost serving git over SSH on port ${host.sshPort}\n`);
    return await new Promise<number>((resolve) => {
      let stopping = false;
      onSignal = (signal) => {
        if (stopping) {
          // A second signal: the operator does not want to wait. The lock is left stale and taken over next start.
          io.stderr.write(`repohost: ${signal} again, exiting without waiting\n`);
          process.exit(1);
        }
        stopping = true;
        io.stderr.write(`repohost: ${signal} received, finishing requests and closing\n`);
        host.close().then(
          () => resolve(0),
          (error: unknown) => {
            io.stderr.write(`repohost: error while closing: ${(error as Error).message}\n`);
            resolve(1);
          },
        );
      };
      if (requested) onSignal(requested);
    });
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    // One problem a line: the command line's error line would run them together.
    io.stderr.write(`repohost: invalid fixtures in ${flags.fixtures}:\n${error.problems.map((problem) => `  ${problem}\n`).join('')}`);
    return 1;
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}

/** A database URL fit to print: its password left out. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres (URL not shown)';
  }
}
