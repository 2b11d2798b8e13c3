import { tmpdir } from 'node:os';
import type { Readable } from 'node:stream';
import { launchProcess, type GitProcess } from './launcher/index.js';

/** Most stderr kept from one git run; the rest is dropped (git can be chatty on big transfers). */
const STDERR_LIMIT = 16 * 1024;

/** Default time limit for read queries; transport passes its own (or none). */
export const DEFAULT_GIT_TIMEOUT_MS = 120_000;

/** A git run that exited non-zero, was killed by its time limit, or could not start. */
export class GitError extends Error {
  readonly args: readonly string[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;
  readonly timedOut: boolean;
  constructor(args: readonly string[], code: number | null, signal: NodeJS.Signals | null, stderr: string, timedOut = false) {
    const what = timedOut ? 'timed out' : signal ? `was killed by ${signal}` : `exited with ${code}`;
    super(`git ${args[0] ?? ''} ${what}${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' | ')}` : ''}`);
    this.name = 'GitError';
    this.args = args;
    this.code = code;
    this.signal = signal;
    this.stderr = stderr;
    this.timedOut = timedOut;
  }
}

export function isGitError(error: unknown): error is GitError {
  return error instanceof GitError;
}

/**
 * The environment every git child gets: built from scratch (nothing of ours leaks, no GIT_DIR from
 * the parent), no system or user config, never a terminal prompt, C locale so output parses.
 */
export function gitEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: tmpdir(),
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    LANG: 'C',
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_NO_REPLACE_OBJECTS: '1',
  };
  if (process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
  // The caller's own names (GIT_DIR, GIT_PROTOCOL, ...), never a user's.
  for (const [key, value] of Object.entries(extra)) {
    // eslint-disable-next-line repohost/own-keys
    if (value === undefined) delete env[key];
    // eslint-disable-next-line repohost/own-keys
    else env[key] = value;
  }
  return env;
}

export interface RunGitOptions {
  /** The repository: sets both the working directory and GIT_DIR, so git never searches upwards. */
  gitDir?: string;
  /** Working directory (defaults to `gitDir`). */
  cwd?: string;
  /** Bytes written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Kill the child after this long. @default 120000 */
  timeoutMs?: number;
  /** Extra environment variables (undefined removes one). */
  env?: Record<string, string | undefined>;
  /** Kill the child when this signal aborts. */
  signal?: AbortSignal;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
}

/** Runs git with an argument array (never a shell); rejects with GitError on a non-zero exit. */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawnGit(args, { ...options, timeoutMs: options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stdin.on('error', () => {
      /* the child may exit before reading all input; its exit code tells what happened */
    });
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
    child.done.then(
      () => resolvePromise({ stdout: Buffer.concat(chunks), stderr: child.stderrText() }),
      reject,
    );
  });
}

/** A git child for streaming use: its stdio plus a promise of its successful exit. */
export type GitChild = GitProcess & {
  /** Resolves when the child exits 0; rejects with GitError otherwise. Never unhandled. */
  readonly done: Promise<void>;
  /** The captured (bounded) stderr so far. */
  stderrText(): string;
};

export interface SpawnGitOptions extends Omit<RunGitOptions, 'input' | 'timeoutMs'> {
  /** Kill the child after this long; 0 means no limit. @default 0 */
  timeoutMs?: number;
}

/** What a git command writes, as a stream: a reader that goes away stops git; git failing ends the stream with an error. */
export function gitOutput(args: readonly string[], options: SpawnGitOptions = {}): Readable {
  const child = spawnGit(args, options);
  child.stdin.end();
  child.stdout.on('close', () => child.kill('SIGTERM'));
  child.done.catch((error: Error) => child.stdout.destroy(error));
  return child.stdout;
}

/** Spawns git for streaming (transport, long walks); the caller wires stdin/stdout. */
export function spawnGit(args: readonly string[], options: SpawnGitOptions = {}): GitChild {
  const child = launchProcess('git', args, {
    cwd: options.cwd ?? options.gitDir,
    env: gitEnv(options.gitDir ? { GIT_DIR: options.gitDir, ...options.env } : options.env),
  }) as GitChild;
  let stderr = '';
  let timedOut = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    if (stderr.length < STDERR_LIMIT) stderr += text.slice(0, STDERR_LIMIT - stderr.length);
  });
  const kill = (how: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(how);
  };
  const timeoutMs = options.timeoutMs ?? 0;
  const timer = timeoutMs > 0 ? setTimeout(() => { timedOut = true; kill('SIGKILL'); }, timeoutMs) : undefined;
  const signal = options.signal;
  // SIGTERM on abort: git then removes its lock files; SIGKILL only when a time limit is exceeded.
  const onAbort = () => kill('SIGTERM');
  if (signal) {
    if (signal.aborted) queueMicrotask(onAbort);
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  const done = new Promise<void>((resolvePromise, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolvePromise();
    };
    child.once('error', (error) => finish(new GitError(args, null, null, `${stderr}${error.message}`)));
    // 'close' (not 'exit') so stdout/stderr are fully read before we settle.
    child.once('close', (code, sig) => {
      if (code === 0 && !timedOut) finish();
      else finish(new GitError(args, code, sig, stderr, timedOut));
    });
  });
  done.catch(() => {});
  Object.defineProperty(child, 'done', { value: done });
  Object.defineProperty(child, 'stderrText', { value: () => stderr });
  return child;
}

