import { dirname, join, resolve, basename } from 'node:path';
import type { Fixtures } from './fixtures.js';
import type { RateLimitOptions } from './github/rate-limit.js';

/** Options accepted by `createRepoHost`. */
export interface RepoHostOptions {
  /**
   * TCP port to listen on; 0 picks a free port.
   * @default 0
   */
  port?: number;
  /**
   * Interface to bind.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * Largest Git LFS object, and most bytes of LFS objects one repository may hold (uploads beyond are refused: 413
   * and 507), in bytes.
   * @default 2147483648 (2 GiB) and 10737418240 (10 GiB)
   */
  maxLfsObjectBytes?: number;
  maxLfsBytesPerRepository?: number;
  /**
   * Serve git over SSH on this port too (0 picks a free port; off unless given). Users authenticate with the public
   * keys they add, or a repository's deploy keys. Host keys (Ed25519 and RSA) are generated once and kept in
   * `<dataDir>/ssh`. The SSH server binds the same interface as HTTP.
   * @default undefined (no SSH)
   */
  sshPort?: number;
  /**
   * SSH connections open at once, in all and from one client address; beyond them a connection is closed at once.
   * @default 128 and 16
   */
  maxSshConnections?: number;
  maxSshConnectionsPerAddress?: number;
  /**
   * Time an SSH connection has to authenticate, and the most keys it may offer, before it is closed.
   * @default 30000 and 10
   */
  sshLoginGraceMs?: number;
  maxSshAuthAttempts?: number;
  /**
   * Database file, or ':memory:' for a throwaway instance whose data lives in a temp dir removed on close.
   * @default ':memory:'
   */
  dbPath?: string;
  /**
   * Folder for git repositories and avatars.
   * @default `<dbPath without extension>-data` beside the database file (a temp dir for ':memory:')
   */
  dataDir?: string;
  /**
   * A PostgreSQL database (`postgres://user:password@host:5432/name`) instead of the embedded one: several instances
   * may share it, each given the same `dataDir` (required then). `dbPath` is not used.
   */
  databaseUrl?: string;
  /**
   * With `databaseUrl`: the most connections this instance's pool opens (it keeps two more, one for its locks and one
   * listening to the other instances). Several instances together must stay under PostgreSQL's `max_connections`.
   * @default 10
   */
  databasePoolSize?: number;
  /**
   * bcrypt cost for passwords; tests may lower it.
   * @default 10
   */
  bcryptCost?: number;
  /**
   * Largest accepted avatar upload, in bytes.
   * @default 1048576 (1 MiB)
   */
  maxAvatarBytes?: number;
  /**
   * Largest accepted form or JSON request body, in bytes (git transfers are not limited by this).
   * @default 1048576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * Largest accepted release asset, and most bytes of release assets one repository may hold (an upload beyond is
   * refused with 413), in bytes (streamed to disk, never held in memory). GitHub's limit per asset is 2 GiB.
   * @default 2147483648 (2 GiB) and 10737418240 (10 GiB)
   */
  maxReleaseAssetBytes?: number;
  maxReleaseBytesPerRepository?: number;
  /**
   * Let outgoing requests (imports with clone_url, webhook deliveries) reach loopback, private and link-local
   * addresses. Off by default so nobody with an account can make the host probe its own network; test harnesses,
   * whose receivers listen on localhost, turn it on.
   * @default false
   */
  allowLocalNetwork?: boolean;
  /**
   * `/api/v3`'s rate limits, counted per caller (account, installation, or address) with GitHub's allowances and
   * reported in `X-RateLimit-*` and `GET /rate_limit`. A host started from code counts but refuses nothing unless
   * `enforce` is set, so a test suite is never throttled by accident; `repohost serve` enforces them.
   * @default { enforce: false } and GitHub's allowances
   */
  rateLimit?: RateLimitOptions;
  /**
   * Allow `/new` imports (clone_url) from loopback, private and link-local addresses, webhooks left guarded.
   * @default the value of `allowLocalNetwork`
   */
  allowLocalImport?: boolean;
  /**
   * Time limit of one webhook delivery attempt, in milliseconds.
   * @default 10000
   */
  webhookTimeoutMs?: number;
  /**
   * Attempts of one webhook delivery (connection error, timeout, non-2xx answer) before it stays failed. A host
   * started from code makes one, as GitHub does (it never retries on its own: `host.idle()` then waits for no retry);
   * `repohost serve` makes 5, so a receiver that is down for a moment still gets its deliveries.
   * @default 1 (`repohost serve`: 5)
   */
  webhookMaxAttempts?: number;
  /**
   * Wait before the second attempt of a failed delivery, in milliseconds; each further wait is four times longer.
   * @default 1000 (then 4 s, 16 s, 64 s)
   */
  webhookRetryDelayMs?: number;
  /**
   * Write-log size in bytes after which a snapshot of the database is written and the log restarted.
   * @default 67108864 (64 MiB)
   */
  snapshotThresholdBytes?: number;
  /**
   * Start even when the end of the write log is damaged or missing in a way that may have lost acknowledged writes
   * (e.g. its tail cut off while its durable mark `<db>.wal-mark` was lost too): the records before the damage are
   * kept, the damaged bytes moved aside (`<log>.torn-<time>`) and the loss told on stderr. Without it such a start
   * fails with a `LogLossError` and changes no file. Meant for one start after deciding the writes cannot be
   * restored, not for every start. Damage that intact records follow is refused either way.
   * @default false
   */
  acceptLogLoss?: boolean;
  /**
   * Public base URL used in links (e.g. avatar URLs); defaults to the listening URL.
   * @default undefined
   */
  publicUrl?: string;
  /**
   * Imports (`/new` with clone_url) running at once on this host, and per user; beyond them the answer is 503
   * (429 for one user's) with Retry-After.
   * @default 4 and 2
   */
  maxImports?: number;
  maxImportsPerUser?: number;
  /**
   * Largest repository an import may bring, in bytes on disk; a larger one is stopped and refused with 413.
   * @default 1073741824 (1 GiB)
   */
  maxImportBytes?: number;
  /**
   * An import (http or https) that receives fewer than this many bytes per second for `importLowSpeedSeconds` is
   * given up on, instead of waiting for `importTimeoutMs`.
   * @default 1000 and 30
   */
  importLowSpeedBytesPerSecond?: number;
  importLowSpeedSeconds?: number;
  /**
   * Time limit of one import, in milliseconds.
   * @default 600000
   */
  importTimeoutMs?: number;
  /**
   * A git transfer in which no byte moved either way for this long is ended and its git processes killed
   * (a client that asks for a pack and never reads it). 0 turns it off.
   * @default 60000
   */
  gitIdleTimeoutMs?: number;
  /**
   * Git transfers (the `git-upload-pack` / `git-receive-pack` requests of clones, fetches and pushes) running at
   * once. Ref advertisements (`info/refs`, short) are counted apart, with the same caps. A request beyond a cap
   * waits up to `gitTransferWaitMs` for a place, then is answered 503 with Retry-After.
   * @default 16
   */
  maxGitTransfers?: number;
  /**
   * Git transfers one client address may run at once, so a single client cannot take every place.
   * @default 4
   */
  maxGitTransfersPerClient?: number;
  /**
   * How long a git request waits in line (first come, first served) for a place under `maxGitTransfers` /
   * `maxGitTransfersPerClient` before the answer is 503 with Retry-After, in milliseconds. 0: never waits.
   * @default 30000
   */
  gitTransferWaitMs?: number;
  /**
   * Failed password attempts on one account (from all client addresses together) after which the addresses that
   * failed on it must wait between attempts (429 + Retry-After): 1 second, doubling with each further failure, at
   * most `failedLoginWindowMs`. An address that has not failed on the account is never held back by it, so a stranger
   * cannot lock the owner out; API tokens keep working. The count is forgotten `failedLoginWindowMs` after the latest.
   * @default 10
   */
  maxFailedLoginsPerAccount?: number;
  /**
   * Failed sign-ins allowed per client address (an IPv6 address counts as its /64) within `failedLoginWindowMs`: password
   * attempts on all accounts together, and SSH connections that offered keys and closed with none accepted. Then its
   * password checks answer 429, and its SSH connections are closed at once, until the window ends.
   * @default 50
   */
  maxFailedLoginsPerAddress?: number;
  /**
   * Length of the window in which failed password attempts are counted, in milliseconds.
   * @default 900000 (15 minutes)
   */
  failedLoginWindowMs?: number;
  /**
   * Domain of the committer address of commits the host makes for a user (merges): `<username>@<domain>`, since
   * account e-mail addresses are private.
   * @default 'users.noreply.repohost'
   */
  noreplyEmailDomain?: string;
  /**
   * The host's clock: every timestamp it writes (accounts, tokens, issues, pull requests, comments, events, webhook
   * deliveries) and the dates of commits it makes (merges, fixtures, seeds). Tests pass a fixed or stepping clock so
   * that timestamps and commit ids are the same on every run. Timers (retries, time limits) keep real time.
   * @default () => new Date()
   */
  now?: () => Date;
  /**
   * Users, repositories (with commits), labels, issues and pull requests loaded before `createRepoHost` resolves;
   * `host.reset()` goes back to the state right after they were loaded. See `Fixtures`.
   */
  fixtures?: Fixtures;
}

