import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { H3 } from 'h3';
import { acquireGitLauncher } from './git/launcher/index.js';
import { Highlighter } from './highlight/index.js';
import { checkPortFree, closeListener, listenStrict, nodeHandlerOf, type Listener } from './http/node-listener.js';
import type { AdminChannel } from './admin/channel-server.js';
import type { AppContext } from './context.js';
import { GitRepositories } from './git/repositories.js';
import { ConcurrencyGate } from './concurrency-gate.js';
import { createApp } from './http/app.js';
import { LruCache } from './git/lru.js';
import { pullStatsKey, type DiffStats } from './git/diff.js';
import { EventRecorder, HostEvents } from './events/index.js';
import { GitHubShapes } from './github/shapes.js';
import { GitHubRateLimits } from './github/rate-limit.js';
import { AnswerCache } from './answer-cache.js';
import { createWebhooks } from './webhooks/index.js';
import { resolveOptions, type RepoHostOptions, type ResolvedOptions } from './options.js';
import { createAdminOperations, type AdminOperations } from './admin/operations.js';
import { AssigneeService } from './services/assignees.js';
import { AvatarService } from './services/avatars.js';
import { MilestoneService } from './services/milestones.js';
import { BranchProtectionService } from './services/branch-protection.js';
import { CiService } from './services/ci.js';
import { CollaboratorService } from './services/collaborators.js';
import { DispatchService } from './services/dispatches.js';
import { ReactionService } from './services/reactions.js';
import { CommitPullsService } from './services/commit-pulls.js';
import { BranchMerges } from './services/branch-merges.js';
import { DeploymentService } from './services/deployments.js';
import { CommitCommentService } from './services/commit-comments.js';
import { ContributorService } from './services/contributors.js';
import { TopicService } from './services/topics.js';
import { EnvironmentService } from './services/environments.js';
import { CommitCommentShapes } from './github/commit-comment-shapes.js';
import { DeploymentShapes } from './github/deployment-shapes.js';
import { CredentialService } from './services/credentials.js';
import { AppService } from './services/apps.js';
import { CheckEvents } from './services/check-events.js';
import { NotificationService } from './services/notifications.js';
import { AppShapes } from './github/app-shapes.js';
import { CheckShapes } from './github/check-shapes.js';
import { IssueService } from './services/issues.js';
import { LabelService } from './services/labels.js';
import { CheckService } from './services/checks.js';
import { GitDataService } from './services/git-data.js';
import { ReleaseFiles } from './services/release-files.js';
import { ReleaseService } from './services/releases.js';
import { ReviewService } from './services/reviews.js';
import { ReviewShapes } from './github/review-shapes.js';
import { ReleaseShapes } from './github/release-shapes.js';
import { MergeGates } from './services/merge-gates.js';
import { PullCommentService } from './services/pull-comments.js';
import { PullService } from './services/pulls.js';
import { RefJournal } from './services/ref-journal.js';
import { RefUpdateService } from './services/ref-updates.js';
import { RepositoryService } from './services/repos.js';
import { LoginThrottle } from './services/login-throttle.js';
import { SuggestionService } from './services/suggestions.js';
import { PasswordHasher } from './services/password-hasher.js';
import { SearchService } from './services/search.js';
import { SocialService } from './services/social.js';
import { SshKeyService } from './services/ssh-keys.js';
import { LfsService } from './services/lfs.js';
import { sshCloneUrl } from './ssh/command.js';
import { CommitStatusService } from './services/statuses.js';
import { UserService } from './services/users.js';
import { Store } from './store/database.js';
import type { HostDatabase } from './store/interface.js';
import { loadSqlJs } from './store/sqlite.js';
import { realDatabasePath } from './store/database-path.js';
import { acquireLock, type DatabaseLock } from './store/lock.js';
import { hasUsers } from './store/queries/users.js';
import { RepoHostError } from './errors.js';
import { Snapshots, type HostSnapshot } from './harness/snapshots.js';
import type { SshGitServer } from './ssh/server.js';
import { unsupportedNode } from './node-support.js';

