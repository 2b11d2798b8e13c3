import type { Readable, Writable } from 'node:stream';
import { IdleTimer } from './idle-timer.js';
import { spawnGit } from './run-git.js';
import { ReportStatusReader } from './push/report-status.js';
import { gitProtocolFor, serviceConfig, type ReceiveSetup } from './smart-http.js';

/** The services a whole-session transport (SSH) runs: those of smart HTTP, and `git archive --remote`'s. */
export type StreamService = 'git-upload-pack' | 'git-receive-pack' | 'git-upload-archive';

/** Both directions of one session: what the client sends, where git's output and its messages go. */
export interface GitStreamIo {
  input: Readable;
  output: Writable;
  errors: Writable;
  /** The `GIT_PROTOCOL` the client asked for (`version=2`); ignored unless well formed. */
  protocol?: string;
  /** Stops git (SIGTERM) when it aborts: the client went away, or the server is stopping. */
  signal?: AbortSignal;
}

export interface StreamOptions {
  /** A session in which no byte moved either way for this long is ended and its git killed; 0 for never. */
  idleTimeoutMs?: number;
  /** Sets up one receive-pack (its hooks); called only when receive-pack is about to run. */
  receive?: () => Promise<ReceiveSetup>;
}

const COMMANDS: Readonly<Record<StreamService, string>> = {
  'git-upload-pack': 'upload-pack',
  'git-receive-pack': 'receive-pack',
  'git-upload-archive': 'upload-archive',
};

/**
 * Runs one git service for a whole session (not `--stateless-rpc`: git itself speaks with the client both ways), with
 * the same settings, push hooks and push recording as smart HTTP. Resolves with git's exit code once what a push
 * moved is recorded, so the client learns of the end only then. Authorisation is the caller's job.
 */
export async function serveGitStream(gitDir: string, service: StreamService, io: GitStreamIo, options: StreamOptions = {}): Promise<number> {
  const setup = service === 'git-receive-pack' ? await options.receive?.() : undefined;
  const config = service === 'git-upload-archive' ? [] : serviceConfig(service);
  const child = spawnGit([...config, ...(setup?.config ?? []), COMMANDS[service], '.'], {
    gitDir,
    env: { GIT_PROTOCOL: gitProtocolFor(service, io.protocol), ...setup?.env },
    signal: io.signal,
  });
  // git's own keep-alives (upload-pack and receive-pack send one every 5 s while they work) count as movement.
  const idle = new IdleTimer(options.idleTimeoutMs ?? 0, () => true, () => child.kill('SIGKILL'));
  const fromClient = idle.tap();
  const toClient = idle.tap();
  io.input.pipe(fromClient).pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  // The client closing its side ends git's input: upload-pack then finishes on its own.
  io.input.once('error', () => child.kill('SIGTERM'));
  child.stdout.pipe(toClient).pipe(io.output, { end: false });
  child.stderr.pipe(io.errors, { end: false });
  if (setup) {
    const report = new ReportStatusReader((moved) => setup.reported(moved), { afterAdvertisement: true });
    child.stdout.on('data', (chunk: Buffer) => report.push(chunk));
  }
  const code = await child.done.then(
    () => 0,
    (error: { code?: number | null }) => (typeof error.code === 'number' && error.code > 0 ? error.code : 1),
  );
  idle.stop();
  // A push cut short may still have moved some refs: the host's records follow the disk before the session ends.
  if (setup) await setup.finish().catch(() => undefined);
  // Everything git wrote reaches the client before the exit status does.
  if (!toClient.readableEnded) await new Promise<void>((resolve) => toClient.once('end', resolve).once('close', resolve));
  return code;
}