/** Options after defaults are applied; frozen. */
export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly dbPath: string;
  readonly inMemory: boolean;
  /** Set when the database is PostgreSQL (then `dbPath` names nothing). */
  readonly databaseUrl: string | undefined;
  /** The most connections of the PostgreSQL pool (with `databaseUrl`). */
  readonly databasePoolSize: number;
  readonly dataDir: string;
  readonly bcryptCost: number;
  readonly maxAvatarBytes: number;
  readonly maxBodyBytes: number;
  readonly maxReleaseAssetBytes: number;
  readonly maxReleaseBytesPerRepository: number;
  readonly allowLocalNetwork: boolean;
  readonly rateLimit: RateLimitOptions;
  readonly allowLocalImport: boolean;
  readonly webhookTimeoutMs: number;
  readonly webhookMaxAttempts: number;
  readonly webhookRetryDelayMs: number;
  readonly snapshotThresholdBytes: number;
  readonly acceptLogLoss: boolean;
  readonly publicUrl: string | undefined;
  readonly noreplyEmailDomain: string;
  readonly maxImports: number;
  readonly maxImportsPerUser: number;
  readonly maxImportBytes: number;
  readonly importLowSpeedBytesPerSecond: number;
  readonly importLowSpeedSeconds: number;
  readonly importTimeoutMs: number;
  readonly gitIdleTimeoutMs: number;
  readonly maxGitTransfers: number;
  readonly maxGitTransfersPerClient: number;
  readonly gitTransferWaitMs: number;
  readonly maxFailedLoginsPerAccount: number;
  readonly maxFailedLoginsPerAddress: number;
  readonly failedLoginWindowMs: number;
  readonly maxLfsObjectBytes: number;
  readonly maxLfsBytesPerRepository: number;
  readonly sshPort: number | undefined;
  readonly maxSshConnections: number;
  readonly maxSshConnectionsPerAddress: number;
  readonly sshLoginGraceMs: number;
  readonly maxSshAuthAttempts: number;
  readonly now: () => Date;
}

