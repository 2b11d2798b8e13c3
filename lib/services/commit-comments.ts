import { invalid, notFound } from '../errors.js';
import type { EventRecorder } from '../events/index.js';
import type { CommitCommentShapes } from '../github/commit-comment-shapes.js';
import type { Db, ReadTx } from '../store/interface.js';
import { commitCommentById, commitComments, deleteCommitComment, insertCommitComment, updateCommitComment, type CommitCommentRow } from '../store/queries/commit-comments.js';
import type { PageWindow } from '../store/queries/page-window.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { GitDataService } from './git-data.js';
import { MAX_BODY, mayChange } from './issues.js';
import { requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { requiredText } from './text-fields.js';

/** The most files of a commit a comment's `path` is looked for among (the files the commits API lists of it). */
const MAX_COMMENTED_FILES = 3000;

export interface CommitCommentInput {
  body?: unknown;
  path?: unknown;
  position?: unknown;
  line?: unknown;
}

/**
 * Comments on commits (GitHub's commit comments): anyone who can read the repository comments, on the commit or on a
 * file it changes (at a `position` of its diff, or a `line`); the author or a writer edits and deletes. Made
 * ones send GitHub's `commit_comment` event (`created`, the only action GitHub sends).
 */
export class CommitCommentService {
  constructor(
    private readonly store: Db,
    private readonly gitData: Pick<GitDataService, 'resolve' | 'commitWithFiles'>,
    private readonly events: EventRecorder,
    private readonly shapes: CommitCommentShapes,
    private readonly now: () => string,
  ) {}

  /** The comments of the commit `ref` names (of every commit when undefined), oldest first. */
  async list(repo: RepositoryRow, ref: string | undefined, page: PageWindow): Promise<{ items: CommitCommentRow[]; total: number }> {
    const commit = ref === undefined ? undefined : await this.gitData.resolve(repo, ref);
    const { rows, total } = await commitComments(this.store, repo.id, commit, page);
    return { items: rows, total };
  }

  async get(repo: RepositoryRow, id: number): Promise<CommitCommentRow> {
    const comment = Number.isSafeInteger(id) ? await commitCommentById(this.store, repo.id, id) : undefined;
    if (!comment) throw notFound('Not Found');
    return comment;
  }

  async create(repo: RepositoryRow, viewer: Viewer, ref: string, input: CommitCommentInput): Promise<CommitCommentRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    const body = requiredText('body', input.body, MAX_BODY);
    const position = positiveOrNull('position', input.position);
    const line = positiveOrNull('line', input.line);
    if (input.path !== undefined && input.path !== null && typeof input.path !== 'string') throw invalid('path must be a string');
    const path = (input.path as string | null | undefined) || null;
    if (path === null && (position !== null || line !== null)) throw invalid('path is needed with position or line');
    const commit = await this.gitData.resolve(repo, ref);
    if (path !== null) await this.requireChangedFile(repo, commit, path, position);
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      const id = await insertCommitComment(tx, repo.id, { commit_id: commit, path, position, line, body, author_id: viewer!.id }, now);
      await this.events.record(tx, repo, viewer!, 'commit_comment', async (current) => ({
        action: 'created',
        comment: (await this.shapes.comments(tx, current, [(await commitCommentById(tx, repo.id, id))!]))[0]!,
      }));
      return id;
    });
    return (await commitCommentById(this.store, repo.id, id))!;
  }

  async edit(repo: RepositoryRow, viewer: Viewer, id: number, body: unknown): Promise<CommitCommentRow> {
    const comment = await this.changeable(repo, viewer, id);
    const text = requiredText('body', body, MAX_BODY);
    await writeToRepository(this.store, repo, async (tx) => {
      await this.requireUnchanged(tx, repo, comment);
      await updateCommitComment(tx, repo.id, comment.id, text, this.now());
    });
    return await this.get(repo, comment.id);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    const comment = await this.changeable(repo, viewer, id);
    await writeToRepository(this.store, repo, async (tx) => {
      await this.requireUnchanged(tx, repo, comment);
      await deleteCommitComment(tx, repo.id, comment.id);
    });
  }

  /**
   * Whether the comment checked before the write is still there: SQLite may give a deleted comment's id to the next
   * one, which the check did not see (404 then).
   */
  private async requireUnchanged(tx: ReadTx, repo: RepositoryRow, checked: CommitCommentRow): Promise<void> {
    const current = await commitCommentById(tx, repo.id, checked.id);
    if (!current || current.author_id !== checked.author_id || current.created_at !== checked.created_at) throw notFound('Not Found');
  }

  /** The comment, when the viewer may change it: its author, or a writer (as for conversation comments). */
  private async changeable(repo: RepositoryRow, viewer: Viewer, id: number): Promise<CommitCommentRow> {
    await requireAccess(this.store, viewer, repo, 'read');
    const comment = await this.get(repo, id);
    await mayChange(this.store, repo, viewer, comment.author_id, 'Only the author or a collaborator with write access may change this comment');
    return comment;
  }

  /** A comment on a file needs a file the commit changed, and a `position` within that file's diff when it has one. */
  private async requireChangedFile(repo: RepositoryRow, commit: string, path: string, position: number | null): Promise<void> {
    const { files } = await this.gitData.commitWithFiles(repo, commit, { offset: 0, limit: MAX_COMMENTED_FILES });
    const file = files.find((candidate) => candidate.filename === path);
    if (!file) throw invalid(`path ${path} is not a file this commit changes`);
    const diffLines = file.patch === undefined ? undefined : file.patch.replace(/\n$/, '').split('\n').length;
    if (position !== null && diffLines !== undefined && position >= diffLines) throw invalid(`position must be a line of the file's diff (1 to ${diffLines - 1})`);
  }
}

function positiveOrNull(field: string, value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || (value as number) < 1) throw invalid(`${field} must be a positive whole number`);
  return value as number;
}