/** A running repohost instance. */
export interface RepoHost {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** The port git over SSH listens on (`sshPort` option), or undefined when the host does not serve SSH. */
  readonly sshPort: number | undefined;
  /** The h3 app, for in-process requests (`app.fetch(request)`). */
  readonly app: H3;
  /** Administrative operations without HTTP: users, tokens, repositories. */
  readonly admin: AdminOperations;
  /**
   * The events webhooks carry, for code in the same process: `host.events.on('push', listener)`,
   * `await host.events.waitFor('pull_request', (e) => e.action === 'closed')`.
   */
  readonly events: HostEvents;
  readonly options: ResolvedOptions;
  /**
   * Saves the whole state (database, repositories, avatars) at once, for `restore`. Cheap: repository objects are
   * shared with the snapshot through hard links. Snapshots live until the host closes.
   */
  snapshot(): Promise<HostSnapshot>;
  /**
   * Puts the whole state back as it was at `snapshot`, durably. Meant for between tests: requests still running
   * meanwhile may see either state. Background work is stopped or awaited first, and caches forgotten.
   */
  restore(snapshot: HostSnapshot): Promise<void>;
  /**
   * Back to the state right after start: the `fixtures` loaded, or empty for a host started on an empty database.
   * A host started on a database that had data has no such state (use snapshot and restore).
   */
  reset(): Promise<void>;
  /**
   * Resolves once every background job caused so far has finished: webhook deliveries (retries included),
   * mergeability and pull request updates after pushes, repository upkeep, files of a restore being removed.
   */
  idle(): Promise<void>;
  /** Stops listening, waits for in-flight requests, flushes the database and frees the port. */
  close(): Promise<void>;
}

export { PortInUseError } from './http/node-listener.js';

