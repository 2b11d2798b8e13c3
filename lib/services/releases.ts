import type { Readable } from 'node:stream';
import { conflict, invalid, notFound, tooLarge } from '../errors.js';
import type { GitRepositories } from '../git/repositories.js';
import { isSafeBranchName } from '../git/names.js';
import type { EventRecorder, ReleaseAction, ReleaseChanges } from '../events/index.js';
import type { ReleaseShapes } from '../github/release-shapes.js';
import type { Db, ReadTx, WriteTx } from '../store/interface.js';
import type { PageWindow } from '../store/queries/page-window.js';
import {
  assetById,
  assetByName,
  assetsOfReleases,
  countDownload,
  countReleases,
  deleteAsset,
  deleteRelease,
  insertAsset,
  insertRelease,
  latestRelease,
  markLatest,
  releaseById,
  releaseAssetBytesOf,
  releaseByTag,
  releasesOfRepository,
  updateAsset,
  updateRelease,
  type Release,
  type ReleaseAssetRow,
  type ReleaseFields,
  type ReleaseRow,
} from '../store/queries/releases.js';
import { mergedPulls } from '../store/queries/pulls.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { GitDataService } from './git-data.js';
import { accessLevel, atLeast, requireAccess, type Viewer } from './permissions.js';
import type { ReleaseFiles } from './release-files.js';
import type { RefUpdateService } from './ref-updates.js';
import { writeToRepository } from './repository-write.js';
import { nullableText, optionalFlag } from './text-fields.js';

/** A release with its assets. */
export type { Release };

/** What a request may set on a release (create needs `tag_name`). */
export interface ReleaseInput {
  tag_name?: unknown;
  target_commitish?: unknown;
  name?: unknown;
  body?: unknown;
  draft?: unknown;
  prerelease?: unknown;
  /** GitHub's `'true'` (the default for a release being published), `'false'` or `'legacy'` (the newest full release). */
  make_latest?: unknown;
}

/** What `POST /releases/generate-notes` takes. */
export interface NotesInput {
  tag_name?: unknown;
  target_commitish?: unknown;
  previous_tag_name?: unknown;
  configuration_file_path?: unknown;
}

/** The most commits and merged pull requests release notes look through. */
const MAX_NOTES_COMMITS = 10_000;
const MAX_NOTES_PULLS = 10_000;

type MergedPull = Awaited<ReturnType<typeof mergedPulls>>[number];

/**
 * Release notes in GitHub's words: "What's Changed" (each pull request merged in the range, by its author),
 * "New Contributors" (authors whose first merged pull request is among them), and the full changelog.
 */
function releaseNotes(repoUrl: string, merged: readonly MergedPull[], included: ReadonlySet<string>, previous: string | undefined, tag: string): string {
  const inRange = merged.filter((pull) => pull.merge_commit_sha !== null && included.has(pull.merge_commit_sha));
  const firstOf = new Map<string, MergedPull>();
  for (const pull of merged) if (pull.author && !firstOf.has(pull.author)) firstOf.set(pull.author, pull);
  // GitHub writes `/pull/N` (the pages send it on to `/pulls/N`).
  const link = (pull: MergedPull) => `${repoUrl}/pull/${pull.number}`;
  const sections: string[] = [];
  if (inRange.length > 0) sections.push(["## What's Changed", ...inRange.map((pull) => `* ${pull.title} by @${pull.author ?? 'ghost'} in ${link(pull)}`)].join('\n'));
  const newcomers = inRange.filter((pull) => pull.author && firstOf.get(pull.author) === pull);
  if (newcomers.length > 0) sections.push(['## New Contributors', ...newcomers.map((pull) => `* @${pull.author} made their first contribution in ${link(pull)}`)].join('\n'));
  sections.push(`**Full Changelog**: ${previous === undefined ? `${repoUrl}/commits/${tag}` : `${repoUrl}/compare/${previous}...${tag}`}`);
  return sections.join('\n\n');
}

type MakeLatest = 'true' | 'false' | 'legacy';

function makeLatestOf(value: unknown): MakeLatest | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'true' || value === 'false' || value === 'legacy') return value;
  throw invalid("make_latest must be 'true', 'false' or 'legacy'");
}

export interface AssetUpload {
  name: unknown;
  label: unknown;
  contentType: string | undefined;
  body: Readable;
}

/** GitHub's limits: a release body of 125,000 characters; names as long as a tag may be. */
const MAX_BODY = 125_000;
const MAX_NAME = 1024;
const MAX_ASSET_NAME = 255;

