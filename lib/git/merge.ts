import { isAncestor } from './ancestry.js';
import { madeCommit, newCommits, MAX_PUSH_COMMITS, type Identity, type PushedCommit } from './push-commits.js';
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
  committer: Identity;
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

/** The three-way merge of two commits as a tree (`git merge-tree --write-tree`), or the conflicting paths. */
export async function mergeTree(gitDir: string, ours: string, theirs: string): Promise<{ tree: string } | { conflicts: string[] }> {
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

/** git's own date format (`<epoch seconds> <offset>`), so no date parsing is left to git. */
function gitDate(date: string): string {
  return /^\d+ [+-]\d{4}$/.test(date) ? date : `${Math.floor(Date.parse(date) / 1000)} +0000`;
}

function identityEnv(author: Identity, committer: Identity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_AUTHOR_DATE: gitDate(author.date),
    GIT_COMMITTER_NAME: committer.name,
    GIT_COMMITTER_EMAIL: committer.email,
    GIT_COMMITTER_DATE: gitDate(committer.date),
  };
}

async function commitTree(gitDir: string, tree: string, parents: readonly string[], message: string, author: Identity, committer: Identity): Promise<string> {
  const args = ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent])];
  const { stdout } = await runGit(args, { gitDir, input: message, env: identityEnv(author, committer) });
  return stdout.toString('utf8').trim();
}

/** A commit's tree, parent, message and author, for replaying it. */
async function commitInfo(gitDir: string, sha: string): Promise<{ tree: string; parent: string; message: string; author: Identity }> {
  const { stdout } = await runGit(['show', '-s', '--date=raw', '--format=%T%x00%P%x00%an%x00%ae%x00%ad%x00%B', sha], { gitDir });
  const [tree, parents, name, email, date, ...message] = stdout.toString('utf8').split('\0');
  return { tree: tree!, parent: parents!.split(' ')[0]!, message: message.join('\0'), author: { name: name!, email: email!, date: date! } };
}

/**
 * Replays one commit onto `onto` like `git cherry-pick`, without a work tree: a three-way merge whose base is the
 * commit's parent. git 2.39's merge-tree has no --merge-base, so the base is forced with two throwaway commits that
 * share one root made of the parent's tree.
 */
async function replay(gitDir: string, onto: string, sha: string, committer: Identity): Promise<string> {
  const commit = await commitInfo(gitDir, sha);
  const throwaway = { name: 'repohost', email: 'repohost@localhost', date: committer.date };
  const root = await commitTree(gitDir, (await commitInfo(gitDir, commit.parent)).tree, [], 'base', throwaway, throwaway);
  const [ours, theirs] = await Promise.all([
    commitTree(gitDir, `${onto}^{tree}`, [root], 'ours', throwaway, throwaway),
    commitTree(gitDir, commit.tree, [root], 'theirs', throwaway, throwaway),
  ]);
  const merged = await mergeTree(gitDir, ours, theirs);
  if ('conflicts' in merged) throw new MergeRefusedError('conflict', `commit ${sha.slice(0, 12)} does not apply: conflict in ${merged.conflicts.join(', ')}`);
  return commitTree(gitDir, merged.tree, [onto], commit.message, commit.author, committer);
}

/** A merge made and the base moved: the new tip and what the move brought, for its push event. */
export interface MergeResult {
  sha: string;
  /** The newest commits the base gained (at most MAX_PUSH_COMMITS), oldest first, as a push event lists them. */
  commits: PushedCommit[];
}

/**
 * Makes the merge of `headSha` into `base` in the bare repository and moves `refs/heads/<base>` only from
 * `baseSha` (update-ref with the old value), so a push that landed meanwhile is never lost: the merge fails.
 * The push event's commits are read while git merges: `headCommits` gives the pull request's own commits (which do
 * not depend on the merge; the caller may have them cached by the pair), and a commit made here is described from
 * what made it, so describing the move adds no git run after the ref update.
 */
export async function merge(
  gitDir: string,
  options: MergeOptions,
  headCommits: () => Promise<PushedCommit[]> = () => newCommits(gitDir, options.headSha, [options.baseSha]),
): Promise<MergeResult> {
  const { baseSha, committer } = options;
  // The event is a courtesy: if describing fails, it lists no commits and the merge stands.
  const described = (commits: Promise<PushedCommit[]>) => commits.catch(() => [] as PushedCommit[]);
  let sha: string;
  let commits: Promise<PushedCommit[]>;
  if (options.method === 'fast-forward') {
    commits = described(headCommits());
    if (!(await isAncestor(gitDir, baseSha, options.headSha))) throw new MergeRefusedError('not_fast_forward', 'base cannot be fast-forwarded to head: the branches have diverged');
    sha = options.headSha;
  } else if (options.method === 'rebase') {
    const { stdout } = await runGit(['rev-list', '--reverse', '--topo-order', '--no-merges', `${baseSha}..${options.headSha}`], { gitDir });
    sha = baseSha;
    for (const commit of stdout.toString('utf8').split('\n').filter(Boolean)) sha = await replay(gitDir, sha, commit, committer);
    commits = described(newCommits(gitDir, sha, [baseSha]));
  } else {
    // A merge commit comes on top of the pull request's commits; a squash stands alone.
    const pulled = options.method === 'merge' ? described(headCommits()).then((theirs) => theirs.slice(1 - MAX_PUSH_COMMITS)) : Promise.resolve([]);
    const merged = await mergeTree(gitDir, baseSha, options.headSha);
    if ('conflicts' in merged) throw new MergeRefusedError('conflict', `merge conflict in ${merged.conflicts.join(', ')}`);
    const parents = options.method === 'squash' ? [baseSha] : [baseSha, options.headSha];
    sha = await commitTree(gitDir, merged.tree, parents, options.message, committer, committer);
    const made = { sha, tree: merged.tree, message: options.message, author: committer, committer };
    const own = described(madeCommit(gitDir, made, options.method === 'squash' ? baseSha : undefined).then((commit) => [commit]));
    commits = Promise.all([pulled, own]).then(([theirs, ours]) => [...theirs, ...ours]);
  }
  try {
    await runGit(['update-ref', '-m', `merge (${options.method})`, `refs/heads/${options.base}`, sha, baseSha], { gitDir });
  } catch (error) {
    if (isGitError(error)) throw new MergeRefusedError('base_moved', `base branch '${options.base}' moved during the merge; try again`);
    throw error;
  }
  return { sha, commits: await commits };
}