function buildContext(options: ResolvedOptions, store: HostDatabase, baseUrl: () => string, sshUrl: (fullName: string) => string): AppContext {
  const nowIso = () => options.now().toISOString();
  const git = new GitRepositories({
    root: join(options.dataDir, 'repositories'),
    changeFeed: store.changeFeed,
    allowLocalImport: options.allowLocalImport,
    transferIdleTimeoutMs: options.gitIdleTimeoutMs,
    importTimeoutMs: options.importTimeoutMs,
    maxImportBytes: options.maxImportBytes,
    importLowSpeedBytesPerSecond: options.importLowSpeedBytesPerSecond,
    importLowSpeedSeconds: options.importLowSpeedSeconds,
  });
  const avatarUrl = (user: { avatar_file: string | null; username: string }) =>
    user.avatar_file ? `${baseUrl()}/avatars/${user.avatar_file}` : `${baseUrl()}/avatars/default.svg`;
  // Account addresses are private: commits the host makes and events name `<username>@<noreply domain>`.
  const publicEmail = (user: { username: string }) => `${user.username}@${options.noreplyEmailDomain}`;
  // What pairs of commits change, counted by the pull requests' writes and read by every event that carries one.
  const pullStats = new LruCache<string, DiffStats>(256);
  const shapes = new GitHubShapes(baseUrl, avatarUrl, options.noreplyEmailDomain, sshUrl, (base, head) => pullStats.get(pullStatsKey(base, head)));
  const events = new HostEvents();
  const webhooks = createWebhooks(
    store,
    shapes,
    {
      timeoutMs: options.webhookTimeoutMs,
      maxAttempts: options.webhookMaxAttempts,
      retryDelayMs: options.webhookRetryDelayMs,
      allowLocalNetwork: options.allowLocalNetwork,
    },
    options.now,
    store.sharedLocks,
  );
  const recorder = new EventRecorder(shapes, events, webhooks.outbox, nowIso, baseUrl, publicEmail);
  const protection = new BranchProtectionService(store, nowIso);
  const statuses = new CommitStatusService(store, git, nowIso, recorder, protection);
  const passwords = new PasswordHasher();
  const throttle = new LoginThrottle(
    {
      perAccount: options.maxFailedLoginsPerAccount,
      perAddress: options.maxFailedLoginsPerAddress,
      windowMs: options.failedLoginWindowMs,
    },
    Date.now,
    store.changeFeed,
  );
  const repos = new RepositoryService(store, git, baseUrl, sshUrl, nowIso, new ConcurrencyGate(options.maxImports, options.maxImportsPerUser), recorder, store.sharedLocks);
  const journal = new RefJournal(store, nowIso, store.sharedLocks?.instance);
  const checkEvents = new CheckEvents(recorder, new CheckShapes(baseUrl), new AppShapes(baseUrl, shapes), nowIso);
  // Pushes ask installed apps for check suites, in the write that records them.
  recorder.branchHeadsListener = (tx, repo, sender, heads) => checkEvents.requestSuites(tx, repo, sender, heads);
  const checks = new CheckService(store, git, nowIso, recorder, checkEvents);
  const mergeGates = new MergeGates(store, statuses, checks, protection);
  const pulls = new PullService(store, git, nowIso, publicEmail, statuses, mergeGates, protection, recorder, journal, (repo, work) => repos.whileUnchanged(repo, work), pullStats);
  const refUpdates = new RefUpdateService(store, git, repos, pulls, mergeGates, protection, journal, store.sharedLocks);
  const gitData = new GitDataService(store, git, refUpdates, nowIso, publicEmail, (repo, work) => repos.whileUnchanged(repo, work));
  const reviews = new ReviewService(store, pulls, nowIso, recorder, new ReviewShapes(baseUrl, shapes));
  const branchMerges = new BranchMerges(store, git, refUpdates, nowIso, publicEmail, (repo, work) => repos.whileUnchanged(repo, work));
  return {
    options,
    store,
    git,
    gitTransfers: new ConcurrencyGate(options.maxGitTransfers, options.maxGitTransfersPerClient),
    passwords,
    loginThrottle: throttle,
    highlighter: new Highlighter(),
    users: new UserService(store, passwords, throttle, options.bcryptCost, avatarUrl, nowIso),
    credentials: new CredentialService(store, options.now),
    notifications: new NotificationService(store, nowIso),
    apps: new AppService(store, passwords, options.bcryptCost, options.now, options.allowLocalNetwork, options.noreplyEmailDomain),
    sshKeys: new SshKeyService(store, nowIso),
    repos,
    issues: new IssueService(store, nowIso, recorder),
    labels: new LabelService(store, nowIso, recorder),
    assignees: new AssigneeService(store, nowIso, recorder),
    milestones: new MilestoneService(store, nowIso, recorder),
    collaborators: new CollaboratorService(store, avatarUrl, nowIso, recorder),
    dispatches: new DispatchService(store, recorder),
    reactions: new ReactionService(store, nowIso),
    pulls,
    mergeGates,
    pullComments: new PullCommentService(store, pulls, nowIso, recorder),
    reviews,
    suggestions: new SuggestionService(reviews, gitData),
    refUpdates,
    branchMerges,
    gitData,
    topics: new TopicService(store),
    environments: new EnvironmentService(store, nowIso),
    contributors: new ContributorService(store, git, options.noreplyEmailDomain),
    commitComments: new CommitCommentService(store, gitData, recorder, new CommitCommentShapes(baseUrl, shapes), nowIso),
    deployments: new DeploymentService(store, gitData, branchMerges, recorder, new DeploymentShapes(baseUrl, shapes), nowIso),
    commitPulls: new CommitPullsService(store, gitData),
    releases: new ReleaseService(store, git, gitData, refUpdates, new ReleaseFiles(options.maxReleaseAssetBytes, options.maxReleaseBytesPerRepository), nowIso, recorder, new ReleaseShapes(baseUrl, shapes), (repo, work) => repos.whileUnchanged(repo, work)),
    lfs: new LfsService(store, git, { maxObjectBytes: options.maxLfsObjectBytes, maxRepositoryBytes: options.maxLfsBytesPerRepository }, nowIso, (repo, work) => repos.whileUnchanged(repo, work)),
    social: new SocialService(store, nowIso, recorder),
    search: new SearchService(store),
    avatars: new AvatarService(store, options.dataDir, options.maxAvatarBytes),
    ci: new CiService(store, git, statuses, nowIso),
    statuses,
    checks,
    protection,
    events,
    answers: new AnswerCache(() => store.dataVersion()),
    githubRateLimits: new GitHubRateLimits(options.now, options.rateLimit),
    recorder,
    webhooks: webhooks.service,
    deliveries: webhooks.worker,
    baseUrl,
    sshUrl,
  };
}

