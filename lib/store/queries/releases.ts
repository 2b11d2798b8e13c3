import type { ReadTx, WriteTx } from '../interface.js';
import { inList } from './in-list.js';
import { deleteReactionsTo } from './reactions.js';
import type { PageWindow } from './page-window.js';

/** A release as stored, with its author's name. */
export interface ReleaseRow {
  id: number;
  repo_id: number;
  tag_name: string;
  target_commitish: string;
  name: string | null;
  body: string | null;
  draft: number;
  prerelease: number;
  author_id: number;
  author: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

/** What an upload records of a file; `file` names its bytes in the repository's asset folder. */
export interface AssetFields {
  name: string;
  label: string | null;
  content_type: string;
  size: number;
  /** `sha256:<hex>` of the bytes, as GitHub gives it. */
  digest: string;
  file: string;
}

/** A file attached to a release. */
export interface ReleaseAssetRow extends AssetFields {
  id: number;
  release_id: number;
  /** The tag of its release (the asset's download URL names it). */
  tag_name: string;
  uploader: string;
  download_count: number;
  created_at: string;
  updated_at: string;
}

/** A release with its assets, as services hand it out and GitHub's shape shows it. */
export interface Release extends ReleaseRow {
  assets: ReleaseAssetRow[];
}

const RELEASE = `SELECT r.id, r.repo_id, r.tag_name, r.target_commitish, r.name, r.body, r.draft, r.prerelease, r.author_id,
  u.username AS author, r.created_at, r.updated_at, r.published_at FROM releases r JOIN users u ON u.id = r.author_id`;

const ASSET = `SELECT a.id, a.release_id, r.tag_name, a.name, a.label, a.content_type, a.size, a.digest, a.file, u.username AS uploader,
  a.download_count, a.created_at, a.updated_at FROM release_assets a JOIN releases r ON r.id = a.release_id JOIN users u ON u.id = a.uploader_id`;

/** Drafts only for those who may see them (write access). */
const visibility = (withDrafts: boolean) => (withDrafts ? '' : ' AND r.draft = 0');

export async function releasesOfRepository(db: ReadTx, repoId: number, withDrafts: boolean, page: PageWindow): Promise<ReleaseRow[]> {
  return await db.all<ReleaseRow>(`${RELEASE} WHERE r.repo_id = ?${visibility(withDrafts)} ORDER BY r.id DESC LIMIT ? OFFSET ?`, [repoId, page.limit, page.offset]);
}

export async function countReleases(db: ReadTx, repoId: number, withDrafts: boolean): Promise<number> {
  return (await db.get<{ n: number }>(`SELECT COUNT(*) AS n FROM releases r WHERE r.repo_id = ?${visibility(withDrafts)}`, [repoId]))!.n;
}

export async function releaseById(db: ReadTx, repoId: number, id: number): Promise<ReleaseRow | undefined> {
  return await db.get<ReleaseRow>(`${RELEASE} WHERE r.repo_id = ? AND r.id = ?`, [repoId, id]);
}

export async function releaseByTag(db: ReadTx, repoId: number, tagName: string): Promise<ReleaseRow | undefined> {
  return await db.get<ReleaseRow>(`${RELEASE} WHERE r.repo_id = ? AND r.tag_name = ?`, [repoId, tagName]);
}

/**
 * GitHub's latest release: the one made latest (`make_latest`, see markLatest) while it is published and not a
 * pre-release, else the newest such; `except`: what it is without that release.
 */
export async function latestRelease(db: ReadTx, repoId: number, except = 0): Promise<ReleaseRow | undefined> {
  return await db.get<ReleaseRow>(
    `${RELEASE} WHERE r.repo_id = ? AND r.draft = 0 AND r.prerelease = 0 AND r.id <> ?
     ORDER BY CASE WHEN r.id = (SELECT latest_release_id FROM repositories WHERE id = ?) THEN 0 ELSE 1 END, r.created_at DESC, r.id DESC LIMIT 1`,
    [repoId, except, repoId],
  );
}

/** Makes release `id` the latest (or, with null, leaves the latest to be the newest full release). */
export async function markLatest(tx: WriteTx, repoId: number, id: number | null): Promise<void> {
  await tx.run('UPDATE repositories SET latest_release_id = ? WHERE id = ?', [id, repoId]);
}

export interface ReleaseFields {
  tag_name: string;
  target_commitish: string;
  name: string | null;
  body: string | null;
  draft: boolean;
  prerelease: boolean;
  published_at: string | null;
}

/** `created_at`: GitHub's, the date of the tag's commit for a release published; `now` (a draft's) when not given. */
export async function insertRelease(tx: WriteTx, repoId: number, authorId: number, fields: ReleaseFields & { created_at?: string }, now: string): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO releases (repo_id, tag_name, target_commitish, name, body, draft, prerelease, author_id, created_at, updated_at, published_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [repoId, fields.tag_name, fields.target_commitish, fields.name, fields.body, fields.draft ? 1 : 0, fields.prerelease ? 1 : 0, authorId, fields.created_at ?? now, now, fields.published_at],
  );
  return rows[0]!.id;
}

