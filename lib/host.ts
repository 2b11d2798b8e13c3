import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { H3 } from 'h3';
import { toNodeHandler } from 'h3/node';
import { listen, type Listener } from 'listhen';
import type { AppContext } from './context.js';
import { GitRepositories } from './git/repositories.js';
import { createApp } from './http/app.js';
import { resolveOptions, type RepoHostOptions, type ResolvedOptions } from './options.js';
import { createAdminOperations, type AdminOperations } from './services/admin.js';
import { AvatarService } from './services/avatars.js';
import { CiService } from './services/ci.js';
import { CredentialService } from './services/credentials.js';
import { IssueService } from './services/issues.js';
import { PullService } from './services/pulls.js';
import { RepositoryService } from './services/repos.js';
import { SocialService } from './services/social.js';
import { UserService } from './services/users.js';
import { Store } from './store/database.js';

/** A running repohost instance. */
export interface RepoHost {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** The h3 app, for in-process requests (`app.fetch(request)`). */
  readonly app: H3;
  /** Administrative operations without HTTP: users, tokens, repositories. */
  readonly admin: AdminOperations;
  readonly options: ResolvedOptions;
  /** Stops listening, waits for in-flight requests, flushes the database and frees the port. */
  close(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} is already in use`);
    this.name = 'PortInUseError';
  }
}

function buildContext(options: ResolvedOptions, store: Store, baseUrl: () => string): AppContext {
  const nowIso = () => new Date().toISOString();
  const git = new GitRepositories({ root: join(options.dataDir, 'repositories'), allowLocalImport: options.allowLocalImport });
  const avatarUrl = (user: { avatar_file: string | null; username: string }) =>
    user.avatar_file ? `${baseUrl()}/avatars/${user.avatar_file}` : `${baseUrl()}/avatars/default.svg`;
  return {
    options,
    store,
    git,
    users: new UserService(store, options.bcryptCost, avatarUrl, nowIso),
    credentials: new CredentialService(store, () => new Date()),
    repos: new RepositoryService(store, git, baseUrl, nowIso),
    issues: new IssueService(store, nowIso),
    pulls: new PullService(store, nowIso),
    social: new SocialService(store, nowIso),
    avatars: new AvatarService(store, options.dataDir, options.maxAvatarBytes),
    ci: new CiService(store, nowIso),
    baseUrl,
  };
}

/**
 * Starts a repohost server. Resolves once it accepts connections.
 *
 * @example
 * const host = await createRepoHost({ port: 0 });
 * await host.admin.createUser({ username: 'alice', email: 'a@example.com', password: 'secret123' });
 * // ... git clone `${host.url}/alice/project.git`
 * await host.close();
 */
export async function createRepoHost(input: RepoHostOptions = {}): Promise<RepoHost> {
  const tempRoot = (input.dbPath ?? ':memory:') === ':memory:' ? await mkdtemp(join(tmpdir(), 'repohost-')) : undefined;
  const options = resolveOptions(input, () => tempRoot!);
  let store: Store | undefined;
  let ctx: AppContext | undefined;
  try {
    store = await Store.open(options.dbPath, { snapshotThresholdBytes: options.snapshotThresholdBytes });
    let baseUrl = options.publicUrl ?? '';
    ctx = buildContext(options, store, () => baseUrl);
    const app = createApp(ctx, (message) => process.stderr.write(`${message}\n`));
    const listener = await listenStrict(app, options);
    const port = listener.address.port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
    baseUrl = options.publicUrl ?? url;
    const openStore = store;
    const openCtx = ctx;
    let closing: Promise<void> | undefined;
    return {
      url,
      port,
      app,
      admin: createAdminOperations(ctx),
      options,
      close: () =>
        (closing ??= (async () => {
          await listener.close();
          await openCtx.git.close();
          await openStore.close();
          if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
        })()),
    };
  } catch (error) {
    await ctx?.git.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
    throw error;
  }
}

/** Listens on exactly the requested port: listhen would quietly pick another one when it is busy. */
async function listenStrict(app: H3, options: ResolvedOptions): Promise<Listener> {
  const listener = await listen(toNodeHandler(app), {
    port: options.port,
    hostname: options.host,
    showURL: false,
    isTest: true,
    autoClose: false,
    open: false,
    clipboard: false,
    qr: false,
  });
  if (options.port !== 0 && listener.address.port !== options.port) {
    await listener.close();
    throw new PortInUseError(options.port);
  }
  return listener;
}
