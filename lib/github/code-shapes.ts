import type { ChangedFile } from '../git/diff.js';
import type { CommitIdentity, CommitObject } from '../git/objects.js';
import type { ReadTx } from '../store/interface.js';
import { commitCommentCounts } from '../store/queries/commit-comments.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { GITHUB_API_PREFIX, nodeId } from './api-ids.js';
import { githubTime } from './time.js';
import type { GitHubCommit, GitHubContent, GitHubFile, GitHubGitActor, GitHubGitCommit, GitHubParentRef, GitHubUser, GitHubVerification } from './types.js';

/** What GitHub says of a commit's signature, which repohost does not verify (see GitHubVerification). */
function verificationOf(signature: NonNullable<CommitObject['signature']> | null): GitHubVerification {
  return signature
    ? { verified: false, reason: 'gpgverify_unavailable', signature: signature.signature, payload: signature.payload, verified_at: null }
    : { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null };
}

/** GitHub's objects of code: commits (of the commits API and of the git data API), the files they change, contents. */
export class CodeShapes {
  constructor(
    private readonly baseUrl: () => string,
    /** The accounts commits by these addresses are, by lower-cased address (queries/users.ts: accountsOfAddresses). */
    private readonly accountsOf: (db: ReadTx, emails: readonly string[]) => Promise<ReadonlyMap<string, GitHubUser>>,
  ) {}

  private api(path: string): string {
    return `${this.baseUrl()}${GITHUB_API_PREFIX}${path}`;
  }

  private repoPath(repo: RepositoryRow): string {
    return `/repos/${repo.owner_name}/${repo.name}`;
  }

  private actor(identity: CommitIdentity): GitHubGitActor {
    return { name: identity.name, email: identity.email, date: githubTime(identity.iso) };
  }

