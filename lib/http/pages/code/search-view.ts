import type { GrepResult } from '../../../git/grep.js';
import type { AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { escapeHtml, html, SafeHtml, type PageUser } from '../html.js';
import { repoBase, repoPage } from '../repo-layout.js';
import { srcUrl } from './links.js';

/** A line with every occurrence of `text` (case-insensitive) marked; the rest escaped. */
function marked(line: string, text: string): SafeHtml {
  const lower = line.toLowerCase();
  const needle = text.toLowerCase();
  let out = '';
  let at = 0;
  for (let found = lower.indexOf(needle); found >= 0 && needle; found = lower.indexOf(needle, at)) {
    out += `${escapeHtml(line.slice(at, found))}<mark>${escapeHtml(line.slice(found, found + needle.length))}</mark>`;
    at = found + needle.length;
  }
  return new SafeHtml(out + escapeHtml(line.slice(at)));
}

export interface SearchModel {
  query: string;
  /** Why there are no results to show (a query too short, an empty repository), if so. */
  problem?: string;
  result?: GrepResult;
}

/** The code search of a repository's default branch: a form, then the matching lines grouped by file. */
export function searchView(viewer: PageUser | undefined, repo: RepositoryRow, access: AccessLevel, model: SearchModel): string {
  const target = { kind: 'branch' as const, ref: repo.default_branch };
  const byFile = new Map<string, Array<{ line: number; text: string }>>();
  for (const match of model.result?.matches ?? []) {
    const lines = byFile.get(match.path) ?? [];
    lines.push(match);
    byFile.set(match.path, lines);
  }
  const files = [...byFile].map(
    ([path, lines]) => html`<section class="search-file"><h3><a href="${srcUrl(repo, target, path)}">${path}</a></h3>
<table class="code"><tbody>${lines.map(
      (match) => html`<tr><td class="num"><a href="${srcUrl(repo, target, path)}#L${match.line}">${match.line}</a></td><td class="line">${marked(match.text, model.query)}</td></tr>`,
    )}</tbody></table></section>`,
  );
  const count = model.result?.matches.length ?? 0;
  const summary = model.result
    ? html`<p class="muted" role="status">${count === 0 ? 'No lines match.' : `${count}${model.result.truncated ? '+' : ''} matching line${count === 1 ? '' : 's'} in ${byFile.size} file${byFile.size === 1 ? '' : 's'} on ${repo.default_branch}${model.result.truncated ? ' (the first ones only: narrow the search)' : ''}.`}</p>`
    : '';
  return repoPage(
    viewer,
    repo,
    access,
    'code',
    model.query ? `Search: ${model.query}` : 'Search code',
    html`<h2>Search the code on ${repo.default_branch}</h2>
<form class="search" method="get" action="${repoBase(repo)}/search" role="search"><label>Text <input type="search" name="q" value="${model.query}" minlength="2" maxlength="200" required></label> <button type="submit">Search</button></form>
${model.problem ? html`<p class="muted" role="status">${model.problem}</p>` : summary}${files}`,
  );
}
