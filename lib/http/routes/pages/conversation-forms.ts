import type { H3, H3Event } from 'h3';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import type { UserRow } from '../../../store/queries/users.js';
import { idParam, type FormFields } from '../../validate.js';
import { lastCommentAnchor, type RepoPageRequest } from './page-request.js';

/** What issues and pull requests both offer their conversation forms (IssueService and PullService). */
export interface ConversationService {
  get(repo: RepositoryRow, id: number): Promise<{ comments: number }>;
  comment(repo: RepositoryRow, id: number, author: UserRow, body: unknown): Promise<{ id: number }>;
  editComment(repo: RepositoryRow, id: number, commentId: number, viewer: UserRow, body: unknown): Promise<{ id: number }>;
  update(repo: RepositoryRow, viewer: UserRow, id: number, changes: { status?: unknown }): Promise<unknown>;
}

/**
 * Runs one form of an issue's or pull request's page: `action` gets the item's id and may name an anchor to land on;
 * the caller redirects back to the item or re-renders its page with the error.
 */
export type ConversationForm = (
  event: H3Event,
  action: (request: RepoPageRequest & { viewer: UserRow }, form: FormFields, id: number) => Promise<string | void>,
) => Promise<Response>;

/** The forms both conversations share: comment, edit a comment, close/reopen; under `/:owner/:repo/<kind>/:number`. */
export function mountConversationForms(app: H3, kind: 'issues' | 'pulls', service: ConversationService, form: ConversationForm): void {
  const base = `/:owner/:repo/${kind}/:number`;

  app.post(`${base}/comments`, (event) =>
    form(event, async ({ viewer, repo }, fields, id) => {
      const comment = await service.comment(repo, id, viewer, fields.body);
      return lastCommentAnchor((await service.get(repo, id)).comments, comment.id);
    }),
  );

  app.post(`${base}/comments/:comment_id`, (event) =>
    form(event, async ({ viewer, repo }, fields, id) => `#comment-${(await service.editComment(repo, id, idParam(event, 'comment_id'), viewer, fields.body)).id}`),
  );

  app.post(`${base}/state`, (event) =>
    form(event, async ({ viewer, repo }, fields, id) => {
      await service.update(repo, viewer, id, { status: fields.status });
    }),
  );
}
