import { RequestError } from '@octokit/request-error';
import type { Octokit } from '@octokit/rest';

/** Where GitHub's error bodies point (`documentation_url`), as the host answers them. */
export const DOCS = 'https://docs.github.com/rest';

/** The error a request fails with (Octokit throws RequestError with GitHub's body as `response.data`). */
export async function failure(request: Promise<unknown>): Promise<{ status: number; data: any }> {
  try {
    await request;
  } catch (error) {
    if (error instanceof RequestError) return { status: error.status, data: error.response?.data };
    throw error;
  }
  throw new Error('the request succeeded');
}

/** A repository as octokit's methods name it. */
export interface RepoIds {
  owner: string;
  repo: string;
}

/** Histories built through GitHub's API, for tests of what merges and deployments do with them. */
export function historyOf(octokit: Octokit, repo: RepoIds) {
  const tip = async (branch: string) => (await octokit.git.getRef({ ...repo, ref: `heads/${branch}` })).data.object.sha;
  return {
    /** The commit a branch points at. */
    tip,
    /** Writes `text` (the path, by default) at `path` on `branch`, replacing what is there: one commit; its id. */
    async write(branch: string, path: string, text = `${path}\n`): Promise<string> {
      const existing = await octokit.repos.getContent({ ...repo, path, ref: branch }).catch(() => undefined);
      const sha = existing && !Array.isArray(existing.data) ? existing.data.sha : undefined;
      return (await octokit.repos.createOrUpdateFileContents({ ...repo, path, branch, message: `Write ${path} on ${branch}`, content: Buffer.from(text).toString('base64'), sha })).data.commit.sha!;
    },
    /** A new branch where `from` is. */
    async branchFrom(branch: string, from: string): Promise<void> {
      await octokit.git.createRef({ ...repo, ref: `refs/heads/${branch}`, sha: await tip(from) });
    },
  };
}
