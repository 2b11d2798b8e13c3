import type { AppContext } from '../../../context.js';
import { atLeast } from '../../../services/permissions.js';
import { FIRST_HUNDRED } from '../../../store/queries/page-window.js';
import type { TriageModel } from '../../pages/triage-view.js';
import type { RepoPageRequest } from './page-request.js';

/** Assignees and milestone of the issue or pull request `number`, with the choices a writer has. */
export async function triageOf(ctx: AppContext, { repo, access }: RepoPageRequest, number: number): Promise<TriageModel> {
  const [assignees, milestone] = await Promise.all([ctx.assignees.of(repo, number), ctx.milestones.of(repo, number)]);
  if (!atLeast(access, 'write')) return { assignees, milestone };
  const [assignable, open] = await Promise.all([ctx.assignees.list(repo), ctx.milestones.list(repo, { state: 'open', sort: 'due_on', direction: 'asc' }, FIRST_HUNDRED)]);
  return { assignees, milestone, choices: { assignable, milestones: open.items } };
}
