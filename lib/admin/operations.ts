import { seedRepository, type AdminSeedInput, type SeedResult } from './seed.js';
import type { Fixtures } from '../fixtures.js';
import { loadFixtures, type FixtureResult } from '../harness/load.js';
import type { AppContext } from '../context.js';
import type { RateLimitSimulation } from '../github/rate-limit.js';
import type { AppInput } from '../services/apps.js';
import { tokenSummary } from '../services/credentials.js';
import type { RepositorySummary } from '../services/repos.js';
import type { UserSummary } from '../services/users.js';

export type { AdminSeedInput, SeedResult };

/** An app as the admin operations answer: its ids and, once, its private key. */
export interface CreatedApp {
  id: number;
  slug: string;
  name: string;
  /** The bot account the app acts as (`<slug>[bot]`). */
  bot: string;
  /** PEM; shown only here (repohost keeps the public key). */
  privateKey: string;
}

export interface AdminUserInput {
  username: string;
  email: string;
  password: string;
  fullName?: string;
  admin?: boolean;
}

export interface AdminRepoInput {
  owner: string;
  name: string;
  description?: string;
  private?: boolean;
  /** Import all branches and tags from this git URL. */
  cloneUrl?: string;
}

export interface AdminUserListing extends UserSummary {
  email: string;
  admin: boolean;
  created_at: string;
}

/** Administrative operations shared by the `createRepoHost` handle and the command line. */
export interface AdminOperations {
  createUser(input: AdminUserInput): Promise<UserSummary>;
  /** Every user: the public summary plus what only an administrator sees. */
  listUsers(): Promise<AdminUserListing[]>;
  setPassword(username: string, password: string): Promise<void>;
  /** Confirms the user's address: commits by it are theirs from then on (GitHub's verified addresses). */
  verifyEmail(username: string): Promise<void>;
  /** Mints an API token and returns the plain value (shown only here). */
  createToken(username: string, name?: string): Promise<string>;
  listTokens(username: string): Promise<Array<{ id: number; name: string; last_eight: string; created_at: string }>>;
  revokeToken(username: string, idOrName: string): Promise<void>;
  /** Adds a public SSH key (OpenSSH's one-line form) to a user; the title defaults to the key's comment. */
  addSshKey(username: string, key: string, title?: string): Promise<{ id: number; title: string; fingerprint: string }>;
  listSshKeys(username: string): Promise<Array<{ id: number; title: string; fingerprint: string; created_at: string }>>;
  createRepo(input: AdminRepoInput): Promise<RepositorySummary>;
  /** Makes a GitHub App (its bot account too); the private key is returned here only. */
  createApp(input: AppInput): Promise<CreatedApp>;
  /** Installs an app on an account: all its repositories, or the named ones. Returns the installation's id. */
  installApp(slug: string, account: string, repositories?: string[]): Promise<{ id: number }>;
  /** Creates the repository if missing and fills it (see AdminSeedInput.from; no source: a README commit). */
  seedRepo(input: AdminSeedInput): Promise<SeedResult>;
  /**
   * Loads fixtures (users, tokens, repositories with their commits, labels, issues, pull requests, comments) after
   * checking all of them: a FixtureError naming every bad path, and nothing written, when any is wrong.
   */
  load(fixtures: Fixtures): Promise<FixtureResult>;
  /**
   * Makes `/api/v3` answer as a rate-limited GitHub until called again without arguments (harnesses testing back-off):
   * GitHub's headers count down from `remaining`, then every request gets its 403 until `resetAt`; with `secondary`,
   * every request gets the 403 of a secondary limit with `retry-after`.
   */
  simulateRateLimit(simulation?: RateLimitSimulation): void;
}

export function createAdminOperations(ctx: AppContext): AdminOperations {
  return {
    simulateRateLimit(simulation) {
      ctx.githubRateLimits.simulate(simulation);
    },
    async createUser(input) {
      const user = await ctx.users.register({
        username: input.username,
        email: input.email,
        password: input.password,
        fullName: input.fullName,
        isAdmin: input.admin ?? false,
      });
      return ctx.users.summary(user);
    },
    listUsers: async () =>
      (await ctx.users.list()).map((user) => ({ ...ctx.users.summary(user), email: user.email, admin: user.is_admin === 1, created_at: user.created_at })),
    setPassword: (username, password) => ctx.users.setPassword(username, password),
    async createToken(username, name) {
      const user = await ctx.users.requireByName(username);
      const label = name ?? `token-${ctx.options.now().toISOString()}`;
      return (await ctx.credentials.createApiToken(user.id, label)).token;
    },
    async addSshKey(username, key, title) {
      const user = await ctx.users.requireByName(username);
      const row = await ctx.sshKeys.add(user, { key, title });
      return { id: row.id, title: row.title, fingerprint: row.fingerprint };
    },
    async listSshKeys(username) {
      const user = await ctx.users.requireByName(username);
      const keys = [];
      for (let offset = 0; ; offset += 100) {
        const { items, total } = await ctx.sshKeys.list(user, { limit: 100, offset });
        keys.push(...items.map(({ id, title, fingerprint, created_at }) => ({ id, title, fingerprint, created_at })));
        if (offset + 100 >= total) return keys;
      }
    },
    async listTokens(username) {
      const user = await ctx.users.requireByName(username);
      const tokens = [];
      // The shell lists every token: walk the pages the API serves one at a time.
      for (let offset = 0; ; offset += 100) {
        const { items, total } = await ctx.credentials.apiTokens(user.id, { limit: 100, offset });
        tokens.push(...items.map(tokenSummary));
        if (offset + 100 >= total) return tokens;
      }
    },
    async verifyEmail(username) {
      await ctx.users.verifyEmail(username);
    },
    async revokeToken(username, idOrName) {
      await ctx.credentials.revokeApiToken((await ctx.users.requireByName(username)).id, idOrName);
    },
    async createRepo(input) {
      const owner = await ctx.users.requireByName(input.owner);
      const repo = await ctx.repos.create(owner, {
        name: input.name,
        description: input.description,
        visibility: input.private ? 'private' : 'public',
        cloneUrl: input.cloneUrl,
      });
      return await ctx.repos.summary(repo);
    },
    async createApp(input) {
      const { app, privateKey } = await ctx.apps.create(input);
      return { id: app.id, slug: app.slug, name: app.name, bot: `${app.slug}[bot]`, privateKey };
    },
    async installApp(slug, account, repositories) {
      return { id: (await ctx.apps.install(slug, account, repositories)).id };
    },
    seedRepo: (input) => seedRepository(ctx, input),
    load: (fixtures) => loadFixtures(ctx, fixtures),
  };
}
