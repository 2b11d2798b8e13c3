import type { PushedCommit, PushedRef } from '../git/push-commits.js';
import type { RefChange } from '../git/refs.js';
import type { GitHubPushCommit } from '../github/types.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { CreateEvent, DeleteEvent, PushEvent } from './types.js';

const ZERO = /^0+$/;

/** The events one ref change of a push causes, GitHub's way: `create` or `delete` when a ref appears or goes, and `push`. */
export interface RefEvents {
  create?: Omit<CreateEvent, 'repository' | 'sender'>;
  delete?: Omit<DeleteEvent, 'repository' | 'sender'>;
  push: Omit<PushEvent, 'repository' | 'sender'>;
}

function pushCommit(commit: PushedCommit, webRoot: string): GitHubPushCommit {
  return {
    id: commit.sha,
    tree_id: commit.tree,
    distinct: commit.distinct ?? true,
    message: commit.message,
    timestamp: commit.author.date,
    url: `${webRoot}/commit/${commit.sha}`,
    author: { name: commit.author.name, email: commit.author.email },
    committer: { name: commit.committer.name, email: commit.committer.email },
    added: commit.added,
    removed: commit.removed,
    modified: commit.modified,
  };
}

/** Builds the payload fields (besides `repository` and `sender`) of the events of one ref change. */
export function refEvents(
  repo: RepositoryRow,
  baseUrl: string,
  change: RefChange,
  pushed: PushedRef,
  pusher: { name: string; email: string },
): RefEvents {
  const webRoot = `${baseUrl}/${repo.owner_name}/${repo.name}`;
  const created = ZERO.test(change.before);
  const deleted = ZERO.test(change.after);
  const isBranch = change.ref.startsWith('refs/heads/');
  const shortName = change.ref.replace(/^refs\/(?:heads|tags)\//, '');
  const refType = isBranch ? 'branch' : 'tag';
  const compare = created
    ? `${webRoot}/compare/${shortName}`
    : `${webRoot}/compare/${change.before.slice(0, 12)}...${change.after.slice(0, 12)}`;
  const events: RefEvents = {
    push: {
      ref: change.ref,
      before: change.before,
      after: change.after,
      created,
      deleted,
      forced: pushed.forced,
      base_ref: null,
      compare,
      commits: pushed.commits.map((commit) => pushCommit(commit, webRoot)),
      head_commit: pushed.head ? pushCommit(pushed.head, webRoot) : null,
      pusher,
    },
  };
  const taggedOrBranched = isBranch || change.ref.startsWith('refs/tags/');
  if (taggedOrBranched && created) {
    events.create = { ref: shortName, ref_type: refType, master_branch: repo.default_branch, description: repo.description || null, pusher_type: 'user' };
  }
  if (taggedOrBranched && deleted) events.delete = { ref: shortName, ref_type: refType, pusher_type: 'user' };
  return events;
}
