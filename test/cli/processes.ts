import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bearer, http, type HttpResult } from '../helpers/host.js';

export const BIN = fileURLToPath(new URL('../../bin/repohost', import.meta.url));
export const FIXTURE_SERVER = fileURLToPath(new URL('../store/fixtures/serve-with.mjs', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `repohost` command as a subprocess (never a TTY, so never coloured). */
export function runCli(args: string[], options: { input?: string; env?: Record<string, string | undefined>; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A server running in a child process. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Output so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves with the exit code (or signal name) once the process is gone. */
  exited: Promise<number | string>;
  kill(signal: NodeJS.Signals): Promise<number | string>;
}

function spawnServer(args: string[], env: Record<string, string | undefined> = {}): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let started = false;
    const exited = new Promise<number | string>((done) => child.on('exit', (code, signal) => done(code ?? signal ?? -1)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url && !started) {
        started = true;
        clearTimeout(timer);
        resolve({
          url,
          child,
          exited,
          output: () => ({ stdout, stderr }),
          kill: (signal) => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    void exited.then((code) => {
      clearTimeout(timer);
      if (!started) reject(new Error(`server exited with ${code} before listening: ${stderr.trim()}`));
    });
  });
}

/** `repohost serve --port 0 ...` through the real command line. */
export function startCliServer(args: string[], env?: Record<string, string | undefined>): Promise<ServerProcess> {
  return spawnServer([BIN, 'serve', '--port', '0', ...args], env);
}

/** The fixture server (createRepoHost with test-only options such as a small snapshot threshold). */
export function startFixtureServer(options: Record<string, unknown>): Promise<ServerProcess> {
  return spawnServer([FIXTURE_SERVER, JSON.stringify(options)]);
}

/** A request with undici (through the shared test helper); `token` is sent as a bearer token. */
export function call(url: string, init: { method?: string; token?: string; form?: Record<string, string> } = {}): Promise<HttpResult> {
  return http(url, { method: init.method, headers: init.token ? bearer(init.token) : {}, form: init.form });
}

/** Every item of a paginated list endpoint (`page`/`limit`), open and closed alike, in the endpoint's order. */
export async function listAll(url: string): Promise<unknown[]> {
  const items: unknown[] = [];
  for (let page = 1; ; page++) {
    const separator = url.includes('?') ? '&' : '?';
    const result = await call(`${url}${separator}status=all&limit=100&page=${page}`);
    if (result.status !== 200) throw new Error(`${url}: ${result.status} ${result.text}`);
    const batch = result.json as unknown[];
    items.push(...batch);
    if (batch.length < 100) return items;
  }
}
