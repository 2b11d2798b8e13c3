// buildTree: a tree made from a base tree and changes by path, without a work tree (the contents API, the editor,
// fixtures). Only the folders on changed paths are rewritten; new blobs are written a few at a time.
import { ownValue } from '../own-value.js';
import { GitObjectError, writeBlob, type TreeEntry, MODE_TYPES, normaliseMode, readTree, writeTree, isEntryName } from './objects.js';

/**
 * What becomes of one path in `buildTree`: new content (a blob is written), an existing object by id
 * (a blob, or a folder with mode 040000), or `null` to delete it.
 */
export type TreeChange = null | { content: string | Uint8Array; mode?: string } | { id: string; mode?: string };

/** Splits "a/b/c" into names, rejecting empty, dot and .git segments (as git's `verify_path` does). */
export function splitTreePath(path: string): string[] {
  const names = path.split('/');
  if (names.some((name) => !isEntryName(name))) throw new GitObjectError(`not a valid path in a tree: ${JSON.stringify(path)}`);
  return names;
}

interface Node {
  /** Changes to entries directly in this folder, by name. */
  own: Map<string, TreeChange>;
  /** Changes further down, by the name of the sub-folder. */
  below: Map<string, Node>;
}

/**
 * A new tree: `base` (a tree id, or undefined for an empty one) with each path of `changes` set or deleted.
 * Sub-folders are created as needed; a folder left empty disappears, as git has no empty folders. Only the
 * folders on changed paths are read and rewritten.
 */
export async function buildTree(gitDir: string, base: string | undefined, changes: ReadonlyMap<string, TreeChange> | Readonly<Record<string, TreeChange>>): Promise<string> {
  const root: Node = { own: new Map(), below: new Map() };
  const entries = changes instanceof Map ? [...changes] : Object.entries(changes);
  for (const [path, change] of entries) {
    const names = splitTreePath(path);
    let node = root;
    for (const name of names.slice(0, -1)) {
      if (node.own.has(name)) throw new GitObjectError(`path ${JSON.stringify(path)} runs through an entry that is changed itself`);
      let next = node.below.get(name);
      if (!next) node.below.set(name, (next = { own: new Map(), below: new Map() }));
      node = next;
    }
    const last = names.at(-1)!;
    if (node.below.has(last) || node.own.has(last)) throw new GitObjectError(`path ${JSON.stringify(path)} is changed twice`);
    node.own.set(last, change);
  }
  await writeBlobs(gitDir, root);
  return (await writeNode(gitDir, base, root, '')) ?? writeTree(gitDir, []);
}

/** Blobs written at once by buildTree: each is a git child, and a big change must not start hundreds together. */
const BLOB_WRITERS = 4;

/** Changes that were content before writeBlobs: without a mode they keep a file's mode, never a folder's. */
const WRITTEN_BLOBS = new WeakSet<object>();

/** Replaces every content change below `root` with the id of its written blob. */
async function writeBlobs(gitDir: string, root: Node): Promise<void> {
  const pending: [Map<string, TreeChange>, string, { content: string | Uint8Array; mode?: string }][] = [];
  const collect = (node: Node) => {
    for (const [name, change] of node.own) if (change && 'content' in change) pending.push([node.own, name, change]);
    for (const child of node.below.values()) collect(child);
  };
  collect(root);
  const worker = async () => {
    for (let job = pending.shift(); job; job = pending.shift()) {
      const [own, name, change] = job;
      if (change.mode !== undefined && ownValue(MODE_TYPES, normaliseMode(change.mode)) !== 'blob') throw new GitObjectError(`${name}: content needs a file mode, not ${change.mode}`);
      const written = { id: await writeBlob(gitDir, change.content), ...(change.mode !== undefined ? { mode: change.mode } : {}) };
      WRITTEN_BLOBS.add(written);
      own.set(name, written);
    }
  };
  await Promise.all(Array.from({ length: BLOB_WRITERS }, worker));
}

/** Writes one folder of `buildTree`; undefined when it ends up empty. */
async function writeNode(gitDir: string, base: string | undefined, node: Node, at: string): Promise<string | undefined> {
  const current = new Map<string, Pick<TreeEntry, 'mode' | 'id' | 'path'>>();
  for (const entry of base ? ((await readTree(gitDir, base)) ?? []) : []) current.set(entry.path, entry);
  for (const [name, change] of node.own) {
    if (change === null) {
      current.delete(name);
      continue;
    }
    // Content was written as a blob by writeBlobs; an entry keeps its mode (executable, link) unless told.
    const id = (change as { id: string }).id;
    const previous = current.get(name);
    const keeps = previous && (!WRITTEN_BLOBS.has(change) || ownValue(MODE_TYPES, previous.mode) === 'blob');
    const mode = normaliseMode(change.mode ?? (keeps ? previous.mode : '100644'));
    current.set(name, { mode, id, path: name });
  }
  // One folder at a time: a wide change must not start a git child per folder at once.
  for (const [name, child] of node.below) {
    const existing = current.get(name);
    if (existing && existing.mode !== '040000') throw new GitObjectError(`${at}${name} is a file, not a folder`);
    const id = await writeNode(gitDir, existing?.id, child, `${at}${name}/`);
    if (id === undefined) current.delete(name);
    else current.set(name, { mode: '040000', id, path: name });
  }
  return current.size === 0 ? undefined : writeTree(gitDir, [...current.values()]);
}