/** `created_at` given (a draft published: its tag's commit date) replaces the one it had. */
export async function updateRelease(tx: WriteTx, id: number, fields: ReleaseFields & { created_at?: string }, now: string): Promise<void> {
  await tx.run('UPDATE releases SET tag_name = ?, target_commitish = ?, name = ?, body = ?, draft = ?, prerelease = ?, published_at = ?, created_at = COALESCE(?, created_at), updated_at = ? WHERE id = ?', [
    fields.tag_name,
    fields.target_commitish,
    fields.name,
    fields.body,
    fields.draft ? 1 : 0,
    fields.prerelease ? 1 : 0,
    fields.published_at,
    fields.created_at ?? null,
    now,
    id,
  ]);
}

/** Deletes a release of the repository with its asset rows and reactions; returns the asset files to remove once that is durable. */
export async function deleteRelease(tx: WriteTx, repoId: number, id: number): Promise<string[]> {
  const files = await tx.all<{ file: string }>('SELECT file FROM release_assets WHERE release_id = ?', [id]);
  await tx.run('DELETE FROM release_assets WHERE release_id = ?', [id]);
  await tx.run('DELETE FROM releases WHERE id = ?', [id]);
  await deleteReactionsTo(tx, repoId, 'release', id);
  return files.map((row) => row.file);
}

/** The assets of several releases in one query, by release id, oldest first. */
export async function assetsOfReleases(db: ReadTx, releaseIds: readonly number[]): Promise<Map<number, ReleaseAssetRow[]>> {
  const byRelease = new Map<number, ReleaseAssetRow[]>();
  if (releaseIds.length === 0) return byRelease;
  const ids = inList(releaseIds);
  for (const asset of await db.all<ReleaseAssetRow>(`${ASSET} WHERE a.release_id ${ids.sql} ORDER BY a.id`, ids.params)) {
    byRelease.set(asset.release_id, [...(byRelease.get(asset.release_id) ?? []), asset]);
  }
  return byRelease;
}

/** An asset of any release of the repository. */
export async function assetById(db: ReadTx, repoId: number, id: number): Promise<ReleaseAssetRow | undefined> {
  return await db.get<ReleaseAssetRow>(`${ASSET} WHERE r.repo_id = ? AND a.id = ?`, [repoId, id]);
}

/** The bytes the release assets of a repository take, for its quota. */
export async function releaseAssetBytesOf(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number | null }>('SELECT SUM(a.size) AS n FROM release_assets a JOIN releases r ON r.id = a.release_id WHERE r.repo_id = ?', [repoId]))?.n ?? 0;
}

export async function assetByName(db: ReadTx, releaseId: number, name: string): Promise<ReleaseAssetRow | undefined> {
  return await db.get<ReleaseAssetRow>(`${ASSET} WHERE a.release_id = ? AND a.name = ?`, [releaseId, name]);
}

export async function insertAsset(tx: WriteTx, releaseId: number, uploaderId: number, fields: AssetFields, now: string): Promise<number> {
  const { rows } = await tx.run<{ id: number }>(
    `INSERT INTO release_assets (release_id, name, label, content_type, size, digest, file, uploader_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    [releaseId, fields.name, fields.label, fields.content_type, fields.size, fields.digest, fields.file, uploaderId, now, now],
  );
  return rows[0]!.id;
}

export async function updateAsset(tx: WriteTx, id: number, name: string, label: string | null, now: string): Promise<void> {
  await tx.run('UPDATE release_assets SET name = ?, label = ?, updated_at = ? WHERE id = ?', [name, label, now, id]);
}

export async function deleteAsset(tx: WriteTx, id: number): Promise<void> {
  await tx.run('DELETE FROM release_assets WHERE id = ?', [id]);
}

export async function countDownload(tx: WriteTx, id: number): Promise<void> {
  await tx.run('UPDATE release_assets SET download_count = download_count + 1 WHERE id = ?', [id]);
}