  private parents(repo: RepositoryRow, commit: CommitObject, kind: 'git/commits' | 'commits'): GitHubParentRef[] {
    return commit.parents.map((sha) => ({ sha, url: this.api(`${this.repoPath(repo)}/${kind}/${sha}`), html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/commit/${sha}` }));
  }

  /** The API URL of a commit (`/repos/:o/:r/commits/:sha`). */
  commitApiUrl(repo: RepositoryRow, sha: string): string {
    return this.api(`${this.repoPath(repo)}/commits/${sha}`);
  }

  /** A commit of the git data API. */
  gitCommit(repo: RepositoryRow, commit: CommitObject): GitHubGitCommit {
    const path = this.repoPath(repo);
    return {
      sha: commit.id,
      node_id: nodeId('Commit', `${repo.id}:${commit.id}`),
      url: this.api(`${path}/git/commits/${commit.id}`),
      html_url: `${this.baseUrl()}/${repo.owner_name}/${repo.name}/commit/${commit.id}`,
      author: this.actor(commit.author),
      committer: this.actor(commit.committer),
      message: commit.message,
      tree: { sha: commit.tree, url: this.api(`${path}/git/trees/${commit.tree}`) },
      parents: this.parents(repo, commit, 'git/commits'),
      // What git holds of its signature (not read: as an unsigned one); repohost verifies none.
      verification: verificationOf(commit.signature ?? null),
    };
  }

  /** The accounts of the commits' authors and committers, by lower-cased address. */
  private async accountsOfCommits(db: ReadTx, commits: readonly CommitObject[]): Promise<ReadonlyMap<string, GitHubUser>> {
    return await this.accountsOf(db, commits.flatMap((commit) => [commit.author.email, commit.committer.email]));
  }

  /** Commits of the commits API (a list: their comment counts and their accounts read in a fixed number of queries). */
  async commits(db: ReadTx, repo: RepositoryRow, commits: readonly CommitObject[]): Promise<GitHubCommit[]> {
    const comments = await commitCommentCounts(db, repo.id, commits.map((commit) => commit.id));
    const accounts = await this.accountsOfCommits(db, commits);
    return await Promise.all(commits.map(async (commit) => await this.commit(db, repo, commit, undefined, comments.get(commit.id) ?? 0, accounts)));
  }

  /**
   * A commit of the commits API, with its files when given; its comments counted unless `commentCount` says, its
   * author's and committer's accounts read unless `accounts` has them.
   */
  async commit(db: ReadTx, repo: RepositoryRow, commit: CommitObject, files?: readonly ChangedFile[], commentCount?: number, accounts?: ReadonlyMap<string, GitHubUser>): Promise<GitHubCommit> {
    const accountOf = accounts ?? (await this.accountsOfCommits(db, [commit]));
    const git = this.gitCommit(repo, commit);
    const url = this.commitApiUrl(repo, commit.id);
    const shaped: GitHubCommit = {
      sha: commit.id,
      node_id: nodeId('Commit', `${repo.id}:${commit.id}`),
      url,
      html_url: git.html_url,
      comments_url: `${url}/comments`,
      commit: {
        url: git.url,
        author: git.author,
        committer: git.committer,
        message: git.message,
        tree: git.tree,
        comment_count: commentCount ?? (await commitCommentCounts(db, repo.id, [commit.id])).get(commit.id) ?? 0,
        ...(commit.signature !== undefined ? { verification: verificationOf(commit.signature) } : {}),
      },
      author: accountOf.get(commit.author.email.toLowerCase()) ?? null,
      committer: accountOf.get(commit.committer.email.toLowerCase()) ?? null,
      parents: this.parents(repo, commit, 'commits'),
    };
    if (files) {
      const additions = files.reduce((sum, file) => sum + file.additions, 0);
      const deletions = files.reduce((sum, file) => sum + file.deletions, 0);
      shaped.stats = { additions, deletions, total: additions + deletions };
      shaped.files = files.map((file) => this.file(repo, commit.id, file));
    }
    return shaped;
  }

  /** A file a commit (or a comparison, or a pull request, whose head is `commit`) changed, with where to read it. */
  file(repo: RepositoryRow, commit: string, file: ChangedFile): GitHubFile {
    const path = file.filename.split('/').map(encodeURIComponent).join('/');
    const site = `${this.baseUrl()}/${repo.owner_name}/${repo.name}`;
    return {
      sha: file.blob,
      filename: file.filename,
      status: file.status === 'deleted' ? 'removed' : file.status,
      additions: file.additions,
      deletions: file.deletions,
      changes: file.changes,
      // The pages of this host serve what GitHub's blob and raw URLs do, under their own paths.
      blob_url: `${site}/src/commit/${commit}/${path}`,
      raw_url: `${site}/raw/commit/${commit}/${path}`,
      contents_url: `${this.api(`/repos/${repo.owner_name}/${repo.name}/contents/${path}`)}?ref=${commit}`,
      ...(file.patch !== undefined ? { patch: file.patch } : {}),
      ...(file.previous_filename ? { previous_filename: file.previous_filename } : {}),
    };
  }

  /**
   * A file or folder of the contents API on `ref`: with `content` (base64) for a file read whole, `null` for one too
   * large to include (GitHub's empty content with encoding `none`), nothing for listings and write answers. `raw`: how
   * the host's raw route names the ref (`branch`, `tag` or `commit`), for a file's `download_url`; `media`: the file
   * is stored with Git LFS and its download is the object's (GitHub's media URL, the same route here).
   */
  content(repo: RepositoryRow, entry: { type: GitHubContent['type']; name: string; path: string; sha: string; size: number }, ref: string, content?: Buffer | null, raw?: { kind: string; media?: boolean }): GitHubContent {
    const path = this.repoPath(repo);
    const encoded = entry.path.split('/').map(encodeURIComponent).join('/');
    const self = this.api(`${path}/contents/${encoded}?ref=${encodeURIComponent(ref)}`);
    const git = this.api(`${path}/git/${entry.type === 'dir' ? 'trees' : 'blobs'}/${entry.sha}`);
    const html = `${this.baseUrl()}/${repo.owner_name}/${repo.name}/${entry.type === 'dir' ? 'tree' : 'blob'}/${encodeURIComponent(ref)}/${encoded}`;
    return {
      type: entry.type,
      name: entry.name,
      path: entry.path,
      sha: entry.sha,
      size: entry.size,
      url: self,
      html_url: html,
      git_url: git,
      download_url: entry.type === 'file' && raw ? `${this.baseUrl()}/${repo.owner_name}/${repo.name}/${raw.media ? 'media' : 'raw'}/${raw.kind}/${ref.split('/').map(encodeURIComponent).join('/')}/${encoded}` : null,
      ...(content ? { content: content.toString('base64'), encoding: 'base64' as const } : content === null ? { content: '', encoding: 'none' as const } : {}),
      _links: { self, git, html },
    };
  }
}
