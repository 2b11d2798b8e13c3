import { referenceKey, type ReferenceSource } from '../../services/issues.js';
import type { IssueEventRow } from '../../store/queries/issue-events.js';
import { relativeTime } from './code/links.js';
import { labelChip } from './components.js';
import { html, type SafeHtml } from './html.js';

/** A label as it was when the event happened (its colour checked again: a chip's style takes it as is). */
function eventLabel(event: IssueEventRow): SafeHtml {
  const color = /^[0-9a-f]{6}$/i.test(event.label_color ?? '') ? event.label_color! : 'ededed';
  return labelChip({ name: event.label_name ?? '', color, description: '' });
}

function account(name: string | null): SafeHtml {
  return name === null ? html`<strong>ghost</strong>` : html`<a href="/${name}"><strong>${name}</strong></a>`;
}

/** Where a cross-reference came from, as a link with its title (the caller shows only sources the viewer may read). */
function sourceLink(source: ReferenceSource, repoBase: string): SafeHtml {
  const base = `/${source.repo.owner_name}/${source.repo.name}`;
  const name = base === repoBase ? `#${source.number}` : `${source.repo.owner_name}/${source.repo.name}#${source.number}`;
  return html`<a href="${base}/${source.kind === 'pull' ? 'pulls' : 'issues'}/${source.number}">${source.title} <span class="muted">${name}</span></a>`;
}

/** What the event did, after its actor's name (`repoBase`: `/owner/name`, for commit links). */
function said(event: IssueEventRow, repoBase: string, sources: ReadonlyMap<string, ReferenceSource>): SafeHtml {
  const commit = event.commit_id ? html` in <a href="${repoBase}/commit/${event.commit_id}"><code>${event.commit_id.slice(0, 7)}</code></a>` : '';
  switch (event.event) {
    case 'labeled':
      return html`added the ${eventLabel(event)} label`;
    case 'unlabeled':
      return html`removed the ${eventLabel(event)} label`;
    case 'assigned':
      return event.subject === event.actor ? html`self-assigned this` : html`assigned ${account(event.subject)}`;
    case 'unassigned':
      return event.subject === event.actor ? html`removed their assignment` : html`unassigned ${account(event.subject)}`;
    case 'milestoned':
      return html`added this to the <strong>${event.milestone_title ?? ''}</strong> milestone`;
    case 'demilestoned':
      return html`removed this from the <strong>${event.milestone_title ?? ''}</strong> milestone`;
    case 'renamed':
      return html`changed the title <del>${event.rename_from ?? ''}</del> <ins>${event.rename_to ?? ''}</ins>`;
    case 'closed':
      return html`closed this${event.state_reason === 'not_planned' ? ' as not planned' : ''}${commit}`;
    case 'reopened':
      return html`reopened this`;
    case 'merged':
      return html`merged this${commit}`;
    case 'review_requested':
      return html`requested a review from ${account(event.subject)}`;
    case 'review_request_removed':
      return html`removed the request for review from ${account(event.subject)}`;
    case 'review_dismissed':
      return html`dismissed ${account(event.subject)}’s <a href="#review-${event.review_id ?? 0}">review</a>: ${event.dismissal_message ?? ''}`;
    case 'head_ref_force_pushed':
      return event.commit_id ? html`force-pushed the head branch to <a href="${repoBase}/commit/${event.commit_id}"><code>${event.commit_id.slice(0, 7)}</code></a>` : html`force-pushed the head branch`;
    case 'head_ref_deleted':
      return html`deleted the head branch`;
    case 'locked':
      return html`locked${event.lock_reason ? html` as <strong>${event.lock_reason}</strong>` : ''} and limited conversation to collaborators`;
    case 'unlocked':
      return html`unlocked this conversation`;
    case 'pushed': {
      const count = event.commit_count ?? 0;
      const what = `${count} commit${count === 1 ? '' : 's'}`;
      return event.before_commit && event.commit_id
        ? html`pushed <a href="${repoBase}/compare/${event.before_commit}...${event.commit_id}">${what}</a>, up to <a href="${repoBase}/commit/${event.commit_id}"><code>${event.commit_id.slice(0, 7)}</code></a>`
        : html`pushed ${what}`;
    }
    case 'cross-referenced': {
      const source = sources.get(referenceKey(event.source_repo_id ?? 0, event.source_number ?? 0));
      return source ? html`mentioned this in ${sourceLink(source, repoBase)}` : html`mentioned this`;
    }
  }
}

/**
 * One event of an issue's or pull request's timeline, as a line between its comments. `sources`: the issues and pull
 * requests cross-references came from (see `IssueService.visibleTimeline`, which leaves out those the viewer may not read).
 */
export function timelineEvent(event: IssueEventRow, repoBase: string, sources: ReadonlyMap<string, ReferenceSource>): SafeHtml {
  return html`<p class="timeline-event" id="event-${event.id}">${account(event.actor)} ${said(event, repoBase, sources)} ${relativeTime(event.created_at)}</p>`;
}
