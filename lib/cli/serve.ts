import { createRepoHost } from '../host.js';
import type { CliIO } from './output.js';

export interface ServeFlags {
  port: number;
  host: string;
  db: string;
  data?: string;
  allowLocalNetwork: boolean;
  allowLocalImport: boolean;
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
    const host = await createRepoHost({
      port: flags.port,
      host: flags.host,
      dbPath: flags.db,
      dataDir: flags.data,
      allowLocalNetwork: flags.allowLocalNetwork,
      allowLocalImport: flags.allowLocalImport,
    });
    io.stdout.write(`repohost listening on ${host.url} (database ${host.options.dbPath})\n`);
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
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}