function tagName(value: unknown): string {
  if (value === undefined || value === null || value === '') throw invalid('tag_name is required');
  if (typeof value !== 'string' || !isSafeBranchName(value)) throw invalid('tag_name must be a valid tag name');
  return value;
}

/** An asset's file name as GitHub keeps it: no folders, no control characters. */
function assetName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid('name is required');
  if (value.length > MAX_ASSET_NAME || /[\x00-\x1f\x7f/\\]/.test(value) || value === '.' || value === '..') throw invalid('name must be a file name');
  return value;
}

/**
 * Releases of a repository (GitHub's model): a release names a tag, and publishing one whose tag does not exist yet
 * creates that tag at `target_commitish`, as a push by the publisher would (protection rules, ref journal, events).
 * Drafts are seen only by those with write access. Assets are files kept in the repository's folder (ReleaseFiles).
 */
export class ReleaseService {
  constructor(
    private readonly store: Db,
    private readonly git: Pick<GitRepositories, 'gitDirOf' | 'refsOf'>,
    private readonly gitData: Pick<GitDataService, 'resolve' | 'commitIdsSince' | 'commit'>,
    private readonly refs: Pick<RefUpdateService, 'apply'>,
    private readonly files: ReleaseFiles,
    private readonly now: () => string,
    private readonly events: EventRecorder,
    private readonly shapes: ReleaseShapes,
    /** Runs work on a repository that can be neither deleted nor renamed meanwhile (RepositoryService.whileUnchanged). */
    private readonly whileUnchanged: <T>(repo: RepositoryRow, work: (current: RepositoryRow) => Promise<T>) => Promise<T>,
  ) {}

  private async mayWrite(repo: RepositoryRow, viewer: Viewer): Promise<boolean> {
    return atLeast(await accessLevel(this.store, viewer, repo), 'write');
  }

  private async withAssets(db: ReadTx, releases: ReleaseRow[]): Promise<Release[]> {
    const assets = await assetsOfReleases(db, releases.map((release) => release.id));
    return releases.map((release) => ({ ...release, assets: assets.get(release.id) ?? [] }));
  }

  async list(repo: RepositoryRow, viewer: Viewer, page: PageWindow): Promise<{ items: Release[]; total: number }> {
    const drafts = await this.mayWrite(repo, viewer);
    return await this.store.read(async (tx) => ({ items: await this.withAssets(tx, await releasesOfRepository(tx, repo.id, drafts, page)), total: await countReleases(tx, repo.id, drafts) }));
  }

  /** A release by id; a draft only for those with write access (404 otherwise, as on GitHub). */
  async get(repo: RepositoryRow, viewer: Viewer, id: number): Promise<Release> {
    const release = Number.isSafeInteger(id) ? await releaseById(this.store, repo.id, id) : undefined;
    if (!release || (release.draft === 1 && !(await this.mayWrite(repo, viewer)))) throw notFound('Not Found');
    return (await this.withAssets(this.store, [release]))[0]!;
  }

  /** The published release of a tag (drafts are not found by tag, as on GitHub). */
  async byTag(repo: RepositoryRow, tag: string): Promise<Release> {
    const release = await releaseByTag(this.store, repo.id, tag);
    if (!release || release.draft === 1) throw notFound('Not Found');
    return (await this.withAssets(this.store, [release]))[0]!;
  }

  async latest(repo: RepositoryRow): Promise<Release> {
    const release = await latestRelease(this.store, repo.id);
    if (!release) throw notFound('Not Found');
    return (await this.withAssets(this.store, [release]))[0]!;
  }

  async create(repo: RepositoryRow, viewer: Viewer, input: ReleaseInput): Promise<Release> {
    await requireAccess(this.store, viewer, repo, 'write', 'Creating releases needs write access');
    const fields = this.fields(repo, undefined, input);
    const makeLatest = this.makeLatest(fields, input);
    if (await releaseByTag(this.store, repo.id, fields.tag_name)) throw conflict('tag_name already_exists');
    const tagged = fields.draft ? undefined : await this.ensureTagAndDate(repo, viewer, fields);
    const now = this.now();
    const id = await writeToRepository(this.store, repo, async (tx) => {
      if (await releaseByTag(tx, repo.id, fields.tag_name)) throw conflict('tag_name already_exists');
      const id = await insertRelease(tx, repo.id, viewer!.id, { ...fields, published_at: fields.draft ? null : now, created_at: tagged }, now);
      if (!fields.draft && !fields.prerelease) await this.applyMakeLatest(tx, repo, id, makeLatest ?? 'true');
      // As GitHub: `created` (a draft saved, or a release published at once), then `published` and `released` or
      // `prereleased` for one published.
      await this.announce(tx, repo, viewer, id, fields.draft ? ['created'] : ['created', 'published', fields.prerelease ? 'prereleased' : 'released']);
      return id;
    });
    return await this.get(repo, viewer, id);
  }

