import { HTTPResponse, type H3, type H3Event } from 'h3';
import type { AppContext } from '../../../context.js';
import type { RefPath, TreeObject } from '../../../git/browse.js';
import { notFound } from '../../../errors.js';
import type { AccessLevel } from '../../../services/permissions.js';
import type { RepositoryRow } from '../../../store/queries/repositories.js';
import type { UserRow } from '../../../store/queries/users.js';
import { clientAddress, currentUser } from '../../auth.js';
import { archiveResponse } from '../../archive-response.js';
import type { RequestForgeryGuard } from '../../csrf.js';
import { htmlResponse } from '../../html-response.js';
import { escapeHtml, type SafeHtml } from '../../pages/html.js';
import { type DiffView, diffViewOf, highlighting, PAGE_DIFF_LIMITS, renderDiff, viewQuery } from '../../pages/diff-view.js';
import { LruCache, remembered } from '../../../git/lru.js';
import { blameView, type BlameContent } from '../../pages/code/blame-view.js';
import { blobView } from '../../pages/code/blob.js';
import { branchesView, tagsView, type BranchRowView } from '../../pages/code/branches.js';
import { FileContents, imageTypeOf, looksBinary, MAX_SHOWN_BYTES, pickReadme, type ShownFile } from '../../pages/code/content.js';
import { commitView, historyView } from '../../pages/code/history.js';
import { homeView } from '../../pages/code/home.js';
import { searchView } from '../../pages/code/search-view.js';
import { commitUrl, historyUrl, rawUrl, srcUrl } from '../../pages/code/links.js';
import { MAX_POINTER_BYTES, parseLfsPointer, type LfsPointer } from '../../../git/lfs-pointer.js';
import { exploreView, profileView } from '../../pages/code/people.js';
import { FOLDER_PAGE_SIZE, folderView, sortEntries, type FolderContext, type ListedEntry } from '../../pages/code/tree.js';
import { fullName, repoBase } from '../../pages/repo-layout.js';
import { pathParam, queryString, readForm } from '../../validate.js';
import { FIRST_HUNDRED } from '../../../store/queries/page-window.js';
import { pageUserOf, repoPageRequest, textDownload, type RepoPageRequest } from './page-request.js';

/** Items per page of history, branches, profiles and Explore. */
const PER_PAGE = 30;
/**
 * The fewest bytes one entry takes in a tree object (mode "40000", space, a one-byte name, NUL, a 20-byte id): a
 * tree no larger than FOLDER_PAGE_SIZE times this has at most one page of entries, known without listing it.
 */
const MIN_TREE_ENTRY_BYTES = 28;
/** Rendered commit diffs longer than this are not kept (re-rendering the cached, bounded read is cheap). */
const MAX_KEPT_DIFF_CHARS = 512 * 1024;
const KINDS = new Set<RefPath['kind']>(['branch', 'tag', 'commit']);

/** A folder's entries in listing order, without their last commits. */
type FolderOrder = Array<Pick<ListedEntry, 'name' | 'kind'>>;
interface FolderContents {
  entries: ListedEntry[];
  paging: { page: number; pages: number; total: number };
  readme: Awaited<ReturnType<FileContents['readme']>>;
}

/** `?page=` from 1 (leniently: anything else is page 1), bounded so `skip` stays reasonable. */
function pageNumber(event: H3Event): number {
  const raw = queryString(event, 'page');
  return raw && /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
}

function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Raw answers never run as a page of this host: sandboxed, no sniffing, no scripts. */
const RAW_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox",
  'cache-control': 'private, max-age=60',
};

/**
 * The code pages (URLs as on Gitea): repository home, folders and files (`/src/...`), raw bytes (`/raw/...`),
 * history and commits, branches and tags, user profiles and Explore. Every repository page goes through
 * `visibleByName` (the one permission check): anything the viewer may not see is the same 404 as what does not exist.
 */
