import type { ReadTx } from '../store/interface.js';
import type { Release, ReleaseAssetRow } from '../store/queries/releases.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { usersByNames } from '../store/queries/users.js';
import { reactionCounts, type ReactionCounts } from '../store/queries/reactions.js';
import { reactionRollup, type GitHubShapes } from './shapes.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubReactions, GitHubUser } from './types.js';

/** GitHub's release asset object. */
export interface GitHubReleaseAsset {
  url: string;
  browser_download_url: string;
  id: number;
  node_id: string;
  name: string;
  label: string | null;
  state: 'uploaded';
  content_type: string;
  size: number;
  digest: string | null;
  download_count: number;
  created_at: string;
  updated_at: string;
  uploader: GitHubUser | null;
}

/** GitHub's release object. */
export interface GitHubRelease {
  url: string;
  assets_url: string;
  upload_url: string;
  html_url: string;
  id: number;
  author: GitHubUser | null;
  node_id: string;
  tag_name: string;
  target_commitish: string;
  name: string | null;
  draft: boolean;
  prerelease: boolean;
  immutable: boolean;
  created_at: string;
  updated_at: string;
  published_at: string | null;
  assets: GitHubReleaseAsset[];
  tarball_url: string | null;
  zipball_url: string | null;
  body: string | null;
  /** Only once someone reacted to it, as on GitHub. */
  reactions?: GitHubReactions;
}

/** Where asset uploads go: GitHub Enterprise Server's upload path (Octokit's `baseUrl` for uploadReleaseAsset). */
export const UPLOADS_PREFIX = '/api/uploads';

/**
 * Builds GitHub's release and asset objects (the API and `release` webhook payloads), reading every account a page
 * names in one query.
 */
export class ReleaseShapes {
  constructor(
    private readonly baseUrl: () => string,
    private readonly shapes: GitHubShapes,
  ) {}

  /** The repository's web address (release notes link its pages). */
  htmlUrl(repo: RepositoryRow): string {
    return `${this.baseUrl()}/${repo.owner_name}/${repo.name}`;
  }

  private repoApi(repo: RepositoryRow, path: string): string {
    return `${this.baseUrl()}${GITHUB_API_PREFIX}/repos/${repo.owner_name}/${repo.name}${path}`;
  }

  async releases(db: ReadTx, repo: RepositoryRow, releases: readonly Release[]): Promise<GitHubRelease[]> {
    const users = await this.users(db, releases.flatMap((release) => [release.author, ...release.assets.map((asset) => asset.uploader)]));
    const reactions = await reactionCounts(db, repo.id, 'release', releases.map((release) => release.id));
    return releases.map((release) => this.release(repo, release, users, reactions.get(release.id)));
  }

  async assets(db: ReadTx, repo: RepositoryRow, assets: readonly ReleaseAssetRow[]): Promise<GitHubReleaseAsset[]> {
    const users = await this.users(db, assets.map((asset) => asset.uploader));
    return assets.map((asset) => this.asset(repo, asset, users));
  }

  private async users(db: ReadTx, names: readonly string[]): Promise<Map<string, GitHubUser>> {
    const rows = await usersByNames(db, [...new Set(names)]);
    return new Map([...rows].map(([name, row]) => [name, this.shapes.user(row)]));
  }

  private release(repo: RepositoryRow, release: Release, users: ReadonlyMap<string, GitHubUser>, reactions: ReactionCounts | undefined): GitHubRelease {
    const url = this.repoApi(repo, `/releases/${release.id}`);
    const published = release.draft === 0;
    return {
      url,
      assets_url: `${url}/assets`,
      upload_url: `${this.baseUrl()}${UPLOADS_PREFIX}/repos/${repo.owner_name}/${repo.name}/releases/${release.id}/assets{?name,label}`,
      html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/releases/tag/${encodeURIComponent(release.tag_name)}`,
      id: release.id,
      author: users.get(release.author.toLowerCase()) ?? null,
      node_id: nodeId('Release', release.id),
      tag_name: release.tag_name,
      target_commitish: release.target_commitish,
      name: release.name,
      draft: !published,
      prerelease: release.prerelease === 1,
      immutable: false,
      created_at: githubTime(release.created_at),
      updated_at: githubTime(release.updated_at),
      published_at: githubTime(release.published_at),
      assets: release.assets.map((asset) => this.asset(repo, asset, users)),
      // A draft's tag may not exist yet: GitHub gives no archive links for it.
      tarball_url: published ? this.repoApi(repo, `/tarball/${encodeURIComponent(release.tag_name)}`) : null,
      zipball_url: published ? this.repoApi(repo, `/zipball/${encodeURIComponent(release.tag_name)}`) : null,
      body: release.body,
      ...(reactions ? { reactions: reactionRollup(url, reactions) } : {}),
    };
  }

  private asset(repo: RepositoryRow, asset: ReleaseAssetRow, users: ReadonlyMap<string, GitHubUser>): GitHubReleaseAsset {
    return {
      url: this.repoApi(repo, `/releases/assets/${asset.id}`),
      browser_download_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/releases/download/${encodeURIComponent(asset.tag_name)}/${encodeURIComponent(asset.name)}`,
      id: asset.id,
      node_id: nodeId('ReleaseAsset', asset.id),
      name: asset.name,
      label: asset.label,
      state: 'uploaded',
      content_type: asset.content_type,
      size: asset.size,
      digest: asset.digest,
      download_count: asset.download_count,
      created_at: githubTime(asset.created_at),
      updated_at: githubTime(asset.updated_at),
      uploader: users.get(asset.uploader.toLowerCase()) ?? null,
    };
  }
}
