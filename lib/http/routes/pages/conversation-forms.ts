import type { H3, H3Event } from 'h3';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import type { UserRow } from '../../../store/queries/users.js';
import type { AssigneeService } from '../../../services/assignees.js';
import type { MilestoneService } from '../../../services/milestones.js';
import { checkedNames, idParam, type FormFields } from '../../validate.js';
import { lastCommentAnchor, type RepoPageRequest } from './page-request.js';

/** What issues and pull requests both offer their conversation forms (IssueService and PullService). */
export interface ConversationService {
  get(repo: RepositoryRow, id: number): Promise<{ comments: number; number: number }>;
  comment(repo: RepositoryRow, id: number, author: UserRow, body: unknown): Promise<{ id: number }>;
  editComment(repo: RepositoryRow, id: number, commentId: number, viewer: UserRow, body: unknown): Promise<{ id: number }>;
  update(repo: RepositoryRow, viewer: UserRow, id: number, changes: { status?: unknown; title?: unknown; body?: unknown; description?: unknown }): Promise<unknown>;
}

/**
 * Runs one form of an issue's or pull request's page: `action` gets the item's id and may name an anchor to land on;
 * the caller redirects back to the item or re-renders its page with the error.
 */
export type ConversationForm = (
  event: H3Event,
  action: (request: RepoPageRequest & { viewer: UserRow }, form: FormFields, id: number) => Promise<string | void>,
) => Promise<Response>;

/** What sets assignees and milestones (AssigneeService and MilestoneService). */
export interface TriageServices {
  assignees: Pick<AssigneeService, 'of' | 'check' | 'change'>;
  milestones: Pick<MilestoneService, 'check' | 'setOn'>;
}

/**
 * The forms both conversations share, under `/:owner/:repo/<kind>/:number`: comment, edit a comment, edit the title
 * and opening text, close/reopen, and assignees and milestone.
 */
export function mountConversationForms(app: H3, kind: 'issues' | 'pulls', service: ConversationService, form: ConversationForm, triage: TriageServices): void {
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

  // The checked accounts (`assignee.<login>`) become the assignees: those newly checked are added, those unchecked
  // removed (an assignee who may no longer be assigned stays while checked). The milestone chosen, or none. Both are
  // checked before either is written.
  app.post(`${base}/triage`, (event) =>
    form(event, async ({ viewer, repo }, fields, id) => {
      const { number } = await service.get(repo, id);
      const wanted = checkedNames(fields, 'assignee.');
      const current = await triage.assignees.of(repo, number);
      const added = wanted.filter((name) => !current.includes(name));
      const removed = current.filter((name) => !wanted.includes(name));
      const milestone = typeof fields.milestone === 'string' && fields.milestone !== '' ? Number(fields.milestone) : null;
      await triage.assignees.check(repo, added);
      await triage.milestones.check(repo, milestone);
      if (added.length) await triage.assignees.change(repo, viewer, number, added, 'add');
      if (removed.length) await triage.assignees.change(repo, viewer, number, removed, 'remove');
      await triage.milestones.setOn(repo, viewer, number, milestone);
      return '#triage';
    }),
  );

  // The title and the opening text (an issue's `body`, a pull request's `description`), by the author or a writer.
  const textField = kind === 'issues' ? 'body' : 'description';
  app.post(`${base}/edit`, (event) =>
    form(event, async ({ viewer, repo }, fields, id) => {
      await service.update(repo, viewer, id, { title: fields.title, [textField]: fields[textField] });
    }),
  );

  app.post(`${base}/state`, (event) =>
    form(event, async ({ viewer, repo }, fields, id) => {
      await service.update(repo, viewer, id, { status: fields.status });
    }),
  );
}
