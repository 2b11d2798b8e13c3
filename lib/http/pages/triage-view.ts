import type { MilestoneRow } from '../../store/queries/milestones.js';
import type { RepositoryRow } from '../../store/queries/repositories.js';
import { csrfInput, html, type PageUser, type SafeHtml } from './html.js';
import { repoBase } from './repo-layout.js';

/** Who an issue or pull request is assigned to and its milestone; what a writer may choose from. */
export interface TriageModel {
  assignees: readonly string[];
  milestone: MilestoneRow | undefined;
  /** For writers: who may be assigned and the open milestones (the current one included); undefined for others. */
  choices?: { assignable: readonly string[]; milestones: readonly MilestoneRow[] };
}

export const milestoneUrl = (repo: RepositoryRow, milestone: Pick<MilestoneRow, 'number'>) => `${repoBase(repo)}/milestone/${milestone.number}`;

/** Assignees and milestone of an issue or pull request, and for writers the form changing them (`action`/triage). */
export function triageSection(viewer: PageUser | undefined, repo: RepositoryRow, action: string, model: TriageModel): SafeHtml {
  const people = model.assignees.length ? html`${model.assignees.map((name, index) => html`${index ? ', ' : ''}<a href="/${name}">${name}</a>`)}` : html`<span class="muted">No one</span>`;
  const milestone = model.milestone ? html`<a href="${milestoneUrl(repo, model.milestone)}">${model.milestone.title}</a>` : html`<span class="muted">None</span>`;
  return html`<section aria-label="Assignees and milestone" id="triage" class="triage"><p><strong>Assignees:</strong> ${people} · <strong>Milestone:</strong> ${milestone}</p>
${viewer && model.choices ? triageForm(viewer, action, model, model.choices) : ''}</section>`;
}

function triageForm(viewer: PageUser, action: string, model: TriageModel, choices: NonNullable<TriageModel['choices']>): SafeHtml {
  const current = model.milestone?.number;
  const milestones = current !== undefined && !choices.milestones.some((row) => row.number === current) ? [model.milestone!, ...choices.milestones] : choices.milestones;
  return html`<details class="triage-edit"><summary>Change assignees or milestone</summary><form method="post" action="${action}/triage" class="card wide">${csrfInput(viewer)}
<fieldset><legend>Assignees</legend>${[...new Set([...choices.assignable, ...model.assignees])].map(
    (name) => html`<label class="check"><input type="checkbox" name="assignee.${name}" value="1"${model.assignees.includes(name) ? html` checked` : ''}> ${name}</label>`,
  )}</fieldset>
<label>Milestone <select name="milestone"><option value="">None</option>${milestones.map((row) => html`<option value="${row.number}"${row.number === current ? html` selected` : ''}>${row.title}</option>`)}</select></label>
<button type="submit">Save</button></form></details>`;
}
