import { spawnGit, type GitChild } from './run-git.js';

// Which parent of a merge each entry is unchanged against: the listing walk's one question that
// `git log -m` output does not answer by itself.

/**
 * git prints no -m block for a parent the merge is identical to (within the folder), so blocks
 * are matched to parents by comparing the folder's tree id in the merge and in each parent.
 */
export async function matchBlocks(ids: ObjectIds, commit: string, parents: string[], blocks: Set<string>[], folder: string): Promise<Set<string>[]> {
  const spec = (c: string) => (folder ? `${c}:${folder}` : `${c}^{tree}`);
  const own = await ids.lookup(spec(commit));
  const result: Set<string>[] = [];
  let next = 0;
  for (const parent of parents) {
    const id = await ids.lookup(spec(parent));
    if (id === own && id !== '') result.push(new Set());
    else result.push(blocks[next++] ?? new Set());
  }
  return result;
}

/**
 * In a narrowed phase the pathspec is a set of entries, so a missing -m block means "no change to
 * those entries": compare each carried entry's object id in the merge and in each parent instead.
 */
export async function compareEntries(ids: ObjectIds, commit: string, parents: string[], entries: Set<string>, prefix: string): Promise<Set<string>[]> {
  const result: Set<string>[] = parents.map(() => new Set());
  for (const entry of entries) {
    const own = await ids.lookup(`${commit}:${prefix}${entry}`);
    for (const [index, parent] of parents.entries()) {
      if ((await ids.lookup(`${parent}:${prefix}${entry}`)) !== own || own === '') result[index]!.add(entry);
    }
  }
  return result;
}

/** A `git cat-file --batch-check` child answering object ids one line at a time. */
export class ObjectIds {
  readonly #child: GitChild;
  readonly #waiting: ((line: string) => void)[] = [];
  #buffer = '';
  constructor(gitDir: string) {
    this.#child = spawnGit(['cat-file', '--batch-check=%(objectname)'], { gitDir });
    this.#child.stdin.on('error', () => {});
    this.#child.stdout.setEncoding('utf8');
    this.#child.stdout.on('data', (text: string) => {
      this.#buffer += text;
      let newline: number;
      while ((newline = this.#buffer.indexOf('\n')) >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        this.#waiting.shift()?.(line);
      }
    });
    this.#child.done.catch(() => {}).finally(() => {
      for (const waiter of this.#waiting.splice(0)) waiter('');
    });
  }
  lookup(spec: string): Promise<string> {
    return new Promise((resolve) => {
      this.#waiting.push((line) => resolve(/^[0-9a-f]{40,64}$/.test(line) ? line : ''));
      this.#child.stdin.write(`${spec}\n`);
    });
  }
  close(): void {
    this.#child.stdin.end();
  }
}
