import { isGitError, runGit } from './run-git.js';

/** A person and time of a commit, as git recorded them (date in ISO 8601, UTC). */
export interface Signature {
  name: string;
  email: string;
  date: string;
}

/** One commit with everything the GitHub-compatible API shows of it. */
export interface CommitDetails {
  sha: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  /** The full message, trailing newlines removed. */
  message: string;
}

const FORMAT = '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x1e';
const iso = (date: string) => new Date(date).toISOString().replace(/\.000Z$/, 'Z');

function parse(output: string): CommitDetails[] {
  const commits: CommitDetails[] = [];
  for (const record of output.split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\0');
    if (fields.length < 10) continue;
    const [sha, tree, parents, an, ae, ad, cn, ce, cd, ...message] = fields as string[];
    commits.push({
      sha: sha!,
      tree: tree!,
      parents: parents ? parents.split(' ') : [],
      author: { name: an!, email: ae!, date: iso(ad!) },
      committer: { name: cn!, email: ce!, date: iso(cd!) },
      message: message.join('\0').replace(/\n+$/, ''),
    });
  }
  return commits;
}

export interface LogOptions {
  /** Commits to leave out from the start (paging). */
  skip?: number;
  /** Most commits returned. */
  max: number;
  /** Only commits that change this path. */
  path?: string;
  /** Oldest first (topological), as pull request and compare lists are. */
  reverse?: boolean;
}

const REVISION = /^(?:[0-9a-f]{40}|[0-9a-f]{64})(?:\.\.\.?(?:[0-9a-f]{40}|[0-9a-f]{64}))?$/;

/**
 * Commits of `revision` (a commit id, or `base..head` of ids: resolve names first), newest first unless `reverse`.
 * `--reverse` applies after the limit in git, so a reversed list reads everything and keeps the first `max`.
 */
export async function logCommits(gitDir: string, revision: string, options: LogOptions): Promise<CommitDetails[]> {
  if (!REVISION.test(revision)) throw new TypeError(`not a revision of commit ids: ${revision}`);
  const args = ['log', FORMAT, '--topo-order'];
  if (options.reverse) args.push('--reverse');
  else args.push(`--max-count=${options.max}`, `--skip=${options.skip ?? 0}`);
  args.push(revision, '--');
  if (options.path) args.push(`:(literal)${options.path}`);
  const { stdout } = await runGit(args, { gitDir });
  const commits = parse(stdout.toString('utf8'));
  return options.reverse ? commits.slice(options.skip ?? 0, (options.skip ?? 0) + options.max) : commits;
}

/** How many commits `revision` has (that change `path`, if given). */
export async function countCommits(gitDir: string, revision: string, path?: string): Promise<number> {
  if (!REVISION.test(revision)) throw new TypeError(`not a revision of commit ids: ${revision}`);
  const { stdout } = await runGit(['rev-list', '--count', revision, '--', ...(path ? [`:(literal)${path}`] : [])], { gitDir });
  return Number.parseInt(stdout.toString('utf8'), 10) || 0;
}

/** One commit by id, or undefined when there is no such commit. */
export async function readCommit(gitDir: string, sha: string): Promise<CommitDetails | undefined> {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(sha)) return undefined;
  try {
    const { stdout } = await runGit(['show', '-s', FORMAT, `${sha}^{commit}`, '--'], { gitDir });
    return parse(stdout.toString('utf8'))[0];
  } catch (error) {
    if (isGitError(error) && error.code !== null) return undefined;
    throw error;
  }
}

/** The best common ancestor of two commits, or undefined for unrelated histories. */
export async function mergeBase(gitDir: string, a: string, b: string): Promise<string | undefined> {
  try {
    const { stdout } = await runGit(['merge-base', a, b], { gitDir });
    return stdout.toString('utf8').trim() || undefined;
  } catch (error) {
    if (isGitError(error) && error.code === 1) return undefined;
    throw error;
  }
}
