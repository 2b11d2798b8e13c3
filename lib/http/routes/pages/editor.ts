import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { H3, H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import { conflict, invalid, isRepoHostError, notFound } from '../../../errors.js';
import type { RefPath } from '../../../git/browse.js';
import { isSafeBranchName } from '../../../git/names.js';
import { MAX_POINTER_BYTES, parseLfsPointer } from '../../../git/lfs-pointer.js';
import { writablePath } from '../../../services/git-data.js';
import { utf8Text } from '../../../services/suggestions.js';
import { requiredText } from '../../../services/text-fields.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import { RequestForgeryGuard } from '../../csrf.js';
import { readMultipart } from '../../multipart.js';
import { htmlResponse } from '../../html-response.js';
import { looksBinary } from '../../pages/code/content.js';
import { deleteFileView, editFileView, MAX_UPLOAD_BYTES, MAX_UPLOAD_FILES, newFileView, refRefusedView, uploadFilesView, type EditedFile } from '../../pages/code/editor-view.js';
import { srcUrl } from '../../pages/code/links.js';
import { pathUrl, repoBase } from '../../pages/repo-layout.js';
import { pathParam, type FormFields } from '../../validate.js';
import { formAction, redirectTo, signedInOrLogin } from '../web.js';
import { repoForm, repoPageRequest, type RepoPageRequest } from './page-request.js';
import { ownValue } from '../../../own-value.js';

/** Files larger than this are not edited in a text box (GitHub's editor stops at about 1 MB too). */
const MAX_EDITABLE_BYTES = 1024 * 1024;

type Writer = RepoPageRequest & { viewer: NonNullable<RepoPageRequest['viewer']> };

const badRefName = (kind: 'branch' | 'tag') => invalid(`The new ${kind} needs a name git accepts (no spaces, no ~ ^ : ? * [ \\, no ..)`);

/** A form's text field ('' when absent). */
const field = (form: FormFields, name: string) => {
  const value = ownValue(form, name);
  return typeof value === 'string' ? value : '';
};

/**
 * Text as a browser posts it (every line ended by CRLF) in the line endings the file had: CRLF only where the file
 * already used them.
 */
function withLineEndings(text: string, crlf: boolean): Buffer {
  const lf = text.replace(/\r\n?/g, '\n');
  return Buffer.from(crlf ? lf.replace(/\n/g, '\r\n') : lf, 'utf8');
}

/**
 * Changes from the browser. Branches and tags made from the switcher; and editing (Gitea's paths): `/_edit/<branch>/<path>`,
 * `/_new/<branch>/<folder>`, `/_upload/<branch>/<folder>` and `/_delete/<branch>/<path>`, each a commit on the branch or
 * on a new branch (then the compare page proposes the pull request). Writers only: the one permission check says 404 to everyone else, and the commit goes through the same
 * file change as the contents API (the file must still be the one the editor started from) and the same ref update
 * as a push (protection included).
 */
export function mountEditorPages(app: H3, ctx: AppContext, forgery: RequestForgeryGuard): void {
  const browse = ctx.git.browse;

  /** The branch and path of the address; not found unless the branch exists. */
  async function branchPath(event: H3Event, repo: RepositoryRow): Promise<RefPath> {
    const found = await browse.resolveRefPath(repo.owner_name, repo.name, 'branch', pathParam(event, 'rest'));
    if (!found) throw notFound('Not found');
    return found;
  }

  /** The text of a file the browser may edit, and its blob id; refused for binary, LFS and very large files. */
  async function editableText(repo: RepositoryRow, at: RefPath): Promise<{ sha: string; text: string }> {
    const object = await browse.objectAt(repo.owner_name, repo.name, at.commit, at.path);
    if (!object || object.type !== 'blob') throw notFound('Not found');
    if (object.size > MAX_EDITABLE_BYTES) throw invalid(`Files over ${MAX_EDITABLE_BYTES / 1024 / 1024} MiB cannot be edited in the browser`);
    const bytes = await browse.readBlob(repo.owner_name, repo.name, object.oid, object.size);
    if (looksBinary(bytes)) throw invalid('Binary files cannot be edited in the browser');
    if (bytes.length <= MAX_POINTER_BYTES && parseLfsPointer(bytes)) throw invalid('Files stored with Git LFS cannot be edited in the browser');
    const text = utf8Text(bytes);
    if (text === undefined) throw invalid('Only UTF-8 text can be edited in the browser');
    return { sha: object.oid, text };
  }

  /** The deepest folder above `path` that still exists on the branch (deleting a folder's last file removes it). */
  async function nearestFolder(repo: RepositoryRow, branch: string, path: string): Promise<string> {
    const tip = (await ctx.gitData.refsOf(repo)).get(`refs/heads/${branch}`);
    let folder = path.slice(0, Math.max(0, path.lastIndexOf('/')));
    while (folder && tip && (await browse.objectAt(repo.owner_name, repo.name, tip, folder))?.type !== 'tree') folder = folder.slice(0, Math.max(0, folder.lastIndexOf('/')));
    return folder;
  }

  const editedFile = (request: RepoPageRequest, at: RefPath, sha?: string): EditedFile => ({ repo: request.repo, access: request.access, branch: at.ref, path: at.path, sha });

  /**
   * Commits what a form asks for (`write`, given the message and the branch): to the branch, or to a new branch made at
   * the branch's tip (removed again if the commit is refused). Answers the branch, or the compare page's address for a
   * new one.
   */
  async function commitFrom(request: Writer, at: RefPath, form: FormFields, write: (message: string, branch: string) => Promise<unknown>): Promise<{ branch: string; compare?: string }> {
    const { repo, viewer } = request;
    const message = requiredText('message', form.message, 65_535).trim();
    if (!message) throw invalid('A commit message is required');
    let branch = at.ref;
    const toNewBranch = form.target === 'new-branch';
    if (toNewBranch) {
      branch = field(form, 'new_branch').trim();
      if (!isSafeBranchName(branch)) throw badRefName('branch');
      await ctx.refUpdates.apply(repo, viewer, { ref: `refs/heads/${branch}`, after: at.commit, mustExist: false });
    }
    try {
      await write(message, branch);
    } catch (error) {
      if (toNewBranch) await ctx.refUpdates.apply(repo, viewer, { ref: `refs/heads/${branch}`, after: null, mustExist: true, expected: at.commit }).catch(() => undefined);
      // Two tabs, or someone else: the file or the branch moved since the page was opened.
      if (isRepoHostError(error) && error.kind === 'conflict') throw conflict('The file or its branch changed since you opened it: open the page again to start from the new version');
      throw error;
    }
    return toNewBranch ? { branch, compare: `${repoBase(repo)}/compare/${pathUrl(at.ref)}...${pathUrl(branch)}` } : { branch };
  }

  /** Commits one file change from a form (see `commitFrom`); answers where to go next. */
  async function commit(request: Writer, at: RefPath, form: FormFields, change: { path: string; content?: Buffer; sha?: string }): Promise<Response> {
    const { repo, viewer } = request;
    const { branch, compare } = await commitFrom(request, at, form, (message, branch) => ctx.gitData.changeFile(repo, viewer, { ...change, message, branch }));
    if (compare) return redirectTo(compare);
    if (change.content !== undefined) return redirectTo(srcUrl(repo, { kind: 'branch', ref: branch }, change.path));
    return redirectTo(srcUrl(repo, { kind: 'branch', ref: branch }, await nearestFolder(repo, branch, change.path)));
  }

  /** The folder of the address on its branch (the root, or a folder there); not found otherwise. */
  async function folderPath(event: H3Event, repo: RepositoryRow): Promise<RefPath> {
    const at = await branchPath(event, repo);
    if (at.path && (await browse.objectAt(repo.owner_name, repo.name, at.commit, at.path))?.type !== 'tree') throw notFound('Not found');
    return at;
  }

  /** A form's answer: the commit, or the same form again with what was typed and why it was refused. */
  const editorForm = (event: H3Event, run: (request: Writer, at: RefPath, form: FormFields) => Promise<Response>, rerender: (request: RepoPageRequest, at: RefPath, form: FormFields, message: string) => Promise<string> | string) =>
    repoForm(
      ctx,
      forgery,
      event,
      async (request, form) => run(request, await branchPath(event, request.repo), form),
      async (request, message, form) => rerender(request, await branchPath(event, request.repo), form, message),
      'write',
    );

  // The switcher's "Create branch" and "Create tag" (Gitea's path): a ref made at the commit the page showed, as a
  // push would make it (write access, protection, events).
  app.post('/:owner/:repo/branches/_new', (event) =>
    repoForm(
      ctx,
      forgery,
      event,
      async ({ repo, viewer }, form) => {
        const name = field(form, 'name').trim();
        const kind = form.kind === 'tag' ? 'tag' : 'branch';
        if (!isSafeBranchName(name)) throw badRefName(kind);
        await ctx.refUpdates.apply(repo, viewer, { ref: `refs/${kind === 'tag' ? 'tags' : 'heads'}/${name}`, after: field(form, 'from'), mustExist: false });
        return redirectTo(srcUrl(repo, { kind, ref: name }));
      },
      ({ user, repo, access }, message) => refRefusedView(user!, repo, access, message),
      'write',
    ),
  );

  app.get('/:owner/:repo/_edit/**:rest', async (event) => {
    const request = await repoPageRequest(ctx, forgery, event, 'write');
    const at = await branchPath(event, request.repo);
    const { sha, text } = await editableText(request.repo, at);
    return htmlResponse(editFileView(request.user!, editedFile(request, at, sha), text));
  });

  app.post('/:owner/:repo/_edit/**:rest', (event) =>
    editorForm(
      event,
      async (request, at, form) => {
        const { text } = await editableText(request.repo, at);
        return commit(request, at, form, { path: at.path, content: withLineEndings(field(form, 'content'), text.includes('\r\n')), sha: field(form, 'sha') });
      },
      (request, at, form, message) => editFileView(request.user!, editedFile(request, at, field(form, 'sha')), field(form, 'content'), form, message),
    ),
  );

  app.get('/:owner/:repo/_new/**:rest', async (event) => {
    const request = await repoPageRequest(ctx, forgery, event, 'write');
    return htmlResponse(newFileView(request.user!, editedFile(request, await folderPath(event, request.repo))));
  });

  app.get('/:owner/:repo/_upload/**:rest', async (event) => {
    const request = await repoPageRequest(ctx, forgery, event, 'write');
    return htmlResponse(uploadFilesView(request.user!, editedFile(request, await folderPath(event, request.repo))));
  });

  // Files from the computer (multipart, up to MAX_UPLOAD_FILES and MAX_UPLOAD_BYTES): written to a folder of their own
  // while they arrive, added to the folder in one commit, the folder removed whatever happens.
  app.post('/:owner/:repo/_upload/**:rest', async (event) => {
    const request = await repoPageRequest(ctx, forgery, event, 'write');
    const signedIn = await signedInOrLogin(ctx, event);
    if (signedIn instanceof Response) return signedIn;
    const writer: Writer = { ...request, viewer: signedIn };
    const at = await folderPath(event, request.repo);
    const incoming = await mkdtemp(join(tmpdir(), 'repohost-upload-'));
    let fields: FormFields = {};
    try {
      const response = await formAction(
        {},
        async () => {
          const upload = await readMultipart(event, {
            field: 'files',
            maxFiles: MAX_UPLOAD_FILES,
            maxFileBytes: MAX_UPLOAD_BYTES,
            maxTotalBytes: MAX_UPLOAD_BYTES,
            into: incoming,
            messages: {
              notMultipart: 'Files are uploaded as multipart/form-data',
              fileTooLarge: `The files may be at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB in all`,
              tooLargeInAll: () => `The files may be at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB in all`,
              tooManyFiles: `At most ${MAX_UPLOAD_FILES} files can be uploaded at once`,
            },
          });
          fields = upload.fields;
          RequestForgeryGuard.verifyForm(event, upload.fields);
          const files = upload.files.map((file) => ({ name: file.name, source: file.path! }));
          const { branch, compare } = await commitFrom(writer, at, fields, (message, branch) => ctx.gitData.addFiles(writer.repo, writer.viewer, { folder: at.path, files, message, branch }));
          return redirectTo(compare ?? srcUrl(writer.repo, { kind: 'branch', ref: branch }, at.path));
        },
        (message) => uploadFilesView(request.user!, editedFile(request, at), fields, message),
      );
      // Refused for size, the rest of the upload is unread: the connection closes rather than read it.
      if (response.status === 413) response.headers.set('connection', 'close');
      return response;
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  });

  app.post('/:owner/:repo/_new/**:rest', (event) =>
    editorForm(
      event,
      async (request, at, form) => {
        const name = field(form, 'name').trim().replace(/^\/+|\/+$/g, '');
        if (!name) throw invalid('The new file needs a name');
        const path = writablePath(at.path ? `${at.path}/${name}` : name);
        const existing = await browse.objectAt(request.repo.owner_name, request.repo.name, at.commit, path);
        if (existing) throw invalid(`${path} already exists: edit it instead`);
        return commit(request, at, form, { path, content: withLineEndings(field(form, 'content'), false) });
      },
      (request, at, form, message) => newFileView(request.user!, editedFile(request, at), { ...form, name: field(form, 'name'), content: field(form, 'content') }, message),
    ),
  );

  app.get('/:owner/:repo/_delete/**:rest', async (event) => {
    const request = await repoPageRequest(ctx, forgery, event, 'write');
    const at = await branchPath(event, request.repo);
    const object = await browse.objectAt(request.repo.owner_name, request.repo.name, at.commit, at.path);
    if (!object || object.type !== 'blob') throw notFound('Not found');
    return htmlResponse(deleteFileView(request.user!, editedFile(request, at, object.oid)));
  });

  app.post('/:owner/:repo/_delete/**:rest', (event) =>
    editorForm(
      event,
      (request, at, form) => commit(request, at, form, { path: at.path, sha: field(form, 'sha') }),
      (request, at, form, message) => deleteFileView(request.user!, editedFile(request, at, field(form, 'sha')), form, message),
    ),
  );
}
