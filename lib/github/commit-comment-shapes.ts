import type { ReadTx } from '../store/interface.js';
import type { CommitCommentRow } from '../store/queries/commit-comments.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { reactionRollup, type GitHubShapes } from './shapes.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubCommitComment } from './types.js';

/** GitHub's commit comment objects; a page's accounts, associations and reactions read in a fixed number of queries. */
export class CommitCommentShapes {
  constructor(
    private readonly baseUrl: () => string,
    private readonly shapes: GitHubShapes,
  ) {}

  async comments(db: ReadTx, repo: RepositoryRow, rows: readonly CommitCommentRow[]): Promise<GitHubCommitComment[]> {
    const facts = await this.shapes.pageFacts(db, repo, rows.map((row) => row.author), [], { subject: 'commit_comment', ids: rows.map((row) => row.id) });
    return rows.map((row) => {
      const url = `${this.baseUrl()}${GITHUB_API_PREFIX}/repos/${repo.owner_name}/${repo.name}/comments/${row.id}`;
      return {
        url,
        html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/commit/${row.commit_id}#commitcomment-${row.id}`,
        id: row.id,
        node_id: nodeId('CommitComment', row.id),
        body: row.body,
        path: row.path,
        position: row.position,
        line: row.line,
        commit_id: row.commit_id,
        user: facts.user(row.author),
        created_at: githubTime(row.created_at),
        updated_at: githubTime(row.updated_at),
        author_association: facts.association(row.author),
        reactions: reactionRollup(url, facts.reactions('commit_comment', row.id)),
      };
    });
  }
}