export function mountCodePages(app: H3, ctx: AppContext, forgery: RequestForgeryGuard): void {
  const browse = ctx.git.browse;
  const contents = new FileContents(ctx.highlighter);
  const renderedDiffs = new LruCache<string, SafeHtml>(32);
  const folderOrders = new LruCache<string, FolderOrder>(64);
  /** Whether a small blob is an LFS pointer, and to what, by the blob's id (what its bytes say never changes). */
  const pointers = new LruCache<string, Promise<LfsPointer | undefined>>(1024);

  const pageUser = (event: H3Event, viewer: UserRow | undefined) => pageUserOf(forgery, event, viewer);

  /** The repository of the path if the viewer may read it (404 otherwise), with the viewer's access level. */
  const openRepo = (event: H3Event): Promise<RepoPageRequest> => repoPageRequest(ctx, forgery, event);

  async function refNames(repo: RepositoryRow): Promise<{ branches: string[]; tags: string[] }> {
    const [branches, tags] = await Promise.all([browse.refsOfKind(repo.owner_name, repo.name, 'branch'), browse.refsOfKind(repo.owner_name, repo.name, 'tag')]);
    return { branches: branches.map((ref) => ref.name), tags: tags.map((ref) => ref.name) };
  }

  /** The ref and path of `/<kind>/<rest>`; not found when the kind, the ref or the path does not exist. */
  async function refPath(event: H3Event, repo: RepositoryRow): Promise<RefPath> {
    const kind = pathParam(event, 'kind') as RefPath['kind'];
    if (!KINDS.has(kind)) throw notFound('Not found');
    const found = await browse.resolveRefPath(repo.owner_name, repo.name, kind, pathParam(event, 'rest'));
    if (!found) throw notFound('Not found');
    return found;
  }

  /** A file as pages show it: its blob, or the LFS object it stands for (read from the object, cached by its oid). */
  function shownFile(repo: RepositoryRow, at: RefPath, path: string, object: { oid: string; size: number }, lfs?: LfsPointer): ShownFile {
    const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    return {
      oid: lfs ? `lfs:${lfs.oid}` : object.oid,
      name: path.slice(path.lastIndexOf('/') + 1),
      size: lfs?.size ?? object.size,
      read: (limit) => (lfs ? ctx.lfs.readStart(repo, lfs.oid, Math.min(limit, lfs.size)) : browse.readBlob(repo.owner_name, repo.name, object.oid, limit)),
      base: { pages: `${srcUrl(repo, at, folder)}/`, raw: `${rawUrl(repo, at, folder)}/` },
      repository: fullName(repo),
    };
  }

  /** The LFS object a file stands for: when it is a pointer to an object the repository holds. */
  async function lfsObjectOf(repo: RepositoryRow, object: { oid: string; size: number }): Promise<LfsPointer | undefined> {
    if (object.size > MAX_POINTER_BYTES) return undefined;
    const pointer = await remembered(pointers, object.oid, async () => parseLfsPointer(await browse.readBlob(repo.owner_name, repo.name, object.oid, MAX_POINTER_BYTES)));
    return pointer && (await ctx.lfs.holds(repo, pointer.oid)) ? pointer : undefined;
  }

  /** A large folder's entries in listing order, by tree id (so for good). */
  async function folderOrder(repo: RepositoryRow, tree: string): Promise<FolderOrder> {
    const cached = folderOrders.get(tree);
    if (cached) return cached;
    const kinds = await browse.treeKinds(repo.owner_name, repo.name, tree);
    const order = sortEntries([...kinds].map(([name, kind]) => ({ name, kind })));
    folderOrders.set(tree, order);
    return order;
  }

  /**
   * A folder's entries with their kinds and last commits (page `page` of FOLDER_PAGE_SIZE entries: only those are
   * looked up and listed), plus its README rendered. Not found past the last page.
   */
  async function folderContents(repo: RepositoryRow, at: RefPath, tree: TreeObject, page: number): Promise<FolderContents> {
    let listed: ListedEntry[];
    let all: FolderOrder;
    const pagesOf = (entries: number) => {
      const pages = Math.max(1, Math.ceil(entries / FOLDER_PAGE_SIZE));
      if (page > pages) throw notFound('Not found');
      return pages;
    };
    if (tree.size <= FOLDER_PAGE_SIZE * MIN_TREE_ENTRY_BYTES) {
      if (page > 1) throw notFound('Not found');
      // At most one page: the whole listing (cached, shared with the API's), its kinds read beside it.
      const [entries, kinds] = await Promise.all([browse.list(repo.owner_name, repo.name, at.commit, at.path), browse.treeKinds(repo.owner_name, repo.name, tree.oid)]);
      listed = sortEntries(entries.map((entry) => ({ ...entry, kind: kinds.get(entry.name) ?? 'blob' })));
      all = listed;
    } else {
      all = await folderOrder(repo, tree.oid);
      pagesOf(all.length);
      const shown = all.slice((page - 1) * FOLDER_PAGE_SIZE, page * FOLDER_PAGE_SIZE);
      const last = await browse.lastCommits(repo.owner_name, repo.name, at.commit, at.path, shown.map((entry) => entry.name));
      listed = shown.map((entry) => ({ name: entry.name, kind: entry.kind, ...last.get(entry.name)! }));
    }
    const paging = { page, pages: pagesOf(all.length), total: all.length };
    const readmeName = pickReadme(all.filter((entry) => entry.kind === 'blob').map((entry) => entry.name));
    if (!readmeName) return { entries: listed, paging, readme: '' };
    const readmePath = at.path ? `${at.path}/${readmeName}` : readmeName;
    const object = await browse.objectAt(repo.owner_name, repo.name, at.commit, readmePath);
    const readme = object?.type === 'blob' ? await contents.readme(shownFile(repo, at, readmePath, object)) : '';
    return { entries: listed, paging, readme };
  }

  async function folderContext(repo: RepositoryRow, access: AccessLevel, at: RefPath): Promise<FolderContext> {
    const [refs, latest] = await Promise.all([refNames(repo), browse.lastCommit(repo.owner_name, repo.name, at.commit, at.path)]);
    return { repo, access, target: at, commit: at.commit, path: at.path, refs, latest };
  }

  app.get('/explore', async (event) => {
    const viewer = await currentUser(ctx, event);
    const search = (queryString(event, 'q') ?? '').slice(0, 100);
    const page = pageNumber(event);
    const { items, total } = await ctx.repos.explore(search, { limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
    return htmlResponse(exploreView(pageUser(event, viewer), search, items, page, page * PER_PAGE < total));
  });

  app.get('/:username', async (event) => {
    const viewer = await currentUser(ctx, event);
    const owner = await ctx.users.requireByName(pathParam(event, 'username'));
    const page = pageNumber(event);
    // The same rule as /api/v1/users/:username/repos: public ones, and private ones the viewer may read.
    const { items, total } = await ctx.repos.listOfOwner(viewer, owner, { limit: PER_PAGE, offset: (page - 1) * PER_PAGE });
    return htmlResponse(profileView(pageUser(event, viewer), ctx.users.summary(owner), items, page, page * PER_PAGE < total));
  });

  app.get('/:owner/:repo', async (event) => {
    const { viewer, user, repo, access } = await openRepo(event);
    const social = { stars: await ctx.social.stars(repo), watchers: await ctx.social.watchers(repo), ...await ctx.social.stateOf(viewer, repo) };
    const topics = await ctx.topics.get(repo);
    const { clone_url: cloneUrl, ssh_url: sshUrl } = await ctx.repos.summary(repo);
    const at = await browse.resolveRefPath(repo.owner_name, repo.name, 'branch', repo.default_branch);
    const tree = at && (await browse.objectAt(repo.owner_name, repo.name, at.commit, ''));
    if (!at || !tree) return htmlResponse(homeView(user, { repo, access }, { cloneUrl, sshUrl, social, topics, readme: '' }));
    const [folder, { entries, paging, readme }] = await Promise.all([folderContext(repo, access, at), folderContents(repo, at, tree, 1)]);
    const pageUrl = (page: number) => `${srcUrl(repo, at)}?page=${page}`;
    return htmlResponse(homeView(user, { repo, access }, { cloneUrl, sshUrl, social, topics, listing: { folder, entries, paging: { ...paging, url: pageUrl } }, readme }));
  });

  for (const toggle of ['star', 'watch'] as const) {
    // The browser's form for the spec's toggle: same service, request-forgery token checked by readForm.
    app.post(`/:owner/:repo/action/${toggle}`, async (event) => {
      await readForm(event, ctx.options.maxBodyBytes);
      const { viewer, repo } = await openRepo(event);
      if (!viewer) return new Response(null, { status: 303, headers: { location: '/login' } });
      await (toggle === 'star' ? ctx.social.toggleStar(viewer, repo) : ctx.social.toggleWatch(viewer, repo));
      return new Response(null, { status: 303, headers: { location: repoBase(repo) } });
    });
  }

  app.get('/:owner/:repo/src/:kind/**:rest', async (event) => {
    const { user, repo, access } = await openRepo(event);
    // Someone is browsing code: have the highlighter's workers ready before the next file is opened (other pages
    // do not start them: starting threads competes with the answer on a small machine).
    ctx.highlighter.warm();
    const at = await refPath(event, repo);
    // The header (refs, last commit) is read from git while the path is looked up and its contents read.
    const context = folderContext(repo, access, at);
    context.catch(() => undefined);
    const object = await browse.objectAt(repo.owner_name, repo.name, at.commit, at.path);
    if (!object || object.type === 'commit') throw notFound('Not found');
    if (object.type === 'tree') {
      const [header, { entries, paging, readme }] = await Promise.all([context, folderContents(repo, at, object, pageNumber(event))]);
      const pageUrl = (page: number) => `${srcUrl(repo, at, at.path)}?page=${page}`;
      return htmlResponse(folderView(user, header, entries, readme, { ...paging, url: pageUrl }));
    }
    const display = queryString(event, 'display') === 'source' ? 'source' : 'rendered';
    const lfs = await lfsObjectOf(repo, object);
    const [header, content] = await Promise.all([context, contents.content(shownFile(repo, at, at.path, object, lfs), display)]);
    return htmlResponse(blobView(user, header, lfs?.size ?? object.size, content, lfs !== undefined));
  });

  // Source archives of any branch, tag or commit (Gitea's path): `<ref>.zip` or `<ref>.tar.gz`.
  app.get('/:owner/:repo/archive/**:file', async (event) => {
    const { repo } = await openRepo(event);
    const file = pathParam(event, 'file');
    const match = /^(.+)\.(zip|tar\.gz)$/.exec(file);
    if (!match) throw notFound('Not found');
    return await archiveResponse(ctx, repo, match[1]!, match[2] as 'zip' | 'tar.gz', clientAddress(event) ?? '');
  });

  // Code search of the default branch (git grep, literal and case-insensitive, bounded; cached by commit and text).
  app.get('/:owner/:repo/search', async (event) => {
    const { user, repo, access } = await openRepo(event);
    const query = (queryString(event, 'q') ?? '').trim();
    if (!query) return htmlResponse(searchView(user, repo, access, { query }));
    if (query.length < 2 || query.length > 200 || /[\u0000-\u001f]/.test(query)) {
      return htmlResponse(searchView(user, repo, access, { query: query.slice(0, 200), problem: 'Search for 2 to 200 characters on one line.' }), 400);
    }
    const tip = await browse.resolveRefPath(repo.owner_name, repo.name, 'branch', repo.default_branch);
    if (!tip) return htmlResponse(searchView(user, repo, access, { query, problem: 'This repository has no commits to search yet.' }));
    return htmlResponse(searchView(user, repo, access, { query, result: await browse.search(repo.owner_name, repo.name, tip.commit, query) }));
  });

  // Who last changed each line of a file (git blame, cached by commit and path), with links to the blame before.
  app.get('/:owner/:repo/blame/:kind/**:rest', async (event) => {
    const { user, repo, access } = await openRepo(event);
    const at = await refPath(event, repo);
    const context = folderContext(repo, access, at);
    context.catch(() => undefined);
    const object = at.path ? await browse.objectAt(repo.owner_name, repo.name, at.commit, at.path) : undefined;
    if (!object || object.type !== 'blob') throw notFound('Not found');
    let content: BlameContent = { kind: 'large' };
    if (object.size <= MAX_SHOWN_BYTES) {
      const bytes = await browse.readBlob(repo.owner_name, repo.name, object.oid, object.size);
      if (looksBinary(bytes)) content = { kind: 'binary' };
      else {
        const text = bytes.toString('utf8');
        const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').map(escapeHtml);
        content = { kind: 'hunks', hunks: await browse.blame(repo.owner_name, repo.name, at.commit, at.path), lines };
      }
    }
    return htmlResponse(blameView(user, await context, content));
  });

  // Raw bytes of a file; a file stored with Git LFS answers the object it stands for (as Gitea's raw and GitHub's media
  // URLs do), `/media/` being the same route under GitHub's name.
  const raw = async (event: H3Event) => {
    const { repo } = await openRepo(event);
    const at = await refPath(event, repo);
    const object = at.path ? await browse.objectAt(repo.owner_name, repo.name, at.commit, at.path) : undefined;
    if (!object || object.type !== 'blob') throw notFound('Not found');
    const lfs = await lfsObjectOf(repo, object);
    const name = at.path.slice(at.path.lastIndexOf('/') + 1);
    // An SVG is served as one (Markdown shows it through <img>, which never runs its script), under RAW_HEADERS'
    // sandboxing policy, so opened on its own it runs nothing either; its file page shows its source.
    const image = imageTypeOf(name) ?? (/\.svg$/i.test(name) ? 'image/svg+xml' : undefined);
    const start = image ? undefined : await (lfs ? ctx.lfs.readStart(repo, lfs.oid, 8000) : browse.readBlob(repo.owner_name, repo.name, object.oid, 8000));
    const binary = start !== undefined && looksBinary(start);
    // Text is always text/plain and images their own type; anything else downloads. Never HTML or SVG from the repository.
    const type = image ?? (binary ? 'application/octet-stream' : 'text/plain; charset=utf-8');
    const stored = lfs ? await ctx.lfs.read(repo, lfs.oid) : undefined;
    const size = stored?.size ?? object.size;
    const headers = { ...RAW_HEADERS, 'content-type': type, 'content-length': String(size), 'content-disposition': contentDisposition(binary ? 'attachment' : 'inline', name) };
    const body = stored?.body ?? (await browse.streamBlob(repo.owner_name, repo.name, object.oid));
    return new HTTPResponse(body as unknown as BodyInit, { headers });
  };
  app.get('/:owner/:repo/raw/:kind/**:rest', raw);
  app.get('/:owner/:repo/media/:kind/**:rest', raw);

  app.get('/:owner/:repo/commits/:kind/**:rest', async (event) => {
    const { user, repo, access } = await openRepo(event);
    const at = await refPath(event, repo);
    if (at.path && !(await browse.objectAt(repo.owner_name, repo.name, at.commit, at.path))) throw notFound('Not found');
    const page = pageNumber(event);
    const commits = await browse.log(repo.owner_name, repo.name, at.commit, at.path, (page - 1) * PER_PAGE, PER_PAGE);
    const url = historyUrl(repo, at, at.path);
    return htmlResponse(
      historyView(user, { repo, access, target: at, path: at.path, refs: await refNames(repo) }, commits.slice(0, PER_PAGE), page, commits.length > PER_PAGE, (target) => `${url}?page=${target}`),
    );
  });

  // `/commit/<id>` is the page; `/commit/<id>.diff` and `.patch` the whole change as text, streamed from git.
  app.get('/:owner/:repo/commit/:sha', async (event) => {
    const { user, repo, access } = await openRepo(event);
    const [, id, kind] = /^(.*?)(?:\.(diff|patch))?$/.exec(pathParam(event, 'sha').toLowerCase())!;
    const sha = await browse.resolveCommitId(repo.owner_name, repo.name, id!);
    const commit = sha && (await browse.commit(repo.owner_name, repo.name, sha));
    if (!commit) throw notFound('Not found');
    if (kind === 'diff' || kind === 'patch') {
      return textDownload(await browse.streamCommit(repo.owner_name, repo.name, commit, kind));
    }
    // A commit's diff never changes: rendered once per commit id (the largest are rendered again from the bounded
    // read, which stays cached, instead of being kept as markup).
    const view = diffViewOf(queryString(event, 'diff'), queryString(event, 'w'), queryString(event, 'expand'));
    const key = `${repo.id}\0${commit.sha}\0${viewQuery(view)}`;
    let diff = renderedDiffs.get(key);
    if (!diff) {
      const base = commitUrl(repo, commit.sha);
      const choice = { view, href: (other: DiffView) => `${base}${viewQuery(other) ? `?${viewQuery(other)}` : ''}` };
      const read = await browse.commitDiff(repo.owner_name, repo.name, commit, { ...PAGE_DIFF_LIMITS, ignoreWhitespace: view.hideWhitespace });
      // The file asked for with all its lines (a new page: the one read is cached).
      const expanded = view.expanded === undefined ? undefined : read.files[view.expanded];
      const whole = expanded?.patch === undefined ? undefined : await browse.commitFileWithAllLines(repo.owner_name, repo.name, commit, expanded, view.hideWhitespace);
      const shown = whole ? { ...read, files: read.files.map((file, index) => (index === view.expanded ? whole : file)) } : read;
      diff = await renderDiff(shown, { diff: `${base}.diff`, patch: `${base}.patch` }, undefined, choice, highlighting(ctx));
      if (diff.value.length <= MAX_KEPT_DIFF_CHARS) renderedDiffs.set(key, diff);
    }
    const { items, total } = await ctx.commitComments.list(repo, commit.sha, FIRST_HUNDRED);
    const shown = items.map((comment) => ({ id: comment.id, anchor: `commitcomment-${comment.id}`, author: comment.author, created_at: comment.created_at, body: comment.body }));
    return htmlResponse(commitView(user, repo, access, commit, await ctx.statuses.combinedOf(repo, commit.sha), diff, { shown, total }));
  });

  // A comment on the commit, from its page's form (request-forgery token checked by readForm).
  app.post('/:owner/:repo/commit/:sha/comments', async (event) => {
    const form = await readForm(event, ctx.options.maxBodyBytes);
    const { viewer, repo } = await openRepo(event);
    if (!viewer) return new Response(null, { status: 303, headers: { location: '/login' } });
    const comment = await ctx.commitComments.create(repo, viewer, pathParam(event, 'sha'), { body: form.body });
    return new Response(null, { status: 303, headers: { location: `${commitUrl(repo, comment.commit_id)}#commitcomment-${comment.id}` } });
  });

  app.get('/:owner/:repo/branches', async (event) => {
    const { user, repo, access } = await openRepo(event);
    const page = pageNumber(event);
    const all = await browse.refsOfKind(repo.owner_name, repo.name, 'branch');
    const base = all.find((branch) => branch.name === repo.default_branch);
    // The default branch first, then the others by name; ahead/behind is computed only for the page shown.
    const ordered = base ? [base, ...all.filter((branch) => branch !== base)] : all;
    const shown = ordered.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const rows: BranchRowView[] = await Promise.all(
      shown.map(async (branch) => ({
        name: branch.name,
        sha: branch.sha,
        commit: await browse.commit(repo.owner_name, repo.name, branch.sha),
        aheadBehind: base && branch !== base ? await browse.aheadBehind(repo.owner_name, repo.name, base.sha, branch.sha) : undefined,
      })),
    );
    return htmlResponse(branchesView(user, repo, access, rows, page, ordered.length > page * PER_PAGE));
  });

  app.get('/:owner/:repo/tags', async (event) => {
    const { user, repo, access } = await openRepo(event);
    const page = pageNumber(event);
    const all = await browse.refsOfKind(repo.owner_name, repo.name, 'tag');
    const shown = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const tags = await Promise.all(
      shown.map(async (tag) => {
        const sha = await browse.resolveCommitId(repo.owner_name, repo.name, tag.sha);
        return { name: tag.name, commit: sha ? await browse.commit(repo.owner_name, repo.name, sha) : undefined };
      }),
    );
    return htmlResponse(tagsView(user, repo, access, tags, page, all.length > page * PER_PAGE));
  });
}
