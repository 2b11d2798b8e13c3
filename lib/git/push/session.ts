import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { ReceiveSetup } from '../smart-http.js';
import type { RefChange } from '../refs.js';
import { isAncestor } from '../ancestry.js';
import type { HookChannel } from './channel.js';
import { writeHookFolders, type HookFolders } from './hooks.js';
import type { ReceiveReport } from './report-status.js';

/**
 * The host's decision on the updates a push proposes (the refs it refuses, with reasons), asked once the pack is in and
 * before any ref moves. `isFastForward` sees the pushed objects, which are still in git's quarantine then.
 */
export type RefCheck = (proposed: RefChange[], isFastForward: (before: string, after: string) => Promise<boolean>) => Promise<Map<string, string>>;

export interface ReceiveOptions {
  /** Refuse single refs (the update hook runs per ref) rather than the whole push. */
  perRef: boolean;
  check: RefCheck;
  /**
   * Asked with the commands of a push whose whole body has arrived: when it needs no check, `ready` settles once what
   * must be on disk before any ref moves is, and the push runs with no hook (see `ReceiveSetup.ready`); undefined when
   * its hook must ask `check` as usual.
   */
  admit?: (commands: RefChange[]) => Promise<{ ready: Promise<void> } | undefined>;
  /** Told as receive-pack is about to run, before the pack arrives. */
  starting: () => void;
  /** Told once receive-pack ended without `check` being asked: its hook never ran, so no ref moved. */
  unasked: () => Promise<void>;
  /**
   * When `check` was asked: the refs git moved, as soon as its report says so (the proposal's lines for each ref it
   * reports `ok`), or null once receive-pack ended without a whole report (killed, or a client that asked for none),
   * or when the report cannot tell what moved (see `movedBy`).
   */
  moved: (changes: RefChange[] | null) => Promise<void>;
}

/**
 * What a push moved, by git's report: the proposed changes of the refs it says `ok` (git checked each one's old value
 * under its lock), nothing when the pack was not unpacked. A ref proposed twice in one push (`a→b` and `a→c`) is
 * reported `ok` once and `ng` once, by name: which one landed is not told, so null (the refs are compared with git).
 */
function movedBy(report: ReceiveReport, proposal: readonly RefChange[]): RefChange[] | null {
  if (!report.unpacked) return [];
  if (new Set(proposal.map((change) => change.ref)).size !== proposal.length) return null;
  return proposal.filter((change) => report.updated.has(change.ref));
}

/** Where git keeps a push's objects until its refs move; left behind by a receive-pack that was killed. */
const QUARANTINE_PREFIX = 'tmp_objdir-incoming-';
/** With other instances on the folder: a quarantine untouched this long belongs to no push still running. */
const SHARED_QUARANTINE_AGE_MS = 60 * 60 * 1000;

