import { isAncestor } from './ancestry.js';
import { commitTree, GitObjectError, readCommit, type GitIdentity } from './objects.js';
import { RefMovedError, updateRef } from './ref-writes.js';
import { madeCommit, newCommits, MAX_PUSH_COMMITS, type PushedCommit } from './push-commits.js';
import { DEFAULT_GIT_TIMEOUT_MS, isGitError, runGit, spawnGit } from './run-git.js';

export type MergeMethod = 'merge' | 'squash' | 'rebase' | 'fast-forward';

export interface MergeOptions {
  base: string;
  /** Where base must still point for the merge to land. */
  baseSha: string;
  headSha: string;
  method: MergeMethod;
  /** Message of the merge or squash commit. */
  message: string;
  committer: GitIdentity;
  /**
   * Author of a squash commit (GitHub: the pull request's author; the merger is the committer). The authors of the
   * squashed commits other than this one are added as `Co-authored-by:` trailers. Defaults to the committer.
   */
  author?: GitIdentity;
}

/** Why a merge cannot be made: the service answers 405 for these, 409 for `base_moved`. */
export class MergeRefusedError extends Error {
  constructor(
    readonly reason: 'conflict' | 'not_fast_forward' | 'base_moved',
    message: string,
  ) {
    super(message);
    this.name = 'MergeRefusedError';
  }
}

/** What `git merge-tree --write-tree` gives: the merged tree (its objects written to the repository), or the conflicts. */
export type MergedTree = { tree: string } | { conflicts: string[] };

