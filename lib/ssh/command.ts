import type { StreamService } from '../git/stream-transport.js';

/** What a client asked to run: one git service on one repository. */
export interface GitCommand {
  service: StreamService;
  owner: string;
  name: string;
}

const SERVICES: ReadonlySet<string> = new Set(['git-upload-pack', 'git-receive-pack', 'git-upload-archive']);
/** `git-upload-pack 'owner/repo.git'` as git sends it (also `git upload-pack`, a leading `/` from ssh:// URLs, no quotes). */
const COMMAND = /^git[- ](upload-pack|receive-pack|upload-archive) +(?:'([^']*)'|"([^"]*)"|(\S+))$/;
/** The names repositories and accounts may have; anything else (`..`, spaces, shell characters) is no repository. */
const PATH = /^\/?([A-Za-z0-9][A-Za-z0-9._-]*)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/;

/** The git service and repository of an SSH exec request, or undefined when it is none we run (never a shell). */
export function parseGitCommand(command: string): GitCommand | undefined {
  const match = COMMAND.exec(command.trim());
  if (!match) return undefined;
  const service = `git-${match[1]!}`;
  const path = PATH.exec(match[2] ?? match[3] ?? match[4] ?? '');
  if (!SERVICES.has(service) || !path) return undefined;
  return { service: service as StreamService, owner: path[1]!, name: path[2]! };
}

/** `git-lfs-authenticate owner/repo.git download|upload`, as git-lfs sends it over SSH. */
const LFS_AUTHENTICATE = /^git-lfs-authenticate +(?:'([^']*)'|(\S+)) +(upload|download)$/;

/** The repository and operation of a `git-lfs-authenticate` request, or undefined when it is not one. */
export function parseLfsAuthenticate(command: string): { owner: string; name: string; operation: 'upload' | 'download' } | undefined {
  const match = LFS_AUTHENTICATE.exec(command.trim());
  const path = match ? PATH.exec(match[1] ?? match[2] ?? '') : null;
  if (!match || !path) return undefined;
  return { owner: path[1]!, name: path[2]!, operation: match[3] as 'upload' | 'download' };
}

/** The clone URL of a repository over SSH: scp-like on port 22, an `ssh://` URL naming the port otherwise. */
export function sshCloneUrl(baseUrl: string, port: number, fullName: string): string {
  const host = new URL(baseUrl).hostname;
  return port === 22 ? `git@${host}:${fullName}.git` : `ssh://git@${host}:${port}/${fullName}.git`;
}
