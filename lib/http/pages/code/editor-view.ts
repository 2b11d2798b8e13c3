import type { AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { csrfInput, html, type PageUser, type SafeHtml } from '../html.js';
import { errorBox } from '../components.js';
import { repoBase, repoPage } from '../repo-layout.js';
import { deleteUrl, editUrl, newFileUrl, srcUrl, uploadUrl } from './links.js';

/** Where an edit goes: straight to the branch, or to a new branch (then a pull request is proposed). */
export interface CommitTarget {
  target?: string;
  new_branch?: string;
  message?: string;
}

/** The file being changed: where it is, and the blob the editor started from (a changed file is refused). */
export interface EditedFile {
  repo: RepositoryRow;
  access: AccessLevel;
  branch: string;
  /** The file's path ('' for a new file's folder). */
  path: string;
  sha?: string;
}

/** Commit message and where the commit goes, as Gitea's and GitHub's editors ask for them. */
function commitChoices(file: EditedFile, values: CommitTarget, defaultMessage: string): SafeHtml {
  const toNew = values.target === 'new-branch';
  return html`<fieldset><legend>Commit changes</legend>
<label>Commit message <input name="message" maxlength="65535" value="${values.message ?? defaultMessage}" required></label>
<label class="check"><input type="radio" name="target" value="direct"${toNew ? '' : html` checked`}> Commit directly to <code>${file.branch}</code></label>
<label class="check"><input type="radio" name="target" value="new-branch"${toNew ? html` checked` : ''}> Create a new branch for this commit and start a pull request</label>
<label>New branch name <input name="new_branch" maxlength="250" value="${values.new_branch ?? ''}" pattern="[^\\s~^:?*\\[\\\\]+" placeholder="patch-1"></label>
</fieldset>`;
}

function editorPage(viewer: PageUser, file: EditedFile, title: string, error: string | undefined, form: SafeHtml): string {
  return repoPage(viewer, file.repo, file.access, 'code', title, html`<h2>${title}</h2>${errorBox(error)}${form}`);
}

/** `/_edit/<branch>/<path>`: the file's text in a box, committed to its branch or a new one. */
export function editFileView(viewer: PageUser, file: EditedFile, content: string, values: CommitTarget = {}, error?: string): string {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  return editorPage(
    viewer,
    file,
    `Edit ${file.path}`,
    error,
    html`<form class="card wide editor" method="post" action="${editUrl(file.repo, file.branch, file.path)}">${csrfInput(viewer)}
<input type="hidden" name="sha" value="${file.sha ?? ''}">
<label>Contents of ${name} <textarea name="content" rows="20" spellcheck="false" class="code-input">
${content}</textarea></label>
${commitChoices(file, values, `Update ${name}`)}
<div class="actions"><button type="submit">Commit changes</button><a class="button" href="${srcUrl(file.repo, { kind: 'branch', ref: file.branch }, file.path)}">Cancel</a></div></form>`,
  );
}

/** `/_new/<branch>/<folder>`: a new file's name (slashes make folders) and text. */
export function newFileView(viewer: PageUser, file: EditedFile, values: CommitTarget & { name?: string; content?: string } = {}, error?: string): string {
  return editorPage(
    viewer,
    file,
    'New file',
    error,
    html`<form class="card wide editor" method="post" action="${newFileUrl(file.repo, file.branch, file.path)}">${csrfInput(viewer)}
<label>Name of the file${file.path ? html` in <code>${file.path}/</code>` : ''} <input name="name" required maxlength="4096" value="${values.name ?? ''}" placeholder="docs/notes.md"></label>
<label>Contents <textarea name="content" rows="20" spellcheck="false" class="code-input">
${values.content ?? ''}</textarea></label>
${commitChoices(file, values, 'Create a new file')}
<div class="actions"><button type="submit">Commit new file</button><a class="button" href="${srcUrl(file.repo, { kind: 'branch', ref: file.branch }, file.path)}">Cancel</a></div></form>`,
  );
}

/** Most files one upload commits, and most bytes in all (GitHub's web upload takes 100 files of up to 25 MB). */
export const MAX_UPLOAD_FILES = 100;
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** `/_upload/<branch>/<folder>`: files chosen from the computer, added to the folder in one commit. */
export function uploadFilesView(viewer: PageUser, file: EditedFile, values: CommitTarget = {}, error?: string): string {
  return editorPage(
    viewer,
    file,
    'Upload files',
    error,
    html`<form class="card wide editor" method="post" enctype="multipart/form-data" action="${uploadUrl(file.repo, file.branch, file.path)}">${csrfInput(viewer)}
<label>Files to add${file.path ? html` to <code>${file.path}/</code>` : ''} <input type="file" name="files" multiple required></label>
<p class="muted">Up to ${MAX_UPLOAD_FILES} files, ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB in all; a file of the same name is replaced.</p>
${commitChoices(file, values, 'Add files via upload')}
<div class="actions"><button type="submit">Commit changes</button><a class="button" href="${srcUrl(file.repo, { kind: 'branch', ref: file.branch }, file.path)}">Cancel</a></div></form>`,
  );
}

/** `/_delete/<branch>/<path>`: asks before the file is removed in a commit. */
export function deleteFileView(viewer: PageUser, file: EditedFile, values: CommitTarget = {}, error?: string): string {
  const name = file.path.slice(file.path.lastIndexOf('/') + 1);
  return editorPage(
    viewer,
    file,
    `Delete ${file.path}`,
    error,
    html`<form class="card wide" method="post" action="${deleteUrl(file.repo, file.branch, file.path)}">${csrfInput(viewer)}
<input type="hidden" name="sha" value="${file.sha ?? ''}">
<p>The file <code>${file.path}</code> will be removed from <code>${file.branch}</code> in a new commit; its history stays.</p>
${commitChoices(file, values, `Delete ${name}`)}
<div class="actions"><button type="submit" class="danger">Delete file</button><a class="button" href="${srcUrl(file.repo, { kind: 'branch', ref: file.branch }, file.path)}">Cancel</a></div></form>`,
  );
}

/** A branch or tag the switcher could not make: why, and the way back. */
export function refRefusedView(viewer: PageUser, repo: RepositoryRow, access: AccessLevel, message: string): string {
  return repoPage(viewer, repo, access, 'code', 'New branch or tag', html`<h2>New branch or tag</h2>${errorBox(message)}<p><a href="${repoBase(repo)}">Back to the repository</a></p>`);
}
