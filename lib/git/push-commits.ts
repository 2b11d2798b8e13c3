import type { RefChange } from './refs.js';
import { isAncestor } from './merge.js';
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
    // Then pairs of status letter and path (the first letter may follow a newline).
    const rest = fields.slice(9);
    for (let at = 0; at + 1 < rest.length; at += 1) {
      const status = rest[at]!.trim();
      if (!/^[ADMT]$/.test(status)) continue;
      const path = rest[at + 1]!;
      (status === 'A' ? commit.added : status === 'D' ? commit.removed : commit.modified).push(path);
      at += 1;
    }
    commits.push(commit);
  }
  return commits;
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
  const revisions = [change.after, ...(created ? existingTips : [change.before]).map((tip) => `^${tip}`)];
  const [newest, forced] = await Promise.all([
    log(gitDir, revisions, MAX_PUSH_COMMITS),
    created ? false : isAncestor(gitDir, change.before, change.after).then((fastForward) => !fastForward),
  ]);
  // git lists newest first; the event lists oldest first, ending at the tip unless the push brought no new commit
  // (a branch made at an existing one).
  const commits = newest.reverse();
  return { commits, head: commits.at(-1) ?? (await tipOnly()), forced };
}
