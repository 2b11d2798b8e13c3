import type { ReactionRow } from '../store/queries/reactions.js';
import { nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubReaction, GitHubUser } from './types.js';

/** GitHub's reaction object; `user` is its account's shape. */
export function reactionShape(row: ReactionRow, user: GitHubUser | null): GitHubReaction {
  return { id: row.id, node_id: nodeId('Reaction', row.id), user, content: row.content as GitHubReaction['content'], created_at: githubTime(row.created_at) };
}