  async update(repo: RepositoryRow, viewer: Viewer, id: number, input: ReleaseInput): Promise<Release> {
    await requireAccess(this.store, viewer, repo, 'write', 'Editing releases needs write access');
    const current = await this.get(repo, viewer, id);
    const fields = this.fields(repo, current, input);
    const makeLatest = this.makeLatest(fields, input);
    const tagged = fields.draft ? undefined : await this.ensureTagAndDate(repo, viewer, fields);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const clash = await releaseByTag(tx, repo.id, fields.tag_name);
      if (clash && clash.id !== current.id) throw conflict('tag_name already_exists');
      if (!(await releaseById(tx, repo.id, current.id))) throw notFound('Not Found');
      const published = current.draft === 1 && !fields.draft;
      // Published once: a release made a draft again keeps no publication date, and gets a new one when published.
      await updateRelease(tx, current.id, { ...fields, published_at: fields.draft ? null : (current.published_at ?? now), created_at: published ? tagged : undefined }, now);
      // A release published now is made latest unless told otherwise, as on GitHub; one published before only when told.
      if (!fields.draft && !fields.prerelease && (makeLatest ?? (published ? 'true' : undefined))) await this.applyMakeLatest(tx, repo, current.id, makeLatest ?? 'true');
      const changes: ReleaseChanges = {};
      for (const field of ['name', 'body', 'tag_name'] as const) if (fields[field] !== current[field]) changes[field] = { from: current[field] ?? '' };
      const wasDraft = current.draft === 1;
      const wasPre = current.prerelease === 1;
      const actions: ReleaseAction[] = Object.keys(changes).length > 0 ? ['edited'] : [];
      if (wasDraft && !fields.draft) actions.push('published', fields.prerelease ? 'prereleased' : 'released');
      else if (!wasDraft && fields.draft) actions.push('unpublished');
      else if (!fields.draft && wasPre && !fields.prerelease) actions.push('released');
      await this.announce(tx, repo, viewer, current.id, actions, changes);
    });
    return await this.get(repo, viewer, id);
  }

  /** Deletes a release and its assets; its tag stays (as on GitHub). */
  async remove(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Deleting releases needs write access');
    const release = await this.get(repo, viewer, id);
    const files = await writeToRepository(this.store, repo, async (tx) => {
      // Announced as it was, before its rows go.
      await this.announce(tx, repo, viewer, release.id, ['deleted']);
      return await deleteRelease(tx, repo.id, release.id);
    });
    await this.files.remove(await this.git.gitDirOf(repo.owner_name, repo.name), files);
  }

  async assets(repo: RepositoryRow, viewer: Viewer, releaseId: number, page: PageWindow): Promise<{ items: ReleaseAssetRow[]; total: number }> {
    const { assets } = await this.get(repo, viewer, releaseId);
    return { items: assets.slice(page.offset, page.offset + page.limit), total: assets.length };
  }

  /** An asset by id; those of drafts only for those with write access. */
  async asset(repo: RepositoryRow, viewer: Viewer, id: number): Promise<ReleaseAssetRow> {
    const asset = Number.isSafeInteger(id) ? await assetById(this.store, repo.id, id) : undefined;
    if (!asset) throw notFound('Not Found');
    await this.get(repo, viewer, asset.release_id);
    return asset;
  }

  /** Streams an upload to disk, then records it; a name the release already has is refused (and the file removed). */
  async upload(repo: RepositoryRow, viewer: Viewer, releaseId: number, upload: AssetUpload): Promise<ReleaseAssetRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Uploading release assets needs write access');
    const release = await this.get(repo, viewer, releaseId);
    const name = assetName(upload.name);
    const label = nullableText('label', upload.label, MAX_NAME);
    const contentType = upload.contentType?.trim() || 'application/octet-stream';
    if (await assetByName(this.store, release.id, name)) throw conflict('name already_exists');
    // The repository can be neither renamed nor deleted while its folder receives the file.
    const id = await this.whileUnchanged(repo, async (current) => {
      const gitDir = await this.git.gitDirOf(current.owner_name, current.name);
      const stored = await this.files.receive(gitDir, upload.body, await releaseAssetBytesOf(this.store, current.id));
      const now = this.now();
      try {
        return await writeToRepository(this.store, current, async (tx) => {
          if (!(await releaseById(tx, current.id, release.id))) throw notFound('Not Found');
          if (await assetByName(tx, release.id, name)) throw conflict('name already_exists');
          // Again here: uploads running side by side each saw the room before the others' bytes were counted.
          if ((await releaseAssetBytesOf(tx, current.id)) + stored.size > this.files.maxBytesPerRepository) {
            throw tooLarge(`a repository's release assets may take ${this.files.maxBytesPerRepository} bytes in all`);
          }
          return await insertAsset(tx, release.id, viewer!.id, { name, label, content_type: contentType, ...stored }, now);
        });
      } catch (error) {
        await this.files.remove(gitDir, [stored.file]);
        throw error;
      }
    });
    return (await assetById(this.store, repo.id, id))!;
  }

  async updateAsset(repo: RepositoryRow, viewer: Viewer, id: number, input: { name?: unknown; label?: unknown }): Promise<ReleaseAssetRow> {
    await requireAccess(this.store, viewer, repo, 'write', 'Editing release assets needs write access');
    const asset = await this.asset(repo, viewer, id);
    const name = input.name === undefined ? asset.name : assetName(input.name);
    const label = input.label === undefined ? asset.label : nullableText('label', input.label, MAX_NAME);
    await writeToRepository(this.store, repo, async (tx) => {
      const clash = await assetByName(tx, asset.release_id, name);
      if (clash && clash.id !== asset.id) throw conflict('name already_exists');
      await updateAsset(tx, asset.id, name, label, this.now());
    });
    return (await assetById(this.store, repo.id, asset.id))!;
  }

  async removeAsset(repo: RepositoryRow, viewer: Viewer, id: number): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'write', 'Deleting release assets needs write access');
    const asset = await this.asset(repo, viewer, id);
    await writeToRepository(this.store, repo, async (tx) => await deleteAsset(tx, asset.id));
    await this.files.remove(await this.git.gitDirOf(repo.owner_name, repo.name), [asset.file]);
  }

  /** The asset's bytes, counted as a download (`browser_download_url` names it by tag and file name). */
  async download(repo: RepositoryRow, viewer: Viewer, asset: ReleaseAssetRow): Promise<Readable> {
    await writeToRepository(this.store, repo, async (tx) => await countDownload(tx, asset.id));
    // Opened once counted (a refused count leaves no file open); an asset deleted meanwhile is not found.
    const body = await this.files.read(await this.git.gitDirOf(repo.owner_name, repo.name), asset.file);
    if (!body) throw notFound('Not Found');
    return body;
  }

  /** The release of a tag as the viewer may see it: a draft too for those with write access (the pages). */
  async visibleByTag(repo: RepositoryRow, viewer: Viewer, tag: string): Promise<Release> {
    const release = await releaseByTag(this.store, repo.id, tag);
    if (!release || (release.draft === 1 && !(await this.mayWrite(repo, viewer)))) throw notFound('Not Found');
    return (await this.withAssets(this.store, [release]))[0]!;
  }

  /** The asset named in a `browser_download_url`: by the release's tag (drafts for writers only) and its name. */
  async assetByTag(repo: RepositoryRow, viewer: Viewer, tag: string, name: string): Promise<ReleaseAssetRow> {
    const release = await this.visibleByTag(repo, viewer, tag);
    const asset = await assetByName(this.store, release.id, name);
    if (!asset) throw notFound('Not Found');
    return asset;
  }

  /** Records `release` events (in this order) of the release as it stands in the write. */
  private async announce(tx: WriteTx, repo: RepositoryRow, viewer: Viewer, id: number, actions: readonly ReleaseAction[], changes: ReleaseChanges = {}): Promise<void> {
    for (const action of actions) {
      await this.events.record(tx, repo, viewer, 'release', async (current) => {
        const row = (await releaseById(tx, current.id, id))!;
        const [release] = await this.shapes.releases(tx, current, await this.withAssets(tx, [row]));
        return action === 'edited' ? { action, changes, release: release! } : { action, release: release! };
      });
    }
  }

  /** The fields a create (no `current`) or an update leaves, checked. */
  private fields(repo: RepositoryRow, current: Release | undefined, input: ReleaseInput): Omit<ReleaseFields, 'published_at'> {
    return {
      tag_name: input.tag_name === undefined && current ? current.tag_name : tagName(input.tag_name),
      target_commitish: nullableText('target_commitish', input.target_commitish, MAX_NAME) || current?.target_commitish || repo.default_branch,
      name: input.name === undefined ? (current?.name ?? null) : nullableText('name', input.name, MAX_NAME),
      body: input.body === undefined ? (current?.body ?? null) : nullableText('body', input.body, MAX_BODY),
      draft: optionalFlag('draft', input.draft, current ? current.draft === 1 : false),
      prerelease: optionalFlag('prerelease', input.prerelease, current ? current.prerelease === 1 : false),
    };
  }

  /**
   * GitHub's generated release notes for `tag_name` (at its tag, else at `target_commitish`): the pull requests merged
   * since `previous_tag_name` (by default the latest release's tag), their authors' first contributions, and the
   * full changelog's link. Write access, as GitHub asks.
   */
  async generateNotes(repo: RepositoryRow, viewer: Viewer, input: NotesInput): Promise<{ name: string; body: string }> {
    await requireAccess(this.store, viewer, repo, 'write', 'Generating release notes needs write access');
    if (input.configuration_file_path !== undefined && input.configuration_file_path !== null) throw invalid('repohost does not read a release notes configuration file');
    const tag = tagName(input.tag_name);
    const refs = await this.git.refsOf(repo.owner_name, repo.name);
    const target = await this.gitData.resolve(repo, refs.has(`refs/tags/${tag}`) ? `refs/tags/${tag}` : nullableText('target_commitish', input.target_commitish, MAX_NAME) || repo.default_branch).catch(() => {
      throw invalid('target_commitish must name a branch or commit of the repository');
    });
    let previous = input.previous_tag_name === undefined || input.previous_tag_name === null ? undefined : tagName(input.previous_tag_name);
    if (previous !== undefined && !refs.has(`refs/tags/${previous}`)) throw invalid('previous_tag_name must name a tag of the repository');
    if (previous === undefined) {
      const latest = await latestRelease(this.store, repo.id);
      if (latest && latest.tag_name !== tag && refs.has(`refs/tags/${latest.tag_name}`)) previous = latest.tag_name;
    }
    const since = previous === undefined ? undefined : await this.gitData.resolve(repo, `refs/tags/${previous}`);
    const included = await this.gitData.commitIdsSince(repo, since, target, MAX_NOTES_COMMITS);
    const merged = await mergedPulls(this.store, repo.id, MAX_NOTES_PULLS);
    return { name: tag, body: releaseNotes(this.shapes.htmlUrl(repo), merged, included, previous, tag) };
  }

  /** The request's `make_latest`, which a draft or a pre-release cannot be (GitHub's rule). */
  private makeLatest(fields: Pick<ReleaseFields, 'draft' | 'prerelease'>, input: ReleaseInput): MakeLatest | undefined {
    const makeLatest = makeLatestOf(input.make_latest);
    if (makeLatest === 'true' && (fields.draft || fields.prerelease)) throw invalid('Drafts and prereleases cannot be set as latest');
    return makeLatest;
  }

  /**
   * `make_latest` of a full release: 'true' makes it the latest; 'legacy' leaves the latest to be the newest full
   * release; 'false' makes the latest what it would be without this one.
   */
  private async applyMakeLatest(tx: WriteTx, repo: RepositoryRow, id: number, makeLatest: MakeLatest): Promise<void> {
    if (makeLatest === 'true') await markLatest(tx, repo.id, id);
    else if (makeLatest === 'legacy') await markLatest(tx, repo.id, null);
    else await markLatest(tx, repo.id, (await latestRelease(tx, repo.id, id))?.id ?? null);
  }

  /**
   * Creates the release's tag at its target when the tag does not exist yet (publishing needs one). Answers the date
   * of the tag's commit, as stored: GitHub's `created_at` of a published release ("the date of the commit used for
   * the release, and not the date when the release was drafted or published"), which tools such as release-drafter
   * read as the point since which commits are new.
   */
  private async ensureTagAndDate(repo: RepositoryRow, viewer: Viewer, fields: Pick<ReleaseFields, 'tag_name' | 'target_commitish'>): Promise<string | undefined> {
    // git reads the folder before the tag is made: a rename or a delete must not move it meanwhile (409 or 404 instead).
    return await this.whileUnchanged(repo, async (current) => {
      const ref = `refs/tags/${fields.tag_name}`;
      let commit: string | undefined;
      // A tag pushed before may name something other than a commit: the release is dated when made then.
      if ((await this.git.refsOf(current.owner_name, current.name)).has(ref)) commit = await this.gitData.resolve(current, ref).catch(() => undefined);
      else {
        commit = await this.gitData.resolve(current, fields.target_commitish).catch(() => {
          throw invalid('target_commitish must name a branch or commit of the repository');
        });
        await this.refs.apply(current, viewer, { ref, after: commit, mustExist: false });
      }
      if (commit === undefined) return undefined;
      const { committer } = await this.gitData.commit(current, commit);
      return new Date(Number(committer.date.split(' ')[0]) * 1000).toISOString();
    });
  }
}