/** A host without an HTTP listener: the locked database, the services and the admin operations. */
export interface HostCore {
  readonly options: ResolvedOptions;
  readonly ctx: AppContext;
  readonly admin: AdminOperations;
  /** Sets the base URL used in links once it is known. */
  setBaseUrl(url: string): void;
  /** Sets the port SSH clone URLs name once it is known. */
  setSshPort(port: number): void;
  /** Flushes and closes the database, then releases its lock (and removes the temp dir of ':memory:'). */
  close(): Promise<void>;
}

/**
 * Opens the database under its single-writer lock and builds the services. `createRepoHost` listens on top
 * of it; the command line uses it alone to run admin operations when no server holds the database.
 */
export async function openHostCore(input: RepoHostOptions = {}): Promise<HostCore> {
  // The SQLite engine (WebAssembly) loads while the folders and the lock are made: Store.open awaits it (and sees
  // any failure) later. Started here rather than there, the first host starts ~50 ms sooner (issue 23).
  const postgres = Boolean(input.databaseUrl);
  if (!postgres) loadSqlJs().catch(() => undefined);
  const tempRoot = !postgres && (input.dbPath ?? ':memory:') === ':memory:' ? await mkdtemp(join(tmpdir(), 'repohost-')) : undefined;
  let lock: DatabaseLock | undefined;
  let store: HostDatabase | undefined;
  let ctx: AppContext | undefined;
  try {
    // Every file of the database is named after the real path: a link to it must meet the same lock.
    const dbPath = postgres || tempRoot || input.dbPath === undefined ? input.dbPath : await realDatabasePath(input.dbPath);
    const options = resolveOptions({ ...input, dbPath }, () => tempRoot!);
    if (options.databaseUrl !== undefined) {
      // Shared by every instance: no lock of ours, and the engine loaded only when asked for.
      const { PostgresStore } = await import('./store/postgres/engine.js');
      store = await PostgresStore.open(options.databaseUrl, { poolSize: options.databasePoolSize });
    } else {
      await mkdir(dirname(options.dbPath), { recursive: true });
      // The lock comes first: a second process must not even read a log that its owner is appending to.
      lock = await acquireLock(options.dbPath, { sync: !options.inMemory });
      store = await Store.open(options.dbPath, { snapshotThresholdBytes: options.snapshotThresholdBytes, acceptLogLoss: options.acceptLogLoss, ephemeral: options.inMemory });
    }
    let baseUrl = options.publicUrl ?? '';
    let sshPort: number | undefined;
    ctx = buildContext(options, store, () => baseUrl, (fullName) => (sshPort === undefined ? '' : sshCloneUrl(baseUrl, sshPort, fullName)));
    const [openStore, openCtx, openLock] = [store, ctx, lock];
    let closing: Promise<void> | undefined;
    return {
      options,
      ctx,
      admin: createAdminOperations(ctx),
      setBaseUrl: (url) => {
        baseUrl = options.publicUrl ?? url;
      },
      setSshPort: (port) => {
        sshPort = port;
      },
      close: () =>
        (closing ??= (async () => {
          try {
            openCtx.refUpdates.close();
            await openCtx.pulls.idle();
            await openCtx.deliveries.close();
            await openCtx.git.close();
            await openCtx.passwords.close();
            await openCtx.highlighter.close();
            await openStore.close();
          } finally {
            await openLock?.release();
            if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
          }
        })()),
    };
  } catch (error) {
    ctx?.refUpdates.close();
    await ctx?.deliveries.close().catch(() => undefined);
    await ctx?.git.close().catch(() => undefined);
    await ctx?.passwords.close().catch(() => undefined);
    await ctx?.highlighter.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    await lock?.release().catch(() => undefined);
    if (tempRoot) await rm(tempRoot, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Starts a repohost server. Resolves once it accepts connections, with its fixtures loaded: on a fixed port it
 * listens only then; on port 0 (which only listening reveals) requests arriving earlier wait until then.
 *
 * @example
 * const host = await createRepoHost({ port: 0 });
 * await host.admin.createUser({ username: 'alice', email: 'a@example.com', password: 'secret123' });
 * // ... git clone `${host.url}/alice/project.git`
 * await host.close();
 */
export async function createRepoHost(input: RepoHostOptions = {}): Promise<RepoHost> {
  const refused = unsupportedNode();
  if (refused) throw new Error(refused);
  const core = await openHostCore(input);
  const { options, ctx } = core;
  // git runs through a small launcher process once it is up (see git/launcher): forking the host blocks its loop.
  const log = (message: string) => void process.stderr.write(`${message}\n`);
  const releaseLauncher = acquireGitLauncher(log);
  let listener: Listener | undefined;
  let channel: AdminChannel | undefined;
  let snapshots: Snapshots | undefined;
  let ssh: SshGitServer | undefined;
  let setReady: (ready: boolean) => void = () => undefined;
  const ready = new Promise<boolean>((resolve) => (setReady = resolve));
  try {
    const app = createApp(ctx, log);
    const handler = nodeHandlerOf(app, ready);
    // Nothing may answer before the fixtures are loaded (issue 17 point 10b). A fixed port is known now: it is
    // checked (a busy port stops us before anything is written) and listened on at the end. Port 0 is only known
    // by listening, so that listener holds requests until the host is ready.
    if (options.port === 0) listener = await listenStrict(handler, 0, options.host);
    else await checkPortFree(options.port, options.host);
    const port = listener?.address.port ?? options.port;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
    core.setBaseUrl(url);
    if (options.sshPort !== undefined) {
      // Loaded only for a host that serves SSH; keys are accepted once the host is ready, as requests are.
      const [{ SshGitServer }, { loadHostKeys }] = await Promise.all([import('./ssh/server.js'), import('./ssh/host-keys.js')]);
      const hostKeys = await loadHostKeys(options.dataDir, options.inMemory);
      ssh = await SshGitServer.start(ctx, { hostKeys, host: options.host, port: options.sshPort, ready, log });
      core.setSshPort(ssh.port);
    }
    // Admin commands run while we serve reach the database through us (a ':memory:' one is ours alone).
    if (!options.inMemory && options.databaseUrl === undefined) channel = await (await import('./admin/channel-server.js')).startAdminChannel(options.dbPath, core.admin);
    // Ref changes a crash left unrecorded are recorded, and announced, before anything is answered.
    await ctx.refUpdates.reconcilePending((message) => process.stderr.write(`${message}\n`));
    // Deliveries left pending by the last run (a crash, a stop) go out now that links carry the right base URL.
    await ctx.deliveries.start();
    snapshots = new Snapshots(ctx);
    await snapshots.open();
    const startedEmpty = !await hasUsers(ctx.store);
    if (input.fixtures !== undefined) await core.admin.load(input.fixtures);
    const baseline = input.fixtures !== undefined || startedEmpty ? await snapshots.take() : undefined;
    setReady(true);
    listener ??= await listenStrict(handler, port, options.host);
    const [openListener, openChannel, openSnapshots, openSsh] = [listener, channel, snapshots, ssh];
    let closing: Promise<void> | undefined;
    return {
      url,
      port,
      sshPort: openSsh?.port,
      app,
      admin: core.admin,
      events: ctx.events,
      options,
      snapshot: () => openSnapshots.take(),
      restore: (snapshot) => openSnapshots.restore(snapshot),
      reset: async () => {
        if (!baseline) throw new RepoHostError('invalid', 'reset() needs a host started with fixtures or on an empty database; use snapshot() and restore()');
        await openSnapshots.restore(baseline);
      },
      idle: async () => {
        // In the order one causes the next: pull request updates schedule upkeep and record events to deliver.
        await ctx.pulls.idle();
        await ctx.git.whenIdle();
        await ctx.deliveries.settled();
        await openSnapshots.idle();
      },
      close: () =>
        (closing ??= (async () => {
          try {
            await Promise.all([closeListener(openListener), openSsh?.close()]);
            await openChannel?.close();
            await openSnapshots.close();
          } finally {
            await core.close();
            await releaseLauncher();
          }
        })()),
    };
  } catch (error) {
    setReady(false);
    await snapshots?.close().catch(() => undefined);
    await ssh?.close().catch(() => undefined);
    await channel?.close().catch(() => undefined);
    await listener?.close().catch(() => undefined);
    await core.close().catch(() => undefined);
    await releaseLauncher();
    throw error;
  }
}
