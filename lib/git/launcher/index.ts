import { spawn, type ChildProcess } from 'node:child_process';
import { Launcher, type GitProcess, type LauncherDeath, type LaunchOptions } from './launcher.js';

export type { GitProcess, LaunchOptions } from './launcher.js';

/**
 * Starting a process from the host forks the host, and the kernel copies the page tables of all of its memory
 * meanwhile: 4-12 ms for a host of 150-200 MB (bench:pages), during which its event loop stands still, for every
 * git command. The launcher is a small Node process, started by the first git command, that runs git on the
 * host's behalf: the host sends a message, the fork happens in a 40 MB process (see launcher.ts). Until the
 * launcher is up, and wherever it cannot run, git is spawned directly. When it dies it is started again by the next git command (issue 17
 * point 10c), at once the first time, then after a back-off while it keeps dying young.
 */

type Log = (message: string) => void;

/** The wait before the restart after a launcher that died young, doubled for each further one, up to the cap. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** A launcher up this long died of something other than what killed the one before: no back-off. */
const STABLE_MS = 60_000;

/** One launcher per host process, shared by its hosts: started by the first git command, ended with the last host. */
interface Shared {
  /** The newest launcher started (or being started); undefined when it could not start or was not asked for yet. */
  launcher: Promise<Launcher | undefined>;
  /** The first git command starts it: a host that never runs git never pays for a second Node process (issue 23). */
  started: boolean;
  users: number;
  /** The loggers of the hosts holding it: a death is told once, through the oldest. */
  readonly logs: Log[];
  /** Died and not restarted yet: the next launch from `restartAt` on starts a new one. */
  dead: boolean;
  restartAt: number;
  /** The wait to apply after the next death of a launcher that dies young. */
  nextBackoffMs: number;
}

let shared: Shared | undefined;
let current: Launcher | undefined;

const stderrLog: Log = (message) => void process.stderr.write(`${message}\n`);

/** Starts a launcher for `held`; it becomes the one launches use unless everyone let go meanwhile. */
function startLauncher(held: Shared, restarting: boolean): Promise<Launcher | undefined> {
  return Launcher.start((dead, death) => onDeath(held, dead, death)).then(
    (started) => {
      if (shared !== held) {
        started.close().catch(() => undefined);
        return undefined;
      }
      current = started;
      return started;
    },
    (error: unknown) => {
      // The first start failing means the launcher cannot run here: git is spawned directly, as on Windows. A
      // restart failing is retried later, like a death.
      if (restarting && shared === held) {
        const wait = scheduleRestart(held, 0);
        (held.logs[0] ?? stderrLog)(`repohost: the git launcher could not be restarted (${(error as Error).message}); next try in ${wait / 1000} s`);
      }
      return undefined;
    },
  );
}

/** Marks the launcher dead and sets when it may be restarted; answers the wait. */
function scheduleRestart(held: Shared, livedMs: number): number {
  const wait = livedMs >= STABLE_MS ? 0 : held.nextBackoffMs;
  held.nextBackoffMs = wait === 0 ? FIRST_BACKOFF_MS : Math.min(wait * 2, MAX_BACKOFF_MS);
  held.dead = true;
  held.restartAt = Date.now() + wait;
  return wait;
}

function onDeath(held: Shared, dead: Launcher, death: LauncherDeath): void {
  if (current === dead) current = undefined;
  if (shared !== held) return;
  const wait = scheduleRestart(held, death.livedMs);
  const how = death.signal ? `signal ${death.signal}` : death.code !== null ? `exit code ${death.code}` : 'channel closed';
  const when = wait === 0 ? 'with the next git command' : `with a git command in ${wait / 1000} s or later`;
  (held.logs[0] ?? stderrLog)(`repohost: the git launcher (pid ${death.pid ?? '?'}) died (${how}); git runs directly until it is restarted ${when}`);
}

/**
 * Holds the launcher for a host: the first git command starts it (in the background), the returned function
 * releases it when the host closes. `log` tells of launcher deaths (one line each).
 */
export function acquireGitLauncher(log: Log = stderrLog): () => Promise<void> {
  if (process.platform === 'win32') return async () => undefined;
  if (!shared) {
    shared = { launcher: Promise.resolve(undefined), started: false, users: 0, logs: [], dead: false, restartAt: 0, nextBackoffMs: 0 };
  }
  const held = shared;
  held.users += 1;
  held.logs.push(log);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.users -= 1;
    held.logs.splice(held.logs.indexOf(log), 1);
    if (held.users > 0) return;
    if (shared === held) shared = undefined;
    // The newest launcher (a restart under way included: once up, it sees it is not wanted and closes itself).
    const launcher = await held.launcher;
    if (current === launcher) current = undefined;
    await launcher?.close();
  };
}

/** Resolves once the launcher has started (true) or could not start (false); false before a git command asked for one. */
export async function gitLauncherStarted(): Promise<boolean> {
  return (await shared?.launcher)?.usable ?? false;
}

/** Processes started so far in this process (tests count what a request costs, as `statementsRun` does for SQL). */
let launched = 0;

export function processesLaunched(): number {
  return launched;
}

/** Runs `command` through the launcher when it is up, or spawns it directly (stdio always three pipes). */
export function launchProcess(command: string, args: readonly string[], options: LaunchOptions): GitProcess {
  launched++;
  if (current?.usable) return current.launch(command, args, options);
  if (shared && !shared.started) {
    // Started in the background by the first git command; this launch and those until it is up run directly.
    shared.started = true;
    shared.launcher = startLauncher(shared, false);
  } else if (shared?.dead && Date.now() >= shared.restartAt) {
    // Restarted in the background; this launch and those until it is up run directly.
    shared.dead = false;
    shared.launcher = startLauncher(shared, true);
  }
  return spawn(command, args as string[], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true }) as ChildProcess & GitProcess;
}
