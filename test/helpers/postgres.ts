import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// A throwaway PostgreSQL server for tests: Debian's `postgresql` package's binaries, `initdb` into a temporary folder
// (trust auth, no fsync), `pg_ctl start` on a free loopback port with its unix socket inside that folder. Every wait is
// bounded, every failure says what ran and shows the server's log, and whatever was started is stopped and removed:
// on failure, by `stop()`, and (best effort) when the process exits without calling it.

export interface PostgresServer {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: the superuser, trust auth. */
  readonly url: string;
  readonly host: '127.0.0.1';
  readonly port: number;
  /** Folder of the server's unix socket (a `host` for libpq and `pg`). */
  readonly socketDir: string;
  /** The server's major version, e.g. `15`. */
  readonly version: string;
  /** Creates an empty database (a fresh name when none is given) and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast, then immediate, then killed) and removes its folder. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /** Extra server settings (`-c name=value`), e.g. `{ max_connections: '200' }`. */
  settings?: Record<string, string>;
  /** Bound on `initdb` and on `pg_ctl start` each, in milliseconds. @default 60_000 */
  timeoutMs?: number;
}

const SUPERUSER = 'postgres';
/** Unix socket paths are limited to 107 bytes; `<socketDir>/.s.PGSQL.<port>` must fit. */
const SOCKET_PATH_MAX = 107;

/** Servers started by this process and not stopped yet, killed on exit as a last resort. */
const running = new Set<{ dir: string; dataDir: string }>();
let exitHookInstalled = false;