/** Those of `names` (folders in `dir`) last changed before `before` (ms since the epoch). */
async function olderThan(dir: string, names: readonly string[], before: number): Promise<string[]> {
  const ages = await Promise.all(names.map(async (name) => ({ name, mtime: (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs })));
  return ages.filter((entry) => entry.mtime !== undefined && entry.mtime < before).map((entry) => entry.name);
}

/**
 * The receive-packs of one host: each gets the hooks (push/hooks.ts), a file of its own for the refusals they pass on, and a
 * registration on the hook channel through which its pre-receive asks the host. Once the last receive-pack of a
 * repository ended, quarantine folders that killed ones left behind are removed.
 */
export class ReceiveSessions {
  /** The hook folders and the folder of the pushes' own folders, made by the first push. */
  #folders: Promise<HookFolders & { pushes: string }> | undefined;
  readonly #running = new Map<string, number>();
  readonly #tidying = new Set<Promise<void>>();

  /** `sharedFolder`: other instances receive pushes into the same repositories (PostgreSQL). */
  constructor(
    private readonly root: string,
    private readonly channel: HookChannel,
    private readonly sharedFolder = false,
  ) {}

  async start(gitDir: string, options: ReceiveOptions, commands?: RefChange[]): Promise<ReceiveSetup> {
    const folders = await (this.#folders ??= this.#makeFolders());
    const admitted = commands && options.admit ? await options.admit(commands) : undefined;
    if (admitted) return this.#withoutHook(gitDir, folders.none, commands!, admitted.ready, options);
    // Made by the pre-receive hook itself: nothing to create (and wait for) before git starts.
    const refusedFile = join(folders.pushes, `push-${randomBytes(16).toString('hex')}`);
    let proposal: RefChange[] | undefined;
    let recording: Promise<void> | undefined;
    const registration = await this.channel.register(async (proposed, quarantine) => {
      proposal = proposed;
      const objects = quarantineEnv(gitDir, quarantine);
      return options.check(proposed, (before, after) => isAncestor(gitDir, before, after, objects));
    });
    this.#running.set(gitDir, (this.#running.get(gitDir) ?? 0) + 1);
    options.starting();
    return {
      config: ['-c', `core.hooksPath=${options.perRef ? folders.perRef : folders.whole}`],
      env: {
        REPOHOST_HOOK_PORT: String(registration.port),
        REPOHOST_HOOK_TOKEN: registration.token,
        REPOHOST_REFUSED: refusedFile,
        REPOHOST_PER_REF: options.perRef ? '1' : undefined,
      },
      reported: (report: ReceiveReport) => {
        // git checked each ref's old value under its lock: an `ok` ref moved exactly as proposed.
        if (!proposal || recording) return;
        recording = options.moved(movedBy(report, proposal));
        // Awaited by `finish` once receive-pack has closed; a failure before then must not go unhandled meanwhile.
        recording.catch(() => undefined);
      },
      finish: async () => {
        registration.release();
        try {
          if (recording) await recording;
          else if (proposal) await options.moved(null);
          else await options.unasked();
        } finally {
          // Tidying up is not the pusher's to wait for.
          this.#track(rm(refusedFile, { force: true }).then(() => this.#leave(gitDir)));
        }
      },
    };
  }

  /**
   * A receive-pack that runs with no hook: the host admitted its commands (no rule to check) and gives it the body
   * once `ready` (its intent on disk). What moved is its report's `ok` commands, with the old values git checked.
   */
  #withoutHook(gitDir: string, noHooks: string, commands: RefChange[], ready: Promise<void>, options: ReceiveOptions): ReceiveSetup {
    this.#running.set(gitDir, (this.#running.get(gitDir) ?? 0) + 1);
    options.starting();
    let recording: Promise<void> | undefined;
    return {
      config: ['-c', `core.hooksPath=${noHooks}`],
      env: {},
      ready,
      reported: (report: ReceiveReport) => {
        if (recording) return;
        recording = options.moved(movedBy(report, commands));
        recording.catch(() => undefined);
      },
      finish: async () => {
        try {
          if (recording) await recording;
          // Given the body: refs may have moved without a whole report. Refused before it: nothing moved.
          else await ready.then(() => options.moved(null), () => options.unasked());
        } finally {
          this.#track(this.#leave(gitDir));
        }
      },
    };
  }

  async #makeFolders(): Promise<HookFolders & { pushes: string }> {
    const pushes = join(this.root, '.pushes');
    await mkdir(pushes, { recursive: true });
    return { ...(await writeHookFolders(join(this.root, '.hooks'))), pushes };
  }

  async #leave(gitDir: string): Promise<void> {
    const left = (this.#running.get(gitDir) ?? 1) - 1;
    if (left > 0) return void this.#running.set(gitDir, left);
    this.#running.delete(gitDir);
    // No receive-pack of ours runs here now: a quarantine folder is what a killed one (or a crash) left behind.
    const objects = join(gitDir, 'objects');
    const names = (await readdir(objects).catch(() => [] as string[])).filter((name) => name.startsWith(QUARANTINE_PREFIX));
    // Other instances sharing the folder may be receiving into theirs right now: only what is old enough to be dead goes.
    const leftBehind = this.sharedFolder ? await olderThan(objects, names, Date.now() - SHARED_QUARANTINE_AGE_MS) : names;
    await Promise.all(leftBehind.map((name) => rm(join(objects, name), { recursive: true, force: true })));
  }

  /** Work that follows a push's answer (removing its folder and quarantines), awaited by `close`. */
  #track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#tidying.delete(tracked));
    this.#tidying.add(tracked);
  }

  async close(): Promise<void> {
    await Promise.all(this.#tidying);
    await this.channel.close();
  }
}

/** The environment that lets git see a push's quarantined objects (only a folder inside the repository's objects). */
function quarantineEnv(gitDir: string, quarantine: string | undefined): Record<string, string> {
  const objects = resolve(gitDir, 'objects');
  if (!quarantine || !resolve(quarantine).startsWith(objects + sep)) return {};
  return { GIT_OBJECT_DIRECTORY: resolve(quarantine), GIT_ALTERNATE_OBJECT_DIRECTORIES: objects };
}

