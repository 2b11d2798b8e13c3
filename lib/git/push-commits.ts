import type { RefChange } from './refs.js';
import { isAncestor } from './ancestry.js';
import type { GitIdentity } from './objects.js';
import { runGit } from './run-git.js';

/** A commit as a push event lists it. */
export interface PushedCommit {
  sha: string;
  tree: string;
  message: string;
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  added: string[];
  removed: string[];
  modified: string[];
  /** False for a commit the repository had before (on another branch): GitHub's `distinct` of a pushed commit. */
  distinct?: boolean;
}

/** What one ref change of a push brought: its newest commits (oldest first), the tip, and whether history was rewritten. */
export interface PushedRef {
  commits: PushedCommit[];
  head: PushedCommit | null;
  forced: boolean;
}

/** Commits a push event lists per ref (GitHub's webhook too stops at 20). */
export const MAX_PUSH_COMMITS = 20;

const FORMAT = '%x1e%H%x00%T%x00%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI%x00%B%x00';
const ZERO = /^0+$/;

/** Files the commit changed, from `--name-status -z` output: pairs of a status letter and a path. */
function addChangedPaths(commit: PushedCommit, fields: readonly string[]): void {
  for (let at = 0; at + 1 < fields.length; at += 1) {
    // The first letter may follow a newline.
    const status = fields[at]!.trim();
    if (!/^[ADMT]$/.test(status)) continue;
    const path = fields[at + 1]!;
    (status === 'A' ? commit.added : status === 'D' ? commit.removed : commit.modified).push(path);
    at += 1;
  }
}

/** Parses `git log -z --name-status --no-renames --format=FORMAT`. */
function parseLog(output: string): PushedCommit[] {
  const commits: PushedCommit[] = [];
  for (const record of output.split('\x1e')) {
    const fields = record.split('\0');
    if (fields.length < 9) continue;
    const [sha, tree, authorName, authorEmail, authorDate, committerName, committerEmail, committerDate, message] = fields as [
      string, string, string, string, string, string, string, string, string,
    ];
    const commit: PushedCommit = {
      sha,
      tree,
      message: message.replace(/\n+$/, ''),
      author: { name: authorName, email: authorEmail, date: authorDate },
      committer: { name: committerName, email: committerEmail, date: committerDate },
      added: [],
      removed: [],
      modified: [],
    };
    addChangedPaths(commit, fields.slice(9));
    commits.push(commit);
  }
  return commits;
}

/** The ids of the newest `limit` commits `revisions` name (as `log` takes them), without reading the commits. */
async function commitIds(gitDir: string, list: string[], limit: number): Promise<Set<string>> {
  const { stdout } = await runGit(['rev-list', `--max-count=${limit}`, '--stdin'], { gitDir, input: `${list.join('\n')}\n` });
  return new Set(stdout.toString('utf8').split('\n').filter(Boolean));
}

async function log(gitDir: string, revisions: string[], limit: number): Promise<PushedCommit[]> {
  // Revisions go on stdin: a repository with thousands of branches would overflow an argument list.
  const { stdout } = await runGit(['log', `--max-count=${limit}`, '--no-renames', '--name-status', '-z', `--format=${FORMAT}`, '--stdin', '--'], {
    gitDir,
    input: `${revisions.join('\n')}\n`,
  });
  return parseLog(stdout.toString('utf8'));
}

/**
 * What a ref change brought, for its push event: for a moved branch the commits of `after` not in `before`; for a
 * new branch those not reachable from any ref the repository had (`existingTips`); for tags and deletions none.
 */
export async function pushedRef(gitDir: string, change: RefChange, existingTips: readonly string[]): Promise<PushedRef> {
  if (ZERO.test(change.after)) return { commits: [], head: null, forced: false };
  const created = ZERO.test(change.before);
  const tipOnly = async () => (await log(gitDir, [change.after], 1))[0] ?? null;
  if (!change.ref.startsWith('refs/heads/')) return { commits: [], head: await tipOnly(), forced: false };
  // A moved branch lists what it gained since `before`; of those, what another branch had already is not distinct.
  const elsewhere = created ? [] : existingTips.filter((tip) => tip !== change.before);
  const [commits, forced, fresh] = await Promise.all([
    newCommits(gitDir, change.after, created ? existingTips : [change.before]),
    created ? false : isAncestor(gitDir, change.before, change.after).then((fastForward) => !fastForward),
    elsewhere.length === 0 ? undefined : commitIds(gitDir, [change.after, ...existingTips.map((sha) => `^${sha}`)], MAX_PUSH_COMMITS),
  ]);
  if (fresh) for (const commit of commits) commit.distinct = fresh.has(commit.sha);
  // The event's commits end at the tip unless the push brought no new commit (a branch made at an existing one).
  return { commits, head: commits.at(-1) ?? (await tipOnly()), forced };
}

/** The newest `limit` commits of `tip` that none of `excluded` reaches, oldest first (as push events list them). */
export async function newCommits(gitDir: string, tip: string, excluded: readonly string[], limit = MAX_PUSH_COMMITS): Promise<PushedCommit[]> {
  return (await log(gitDir, [tip, ...excluded.map((sha) => `^${sha}`)], limit)).reverse();
}

/** A commit the host just made, described without asking git again; `changedFrom` is the tree it is compared with. */
export async function madeCommit(
  gitDir: string,
  made: { sha: string; tree: string; message: string; author: GitIdentity; committer: GitIdentity },
  changedFrom?: string,
): Promise<PushedCommit> {
  const commit: PushedCommit = {
    sha: made.sha,
    tree: made.tree,
    message: made.message.replace(/\n+$/, ''),
    author: { name: made.author.name, email: made.author.email, date: isoSeconds(made.author.date) },
    committer: { name: made.committer.name, email: made.committer.email, date: isoSeconds(made.committer.date) },
    added: [],
    removed: [],
    modified: [],
  };
  // A merge commit lists no files (git log shows none for merges); a squash lists what it changed.
  if (changedFrom) {
    const { stdout } = await runGit(['diff-tree', '-r', '--no-renames', '--name-status', '-z', changedFrom, made.tree], { gitDir });
    addChangedPaths(commit, stdout.toString('utf8').split('\0'));
  }
  return commit;
}

/** A date as `git log --format=%cI` shows one the host wrote (whole seconds, UTC, as gitDate() in merge.ts stores it). */
function isoSeconds(date: string): string {
  const raw = /^(\d+) [+-]\d{4}$/.exec(date);
  const millis = raw ? Number(raw[1]) * 1000 : Math.floor(Date.parse(date) / 1000) * 1000;
  return new Date(millis).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
