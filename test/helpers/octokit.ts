import { createAppAuth } from '@octokit/auth-app';
import { RequestError } from '@octokit/request-error';
import { Octokit } from '@octokit/rest';
import type { RepoHost } from '../../lib/index.js';

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

/**
 * An Octokit of a GitHub App installed on all of `account`'s repositories, as CI reports check runs (GitHub takes
 * them from apps only); `checks: write` and `statuses: write` unless `permissions` says otherwise.
 */
export async function installationOctokit(host: RepoHost, account: string, name = `CI of ${account}`, permissions: Record<string, string> = { checks: 'write', statuses: 'write', contents: 'read' }): Promise<Octokit> {
  const app = await host.admin.createApp({ owner: account, name, permissions, events: [] });
  const installation = await host.admin.installApp(app.slug, account);
  return new Octokit({ baseUrl: `${host.url}/api/v3`, authStrategy: createAppAuth, auth: { appId: app.id, privateKey: app.privateKey, installationId: installation.id } });
}

/** The installation access token an `installationOctokit` sends (for clients in other languages). */
export async function installationToken(octokit: Octokit): Promise<string> {
  return ((await octokit.auth({ type: 'installation' })) as { token: string }).token;
}
