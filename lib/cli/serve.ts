import { createRepoHost } from '../host.js';
import type { CliIO } from './output.js';

export interface ServeFlags {
  port: number;
  host: string;
  db: string;
  data?: string;
  allowLocalImport: boolean;
}

/**
 * Serves until SIGINT or SIGTERM, then stops accepting, lets in-flight work finish (bounded by the host),
 * flushes the database and releases its lock. Resolves with the exit code. Only the CLI installs signal
 * handlers; the library never does.
 */
export async function serve(flags: ServeFlags, io: CliIO): Promise<number> {
  const host = await createRepoHost({
    port: flags.port,
    host: flags.host,
    dbPath: flags.db,
    dataDir: flags.data,
    allowLocalImport: flags.allowLocalImport,
  });
  io.stdout.write(`repohost listening on ${host.url} (database ${host.options.dbPath})\n`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        // A second signal: the operator does not want to wait. The lock is left stale and taken over next start.
        io.stderr.write(`repohost: ${signal} again, exiting without waiting\n`);
        process.exit(1);
      }
      stopping = true;
      io.stderr.write(`repohost: ${signal} received, finishing requests and closing\n`);
      host.close().then(
        () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve(0);
        },
        (error: unknown) => {
          io.stderr.write(`repohost: error while closing: ${(error as Error).message}\n`);
          resolve(1);
        },
      );
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
