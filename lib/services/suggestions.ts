import { invalid, notFound } from '../errors.js';
import type { CommitObject } from '../git/objects.js';
import type { PullRow } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { GitDataService } from './git-data.js';
import type { Viewer } from './permissions.js';
import type { ReviewService } from './reviews.js';

/** The text of a comment's first ```suggestion block (GitHub's suggested change), if it has one. */
export function suggestionOf(body: string): string | undefined {
  const match = /^```suggestion[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/m.exec(body);
  return match ? match[1]! : undefined;
}

/** The bytes as text when they are valid UTF-8 (decoding anything else would replace bytes and corrupt the file). */
export function utf8Text(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined;
}

/**
 * Suggested changes: a review comment's ```suggestion block replaces the lines it was made on (`start_line`..`line`,
 * new side) in the pull request's head branch, as a commit by whoever applies it. Only while the comment is current
 * (made on the head commit), through the contents API's file change (write access, protection, the file unchanged).
 */
export class SuggestionService {
  constructor(
    private readonly reviews: Pick<ReviewService, 'comment'>,
    private readonly gitData: Pick<GitDataService, 'contents' | 'changeFile'>,
  ) {}

  async apply(repo: RepositoryRow, viewer: Viewer, pull: PullRow, commentId: number): Promise<CommitObject> {
    const comment = await this.reviews.comment(repo, viewer, commentId);
    if (comment.pull_id !== pull.id || comment.pending === 1) throw notFound('Not Found');
    if (pull.status !== 'open') throw invalid('Suggestions can be committed to open pull requests only');
    const line = comment.line;
    if (line === null) throw invalid('A suggestion on a whole file cannot be committed: it names no lines');
    if (comment.side !== 'RIGHT' || (comment.start_side ?? 'RIGHT') !== 'RIGHT') throw invalid('Only a suggestion on the new side of the diff can be committed');
    if (comment.commit_id !== pull.head_sha) throw invalid('This suggestion is outdated: the pull request changed since it was made');
    const suggestion = suggestionOf(comment.body);
    if (suggestion === undefined) throw invalid('This comment suggests no change');
    const found = await this.gitData.contents(repo, comment.path, pull.head_sha);
    if (!('file' in found) || found.content === null) throw invalid(`${comment.path} is not a file that can be changed`);
    const text = utf8Text(found.content);
    if (text === undefined) throw invalid(`${comment.path} is not UTF-8 text: a suggestion cannot be committed to it`);
    const newline = text.includes('\r\n') ? '\r\n' : '\n';
    const lines = text.split(/\r?\n/);
    const first = (comment.start_line ?? line) - 1;
    if (line > lines.length || first < 0 || first >= line) throw invalid('This suggestion is outdated: its lines are no longer in the file');
    // An empty suggestion removes the lines.
    const replacement = suggestion === '' ? [] : suggestion.replace(/\r?\n$/, '').split(/\r?\n/);
    lines.splice(first, line - first, ...replacement);
    const result = await this.gitData.changeFile(repo, viewer, {
      path: comment.path,
      message: `Apply suggestion from ${comment.author}'s review`,
      content: Buffer.from(lines.join(newline), 'utf8'),
      sha: found.file.sha,
      branch: pull.head,
    });
    return result.commit;
  }
}
