import type { CommitIdentity, CommitObject } from './objects.js';
import { isGitError, runGit } from './run-git.js';

const FORMAT = '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%ad%x00%cn%x00%ce%x00%cd%x00%B%x1e';

/** A raw git date (`<epoch> <offset>`) as readCommit in objects.ts gives it: raw and ISO 8601 in UTC. */
function identity(name: string, email: string, raw: string): CommitIdentity {
  return { name, email, date: raw, iso: new Date(Number(raw.split(' ')[0]) * 1000).toISOString().replace('.000Z', 'Z') };
}

function parse(output: string): CommitObject[] {
  const commits: CommitObject[] = [];
  for (const record of output.split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\0');
    if (fields.length < 10) continue;
    const [id, tree, parents, an, ae, ad, cn, ce, cd, ...message] = fields as string[];
    commits.push({ id: id!, tree: tree!, parents: parents ? parents.split(' ') : [], author: identity(an!, ae!, ad!), committer: identity(cn!, ce!, cd!), message: message.join('\0') });
  }
  return commits;
}

/** Which commits of a history count (GitHub's `since`, `until` and `author` filters of the commit list). */
export interface CommitFilter {
  /** Only commits committed at or after / at or before this time (ISO 8601). */
  since?: string;
  until?: string;
  /** Only commits whose author's / committer's name or address contains one of these (case-insensitive, not patterns). */
  authors?: readonly string[];
  committers?: readonly string[];
}

/** git's options for a filter (they limit `log` and `rev-list` alike). */
function filterArgs(filter: CommitFilter): string[] {
  const args: string[] = [];
  if (filter.since) args.push(`--since=${filter.since}`);
  if (filter.until) args.push(`--until=${filter.until}`);
  if (filter.authors?.length || filter.committers?.length) args.push('--fixed-strings', '--regexp-ignore-case');
  for (const author of filter.authors ?? []) args.push(`--author=${author}`);
  for (const committer of filter.committers ?? []) args.push(`--committer=${committer}`);
  return args;
}

export interface LogOptions extends CommitFilter {
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
export async function logCommits(gitDir: string, revision: string, options: LogOptions): Promise<CommitObject[]> {
  if (!REVISION.test(revision)) throw new TypeError(`not a revision of commit ids: ${revision}`);
  const args = ['log', FORMAT, '--date=raw', '--topo-order'];
  if (options.reverse) args.push('--reverse');
  else args.push(`--max-count=${options.max}`, `--skip=${options.skip ?? 0}`);
  args.push(...filterArgs(options), revision, '--');
  if (options.path) args.push(`:(literal)${options.path}`);
  const { stdout } = await runGit(args, { gitDir });
  const commits = parse(stdout.toString('utf8'));
  return options.reverse ? commits.slice(options.skip ?? 0, (options.skip ?? 0) + options.max) : commits;
}

/** How many commits `revision` has (that change `path`, if given, and pass `filter`). */
export async function countCommits(gitDir: string, revision: string, path?: string, filter: CommitFilter = {}): Promise<number> {
  if (!REVISION.test(revision)) throw new TypeError(`not a revision of commit ids: ${revision}`);
  const { stdout } = await runGit(['rev-list', '--count', ...filterArgs(filter), revision, '--', ...(path ? [`:(literal)${path}`] : [])], { gitDir });
  return Number.parseInt(stdout.toString('utf8'), 10) || 0;
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

/** One author address of a history (whatever its case): how many commits it wrote, spelt and named as the newest one has it. */
export interface AuthorCount {
  email: string;
  name: string;
  commits: number;
}

/** Every author address of the history of `tip` (a commit id) with its commits, as written (no mailmap), newest first. */
export async function authorCounts(gitDir: string, tip: string): Promise<AuthorCount[]> {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(tip)) throw new Error(`not a commit id: ${tip}`);
  const { stdout } = await runGit(['log', '--no-mailmap', '--format=%ae%x00%an', tip, '--'], { gitDir });
  const byEmail = new Map<string, AuthorCount>();
  for (const line of stdout.toString('utf8').split('\n')) {
    if (!line) continue;
    const [email = '', name = ''] = line.split('\0');
    const key = email.toLowerCase();
    const known = byEmail.get(key);
    if (known) known.commits += 1;
    else byEmail.set(key, { email, name, commits: 1 });
  }
  return [...byEmail.values()];
}