/** The three-way merge of two commits as a tree (`git merge-tree --write-tree`), or the conflicting paths. */
export async function mergeTree(gitDir: string, ours: string, theirs: string): Promise<MergedTree> {
  const child = spawnGit(['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs], { gitDir, timeoutMs: DEFAULT_GIT_TIMEOUT_MS });
  child.stdin.end();
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await child.done.then(
    () => 0,
    (error: unknown) => (isGitError(error) && error.code === 1 ? 1 : Promise.reject(error)),
  );
  // Exit 1 is "merged with conflicts": the tree comes first, then the conflicted paths.
  const [tree, ...paths] = Buffer.concat(chunks).toString('utf8').split('\n');
  return code === 0 ? { tree: tree!.trim() } : { conflicts: paths.filter(Boolean) };
}


/**
 * Replays one commit onto `onto` like `git cherry-pick`, without a work tree: a three-way merge whose base is the
 * commit's parent. git 2.39's merge-tree has no --merge-base, so the base is forced with two throwaway commits that
 * share one root made of the parent's tree.
 */
async function replay(gitDir: string, onto: string, sha: string, committer: GitIdentity): Promise<string> {
  const commit = (await readCommit(gitDir, sha))!;
  const parent = commit.parents[0] ? await readCommit(gitDir, commit.parents[0]) : undefined;
  if (!parent) throw new MergeRefusedError('conflict', `commit ${sha.slice(0, 12)} has no parent to replay it from`);
  const throwaway = { name: 'repohost', email: 'repohost@localhost', date: committer.date };
  const scratch = (tree: string, parents: string[], message: string) => commitTree(gitDir, { tree, parents, message, author: throwaway });
  const root = await scratch(parent.tree, [], 'base');
  const [ours, theirs] = await Promise.all([scratch(`${onto}^{tree}`, [root], 'ours'), scratch(commit.tree, [root], 'theirs')]);
  const merged = await mergeTree(gitDir, ours, theirs);
  if ('conflicts' in merged) throw new MergeRefusedError('conflict', `commit ${sha.slice(0, 12)} does not apply: conflict in ${merged.conflicts.join(', ')}`);
  return commitTree(gitDir, { tree: merged.tree, parents: [onto], message: commit.message, author: commit.author, committer });
}

/** The distinct authors (`Name <email>`, first seen first) of the commits `head` has and `base` has not. */
async function squashedAuthors(gitDir: string, baseSha: string, headSha: string): Promise<Array<{ name: string; email: string }>> {
  const { stdout } = await runGit(['log', '--reverse', '--no-merges', '--format=%an%x00%ae', `${baseSha}..${headSha}`], { gitDir });
  const seen = new Map<string, { name: string; email: string }>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [name, email] = line.split('\0');
    if (name === undefined || email === undefined || !email) continue;
    if (!seen.has(email.toLowerCase())) seen.set(email.toLowerCase(), { name, email });
  }
  return [...seen.values()];
}

/** GitHub's squash message: the authors other than the commit's own as `Co-authored-by:` trailers after a blank line. */
function withCoAuthors(message: string, authors: Array<{ name: string; email: string }>, author: GitIdentity): string {
  const present = new Set([...message.matchAll(/^Co-authored-by:.*<([^>]*)>\s*$/gim)].map((m) => m[1]!.toLowerCase()));
  const trailers = authors
    .filter((a) => a.email.toLowerCase() !== author.email.toLowerCase() && !present.has(a.email.toLowerCase()))
    .map((a) => `Co-authored-by: ${a.name} <${a.email}>`);
  return trailers.length === 0 ? message : `${message.replace(/\n+$/, '')}\n\n${trailers.join('\n')}\n`;
}

/** A merge made and the base moved: the new tip and what the move brought, for its push event. */
export interface MergeResult {
  sha: string;
  /** The newest commits the base gained (at most MAX_PUSH_COMMITS), oldest first, as a push event lists them. */
  commits: PushedCommit[];
}

/**
 * What a merge needs that depends only on the pair of commit ids, so a caller may have it already: the pull
 * request's own commits (its push event lists them) and the merged tree its mergeability was computed from.
 */
export interface MergeInputs {
  headCommits(): Promise<PushedCommit[]>;
  /** `fresh`: ask git again (a tree kept from earlier may have lost its objects to a prune or a restore). */
  mergedTree(fresh: boolean): Promise<MergedTree>;
}

/**
 * Makes the merge of `headSha` into `base` in the bare repository and moves `refs/heads/<base>` only from
 * `baseSha` (update-ref with the old value), so a push that landed meanwhile is never lost: the merge fails.
 * The push event's commits are read while git merges, and a commit made here is described from what made it, so
 * describing the move adds no git run after the ref update.
 */
export async function merge(
  gitDir: string,
  options: MergeOptions,
  inputs: MergeInputs = {
    headCommits: () => newCommits(gitDir, options.headSha, [options.baseSha]),
    mergedTree: () => mergeTree(gitDir, options.baseSha, options.headSha),
  },
): Promise<MergeResult> {
  const { baseSha, committer } = options;
  // The event is a courtesy: if describing fails, it lists no commits and the merge stands.
  const described = (commits: Promise<PushedCommit[]>) => commits.catch(() => [] as PushedCommit[]);
  let sha: string;
  let commits: Promise<PushedCommit[]>;
  if (options.method === 'fast-forward') {
    commits = described(inputs.headCommits());
    if (!(await isAncestor(gitDir, baseSha, options.headSha))) throw new MergeRefusedError('not_fast_forward', 'base cannot be fast-forwarded to head: the branches have diverged');
    sha = options.headSha;
  } else if (options.method === 'rebase') {
    const { stdout } = await runGit(['rev-list', '--reverse', '--topo-order', '--no-merges', `${baseSha}..${options.headSha}`], { gitDir });
    sha = baseSha;
    for (const commit of stdout.toString('utf8').split('\n').filter(Boolean)) sha = await replay(gitDir, sha, commit, committer);
    commits = described(newCommits(gitDir, sha, [baseSha]));
  } else {
    // A merge commit comes on top of the pull request's commits; a squash stands alone.
    // The pull request's own commits were pushed before (to its head): not distinct, as GitHub says of them.
    const pulled = options.method === 'merge' ? described(inputs.headCommits()).then((theirs) => theirs.slice(1 - MAX_PUSH_COMMITS).map((commit) => ({ ...commit, distinct: false }))) : Promise.resolve([]);
    const squash = options.method === 'squash';
    const parents = squash ? [baseSha] : [baseSha, options.headSha];
    const author = squash ? (options.author ?? committer) : committer;
    const message = squash ? withCoAuthors(options.message, await squashedAuthors(gitDir, baseSha, options.headSha), author) : options.message;
    const commitMerged = async (fresh: boolean) => {
      const merged = await inputs.mergedTree(fresh);
      if ('conflicts' in merged) throw new MergeRefusedError('conflict', `merge conflict in ${merged.conflicts.join(', ')}`);
      return { tree: merged.tree, sha: await commitTree(gitDir, { tree: merged.tree, parents, message, author, committer }) };
    };
    const { tree, sha: made } = await commitMerged(false).catch((error: unknown) => (error instanceof GitObjectError ? commitMerged(true) : Promise.reject(error)));
    sha = made;
    const own = described(madeCommit(gitDir, { sha, tree, message, author, committer }, squash ? baseSha : undefined).then((commit) => [commit]));
    commits = Promise.all([pulled, own]).then(([theirs, ours]) => [...theirs, ...ours]);
  }
  try {
    await updateRef(gitDir, `refs/heads/${options.base}`, sha, baseSha, `merge (${options.method})`);
  } catch (error) {
    if (error instanceof RefMovedError) throw new MergeRefusedError('base_moved', `base branch '${options.base}' moved during the merge; try again`);
    throw error;
  }
  return { sha, commits: await commits };
}