/** The folder holding `initdb`, `pg_ctl` and `postgres`: `$REPOHOST_PG_BIN`, the newest `/usr/lib/postgresql/<v>/bin`, or PATH. */
export function postgresBinDir(): string {
  const fromEnv = process.env.REPOHOST_PG_BIN;
  if (fromEnv) {
    if (!existsSync(join(fromEnv, 'initdb'))) throw new Error(`REPOHOST_PG_BIN=${fromEnv} has no initdb`);
    return fromEnv;
  }
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+(\.\d+)?$/.test(name) && existsSync(join(debian, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(debian, versions[0], 'bin');
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error(
    'PostgreSQL server binaries not found (no initdb in /usr/lib/postgresql/<version>/bin or on PATH): ' +
      'install Debian\'s postgresql package (apt-get install postgresql), or set REPOHOST_PG_BIN to the folder holding initdb',
  );
}

/** Starts a fresh PostgreSQL server; call `stop()` when done (afterAll). */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const bin = postgresBinDir();
  const asUser = await systemUser();
  // The postgres user must reach the folder: under root, a TMPDIR inside /root would not do.
  const base = asUser ? '/tmp' : tmpdir();
  const dir = await mkdtemp(join(base, 'repohost-pg-'));
  const dataDir = join(dir, 'data');
  const socketDir = join(dir, 's');
  const logFile = join(dir, 'server.log');
  const entry = { dir, dataDir };
  running.add(entry);
  installExitHook();
  // pg_ctl's own -t bounds its wait for the server; ours (a little longer) bounds pg_ctl and initdb themselves.
  const run = (command: string, args: string[], what: string) =>
    runBounded(asUser ? 'runuser' : join(bin, command), asUser ? ['-u', asUser.name, '--', join(bin, command), ...args] : args, dir, timeoutMs + 5_000, what, logFile);
  try {
    if (`${socketDir}/.s.PGSQL.65535`.length > SOCKET_PATH_MAX) throw new Error(`the socket folder ${socketDir} is too long for a unix socket; set TMPDIR to a shorter folder`);
    if (/['"\\\s]/.test(dir)) throw new Error(`the temporary folder ${dir} has quotes or spaces, which pg_ctl's option string cannot carry`);
    await mkdir(socketDir);
    if (asUser) {
      await chown(dir, asUser.uid, asUser.gid);
      await chown(socketDir, asUser.uid, asUser.gid);
    }
    await run('initdb', ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C'], 'initdb');
    const version = (await readFile(join(dataDir, 'PG_VERSION'), 'utf8')).trim();
    // A port picked free may be taken before the server binds it (other servers starting in parallel): try again.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const settings: Record<string, string> = {
        listen_addresses: '127.0.0.1',
        port: String(port),
        unix_socket_directories: socketDir,
        fsync: 'off',
        synchronous_commit: 'off',
        full_page_writes: 'off',
        ...options.settings,
      };
      const serverOptions = Object.entries(settings)
        .map(([name, value]) => {
          // pg_ctl hands this string to a shell: plain names, values single-quoted.
          if (!/^[a-z_][a-z0-9_.]*$/i.test(name) || value.includes("'")) throw new Error(`startPostgres: setting ${name}=${value} cannot be passed through pg_ctl`);
          return `-c ${name}='${value}'`;
        })
        .join(' ');
      try {
        await run('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', String(Math.ceil(timeoutMs / 1000)), '-o', serverOptions, 'start'], 'pg_ctl start');
      } catch (error) {
        const log = await readFile(logFile, 'utf8').catch(() => '');
        if (attempt < 3 && /could not (bind|create listen)|address already in use/i.test(log)) {
          await stopServer(bin, asUser, dir, dataDir);
          await rm(logFile, { force: true });
          continue;
        }
        throw error;
      }
      const url = `postgresql://${SUPERUSER}@127.0.0.1:${port}/postgres`;
      let stopped: Promise<void> | undefined;
      let databases = 0;
      return {
        url,
        host: '127.0.0.1',
        port,
        socketDir,
        version,
        async createDatabase(name = `db_${process.pid}_${++databases}`) {
          if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`createDatabase: ${name} is not a plain lower-case name`);
          const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
          await client.connect();
          try {
            await client.query(`CREATE DATABASE ${name}`);
          } finally {
            await client.end();
          }
          return `postgresql://${SUPERUSER}@127.0.0.1:${port}/${name}`;
        },
        stop() {
          stopped ??= (async () => {
            try {
              await stopServer(bin, asUser, dir, dataDir);
            } finally {
              running.delete(entry);
              await rm(dir, { recursive: true, force: true, maxRetries: 3 });
            }
          })();
          return stopped;
        },
      };
    }
  } catch (error) {
    await stopServer(bin, asUser, dir, dataDir).catch(() => undefined);
    running.delete(entry);
    await rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    throw error;
  }
}

interface SystemUser {
  name: string;
  uid: number;
  gid: number;
}

/** initdb refuses to run as root: then the servers run as the `postgres` user Debian's package creates. */
async function systemUser(): Promise<SystemUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((row) => row.startsWith(`${SUPERUSER}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (!line || !uid || !gid) {
    throw new Error(`running as root, and there is no '${SUPERUSER}' user to run PostgreSQL as (initdb refuses root): install Debian's postgresql package, which creates it`);
  }
  return { name: SUPERUSER, uid: Number(uid), gid: Number(gid) };
}

/**
 * Stops the server in `dataDir` if one runs: `pg_ctl stop -m fast`, then `-m immediate`, then SIGKILL to the postmaster
 * (its backends exit when they see it gone), each bounded, and waits until the postmaster is gone.
 */
async function stopServer(bin: string, asUser: SystemUser | undefined, dir: string, dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid === undefined) return;
  const pgCtl = (mode: string) =>
    runBounded(
      asUser ? 'runuser' : join(bin, 'pg_ctl'),
      [...(asUser ? ['-u', asUser.name, '--', join(bin, 'pg_ctl')] : []), '-D', dataDir, '-m', mode, '-w', '-t', '15', 'stop'],
      dir,
      20_000,
      `pg_ctl stop -m ${mode}`,
    );
  for (const mode of ['fast', 'immediate']) {
    try {
      await pgCtl(mode);
      if (await exited(pid, 5_000)) return;
    } catch {
      if (!alive(pid)) return;
    }
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone meanwhile */
  }
  if (!(await exited(pid, 10_000))) throw new Error(`PostgreSQL (pid ${pid}, data ${dataDir}) did not stop`);
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/** Runs a command to completion within `timeoutMs`; a failure names the command and shows its output and the server log. */
function runBounded(command: string, args: string[], cwd: string, timeoutMs: number, what: string, logFile?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // PG* variables of the caller's environment must not steer the tools at another server.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PG')));
    const child = spawn(command, args, { cwd, env: { ...env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
    }, timeoutMs);
    const fail = (reason: string) => {
      let log = '';
      try {
        log = logFile ? readFileSync(logFile, 'utf8').slice(-4_000) : '';
      } catch {
        /* no log yet */
      }
      reject(new Error(`${what} ${reason}\n$ ${[command, ...args].join(' ')}\n${output.trim()}${log ? `\n--- server log ---\n${log.trim()}` : ''}`));
    };
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(`could not run: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) fail(`did not finish within ${timeoutMs} ms`);
      else if (code !== 0) fail(`failed (${signal ?? `exit ${code}`})`);
      else resolve();
    });
  });
}

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** When the process exits without `stop()`, servers it started get an immediate shutdown and their folders go. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const { dir, dataDir } of running) {
      const pid = postmasterPid(dataDir);
      if (pid !== undefined) {
        try {
          process.kill(pid, 'SIGQUIT');
        } catch {
          /* already gone */
        }
      }
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
      } catch {
        /* the server may still be writing; the folder is in /tmp */
      }
    }
  });
}
