import { copyFile, link, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.js';

// Snapshots of a whole host for test harnesses: the database (an export of the in-memory SQLite) and the files
// (bare repositories, avatars) together. Files are hard links where git never changes a file in place (objects,
// packs), copies otherwise, so taking and restoring a snapshot costs a few file operations per repository.

/** A saved state of a host (`host.snapshot()`); give it back to `host.restore`. Lives until the host closes. */
export interface HostSnapshot {
  readonly takenAt: string;
}

interface Tree {
  /** Folders to create, parents first (relative to the tree's root). */
  dirs: string[];
  /** Files, relative; `link` when hard-linking is safe. */
  files: Array<{ path: string; link: boolean }>;
}

interface SavedState extends HostSnapshot {
  database: Uint8Array;
  /** Where the files of this snapshot are kept. */
  folder: string;
  /** One tree per repository (`<owner>/<name>.git`) and the avatars folder. */
  repositories: Map<string, Tree>;
  avatars: Tree | undefined;
}

/**
 * Objects and packs are written once under a content-derived name and only ever deleted, release assets once under a
 * random one (services/release-files.ts), LFS objects once under their oid: safe to share.
 */
const IMMUTABLE = /^(?:objects\/(?:[0-9a-f]{2}\/[0-9a-f]{38,62}|pack\/pack-[0-9a-f]+\.(?:pack|idx|rev))|repohost-assets\/[0-9a-f]{32}|lfs\/objects\/[0-9a-f]{64})$/;
/** Files a running git leaves only for the moment (a push in flight, a lock), and uploads still arriving: never part of a state. */
const TRANSIENT = /(?:\.lock$|^objects\/incoming-|\/tmp_|^objects\/pack\/tmp_|^repohost-assets\/\.incoming-|^lfs\/objects\/\.incoming-)/;

async function entries(dir: string) {
  return readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
}

/** The folders and files under `root` (a vanished entry is skipped: the walk is not atomic). */
async function walk(root: string, immutable: RegExp | undefined): Promise<Tree> {
  const tree: Tree = { dirs: [], files: [] };
  const visit = async (relative: string): Promise<void> => {
    const children = await entries(relative ? join(root, relative) : root);
    await Promise.all(
      children.map(async (child) => {
        const path = relative ? `${relative}/${child.name}` : child.name;
        if (TRANSIENT.test(path)) return;
        if (child.isDirectory()) {
          tree.dirs.push(path);
          await visit(path);
        } else if (child.isFile()) tree.files.push({ path, link: immutable?.test(path) ?? false });
      }),
    );
  };
  await visit('');
  tree.dirs.sort((a, b) => a.split('/').length - b.split('/').length);
  return tree;
}

/** Recreates `tree` from `from` at `to` (which must not exist). */
async function materialise(tree: Tree, from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  // Folders level by level (a parent before its children), each level at once.
  const levels = new Map<number, string[]>();
  for (const dir of tree.dirs) {
    const depth = dir.split('/').length;
    levels.set(depth, [...(levels.get(depth) ?? []), dir]);
  }
  for (const depth of [...levels.keys()].sort((a, b) => a - b)) await Promise.all(levels.get(depth)!.map((dir) => mkdir(join(to, dir))));
  await Promise.all(
    tree.files.map(async (file) => {
      const [source, target] = [join(from, file.path), join(to, file.path)];
      try {
        // A file system without hard links (or a data folder spanning two) gets copies.
        await (file.link ? link(source, target).catch((error: NodeJS.ErrnoException) => (error.code === 'EXDEV' || error.code === 'EPERM' ? copyFile(source, target) : Promise.reject(error))) : copyFile(source, target));
      } catch (error) {
        // Walked a moment ago and gone since (git removed a temporary file): not part of the state.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }),
  );
}

/** The repositories of the host, as `<owner>/<name>.git` (temporary folders and the hooks folder skipped). */
async function repositoryNames(root: string): Promise<string[]> {
  const names: string[] = [];
  for (const owner of await entries(root)) {
    if (!owner.isDirectory() || owner.name.startsWith('.')) continue;
    for (const repo of await entries(join(root, owner.name))) {
      if (repo.isDirectory() && !repo.name.startsWith('.') && repo.name.endsWith('.git')) names.push(`${owner.name}/${repo.name}`);
    }
  }
  return names;
}

/**
 * Takes and restores snapshots of one host. Its working folder (`<dataDir>/.harness`, or a folder of its own in it when
 * other instances share the data folder) holds the snapshots' files and the replaced files on their way out; nothing
 * in it outlives the host.
 */
export class Snapshots {
  readonly #ctx: AppContext;
  /** `<dataDir>/.harness`, and this host's working folder: the same, or one per instance below it. */
  readonly #root: string;
  readonly #folder: string;
  readonly #repositories: string;
  readonly #avatars: string;
  readonly #saved = new WeakMap<HostSnapshot, SavedState>();
  #count = 0;
  /** Replaced files being removed in the background (see `idle`). */
  readonly #removals = new Set<Promise<void>>();
  /** One snapshot or restore at a time. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#root = join(ctx.options.dataDir, '.harness');
    const instance = ctx.store.sharedLocks?.instance;
    this.#folder = instance === undefined ? this.#root : join(this.#root, instance);
    this.#repositories = ctx.git.root;
    this.#avatars = join(ctx.options.dataDir, 'avatars');
  }

  /** Removes what a previous run may have left (a crash before close); with other instances, only stopped ones' folders. */
  async open(): Promise<void> {
    const locks = this.#ctx.store.sharedLocks;
    if (!locks) return void (await rm(this.#folder, { recursive: true, force: true }));
    for (const entry of await entries(this.#root)) {
      if (!(await locks.isRunning(entry.name))) await rm(join(this.#root, entry.name), { recursive: true, force: true });
    }
  }

  take(): Promise<HostSnapshot> {
    return this.#serial(async () => {
      const ctx = this.#ctx;
      // Work that writes to the database or the repositories finishes first, so the copy is of one moment.
      await ctx.pulls.idle();
      await ctx.git.quiesce(false);
      const database = await ctx.store.exportBytes();
      const folder = join(this.#folder, `snapshot-${++this.#count}`);
      const repositories = new Map<string, Tree>();
      await Promise.all(
        (await repositoryNames(this.#repositories)).map(async (name) => {
          const tree = await walk(join(this.#repositories, name), IMMUTABLE);
          await materialise(tree, join(this.#repositories, name), join(folder, 'repositories', name));
          repositories.set(name, tree);
        }),
      );
      // Avatars are few and small: copied, whatever the avatar service does with its files.
      const avatarTree = await walk(this.#avatars, undefined);
      const avatars = avatarTree.files.length > 0 || avatarTree.dirs.length > 0 ? avatarTree : undefined;
      if (avatars) await materialise(avatars, this.#avatars, join(folder, 'avatars'));
      const snapshot: HostSnapshot = Object.freeze({ takenAt: ctx.options.now().toISOString() });
      this.#saved.set(snapshot, { ...snapshot, database, folder, repositories, avatars });
      return snapshot;
    });
  }

  /**
   * Puts the host back to `snapshot`: background work is stopped or awaited first (webhook attempts in flight cut
   * off, mergeability updates finished, repository upkeep dropped), the repositories and avatars are replaced, the
   * database is replaced durably, the ref cache (here and in other instances sharing the folder) and counted failed
   * logins are dropped (caches keyed by commit id stay valid), and deliveries pending in the restored outbox are sent. Files first, then the database: a crash in
   * between leaves restored repositories beside the earlier database.
   */
  restore(snapshot: HostSnapshot): Promise<void> {
    const saved = this.#saved.get(snapshot);
    if (!saved) return Promise.reject(new TypeError('restore() takes a snapshot taken by this host'));
    return this.#serial(async () => {
      const ctx = this.#ctx;
      await ctx.pulls.idle();
      const resume = await ctx.deliveries.suspend();
      try {
        await ctx.git.quiesce(true);
        const trash = join(this.#folder, `trash-${++this.#count}`);
        await mkdir(trash, { recursive: true });
        // Out of the way with one rename each; removed in the background.
        const current = await repositoryNames(this.#repositories);
        await Promise.all(current.map((name, index) => rename(join(this.#repositories, name), join(trash, String(index)))));
        await rename(this.#avatars, join(trash, 'avatars')).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
        ctx.git.replaced();
        await Promise.all([...saved.repositories].map(([name, tree]) => materialise(tree, join(saved.folder, 'repositories', name), join(this.#repositories, name))));
        if (saved.avatars) await materialise(saved.avatars, join(saved.folder, 'avatars'), this.#avatars);
        await ctx.store.replaceWith(saved.database);
        // Anything read in between (a request during the restore) is forgotten again, and so are failed logins.
        ctx.git.replaced();
        ctx.users.forgetFailedLogins();
        this.#removeLater(trash);
      } finally {
        await resume();
      }
    });
  }

  /** Resolves once replaced files are removed. */
  async idle(): Promise<void> {
    while (this.#removals.size > 0) await Promise.all(this.#removals);
  }

  /** Removes every snapshot's files (the host is closing). */
  async close(): Promise<void> {
    await this.#queue.catch(() => undefined);
    await this.idle();
    await rm(this.#folder, { recursive: true, force: true });
  }

  #removeLater(path: string): void {
    const removal = rm(path, { recursive: true, force: true })
      .catch(() => undefined)
      .finally(() => this.#removals.delete(removal));
    this.#removals.add(removal);
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.catch(() => undefined).then(work);
    this.#queue = next;
    return next;
  }
}