/** PostgreSQL's own ceiling on `max_connections` is far above this; a pool larger than this is a typo. */
export const MAX_DATABASE_POOL_SIZE = 1000;

function positiveInteger(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new TypeError(`repohost: option ${name} must be an integer >= ${min}`);
  return value;
}

function emailDomain(value: string | undefined): string {
  if (value === undefined) return 'users.noreply.repohost';
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(value)) throw new TypeError('repohost: option noreplyEmailDomain must be a domain name');
  return value;
}

/** The clock option, checked to answer a valid Date each time it is read (a bad clock must not write 'Invalid Date'). */
function clock(now: (() => Date) | undefined): () => Date {
  if (now === undefined) return () => new Date();
  if (typeof now !== 'function') throw new TypeError('repohost: option now must be a function returning a Date');
  return () => {
    const date = now();
    if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new TypeError('repohost: option now returned something that is not a valid Date');
    return date;
  };
}

/**
 * Applies defaults once. `tempDir` is the folder used for ':memory:' instances.
 */
export function resolveOptions(options: RepoHostOptions, tempDir: () => string): ResolvedOptions {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError('repohost: option port must be an integer from 0 to 65535');
  const sshPort = options.sshPort ?? undefined;
  if (sshPort !== undefined && (!Number.isInteger(sshPort) || sshPort < 0 || sshPort > 65535)) throw new TypeError('repohost: option sshPort must be an integer from 0 to 65535');
  const databaseUrl = options.databaseUrl || undefined;
  if (databaseUrl !== undefined && !/^postgres(?:ql)?:\/\//.test(databaseUrl)) throw new TypeError('repohost: option databaseUrl must be a postgres:// or postgresql:// URL');
  if (databaseUrl !== undefined && !options.dataDir) throw new TypeError('repohost: option databaseUrl needs dataDir too (the folder of repositories, shared by every instance)');
  if (databaseUrl === undefined && options.databasePoolSize !== undefined) throw new TypeError('repohost: option databasePoolSize needs databaseUrl (the embedded database has no pool)');
  const databasePoolSize = positiveInteger('databasePoolSize', options.databasePoolSize, 10);
  if (databasePoolSize > MAX_DATABASE_POOL_SIZE) throw new TypeError(`repohost: option databasePoolSize must be at most ${MAX_DATABASE_POOL_SIZE}`);
  const requestedDb = databaseUrl === undefined ? (options.dbPath ?? ':memory:') : ':memory:';
  const inMemory = databaseUrl === undefined && requestedDb === ':memory:';
  const root = inMemory ? tempDir() : undefined;
  const dbPath = root ? join(root, 'repohost.db') : resolve(requestedDb);
  const defaultData = join(dirname(dbPath), `${basename(dbPath).replace(/\.[^.]*$/, '')}-data`);
  const bcryptCost = positiveInteger('bcryptCost', options.bcryptCost, 10, 4);
  if (bcryptCost > 31) throw new TypeError('repohost: option bcryptCost must be at most 31');
  return Object.freeze({
    port,
    host: options.host ?? '127.0.0.1',
    dbPath,
    inMemory,
    databaseUrl,
    databasePoolSize,
    dataDir: options.dataDir ? resolve(options.dataDir) : defaultData,
    bcryptCost,
    maxAvatarBytes: positiveInteger('maxAvatarBytes', options.maxAvatarBytes, 1024 * 1024),
    maxBodyBytes: positiveInteger('maxBodyBytes', options.maxBodyBytes, 1024 * 1024),
    maxReleaseAssetBytes: positiveInteger('maxReleaseAssetBytes', options.maxReleaseAssetBytes, 2 * 1024 * 1024 * 1024),
    maxReleaseBytesPerRepository: positiveInteger('maxReleaseBytesPerRepository', options.maxReleaseBytesPerRepository, 10 * 1024 ** 3),
    allowLocalNetwork: options.allowLocalNetwork ?? false,
    rateLimit: { ...options.rateLimit },
    allowLocalImport: options.allowLocalImport ?? options.allowLocalNetwork ?? false,
    webhookTimeoutMs: positiveInteger('webhookTimeoutMs', options.webhookTimeoutMs, 10_000),
    webhookMaxAttempts: positiveInteger('webhookMaxAttempts', options.webhookMaxAttempts, 1),
    webhookRetryDelayMs: positiveInteger('webhookRetryDelayMs', options.webhookRetryDelayMs, 1000, 0),
    snapshotThresholdBytes: positiveInteger('snapshotThresholdBytes', options.snapshotThresholdBytes, 64 * 1024 * 1024, 1024),
    acceptLogLoss: options.acceptLogLoss === true,
    publicUrl: options.publicUrl?.replace(/\/+$/, ''),
    noreplyEmailDomain: emailDomain(options.noreplyEmailDomain),
    maxImports: positiveInteger('maxImports', options.maxImports, 4),
    maxImportsPerUser: positiveInteger('maxImportsPerUser', options.maxImportsPerUser, 2),
    maxImportBytes: positiveInteger('maxImportBytes', options.maxImportBytes, 1024 ** 3),
    importLowSpeedBytesPerSecond: positiveInteger('importLowSpeedBytesPerSecond', options.importLowSpeedBytesPerSecond, 1000),
    importLowSpeedSeconds: positiveInteger('importLowSpeedSeconds', options.importLowSpeedSeconds, 30),
    importTimeoutMs: positiveInteger('importTimeoutMs', options.importTimeoutMs, 600_000),
    gitIdleTimeoutMs: positiveInteger('gitIdleTimeoutMs', options.gitIdleTimeoutMs, 60_000, 0),
    maxGitTransfers: positiveInteger('maxGitTransfers', options.maxGitTransfers, 16),
    maxGitTransfersPerClient: positiveInteger('maxGitTransfersPerClient', options.maxGitTransfersPerClient, 4),
    gitTransferWaitMs: positiveInteger('gitTransferWaitMs', options.gitTransferWaitMs, 30_000, 0),
    maxFailedLoginsPerAccount: positiveInteger('maxFailedLoginsPerAccount', options.maxFailedLoginsPerAccount, 10),
    maxFailedLoginsPerAddress: positiveInteger('maxFailedLoginsPerAddress', options.maxFailedLoginsPerAddress, 50),
    failedLoginWindowMs: positiveInteger('failedLoginWindowMs', options.failedLoginWindowMs, 15 * 60_000),
    maxLfsObjectBytes: positiveInteger('maxLfsObjectBytes', options.maxLfsObjectBytes, 2 * 1024 ** 3),
    maxLfsBytesPerRepository: positiveInteger('maxLfsBytesPerRepository', options.maxLfsBytesPerRepository, 10 * 1024 ** 3),
    sshPort,
    maxSshConnections: positiveInteger('maxSshConnections', options.maxSshConnections, 128),
    maxSshConnectionsPerAddress: positiveInteger('maxSshConnectionsPerAddress', options.maxSshConnectionsPerAddress, 16),
    sshLoginGraceMs: positiveInteger('sshLoginGraceMs', options.sshLoginGraceMs, 30_000),
    maxSshAuthAttempts: positiveInteger('maxSshAuthAttempts', options.maxSshAuthAttempts, 10),
    now: clock(options.now),
  });
}
