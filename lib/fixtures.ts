// The declarative description a harness starts a host with (`createRepoHost({ fixtures })`, `host.admin.load`,
// `repohost serve --fixtures file.json`). Plain JSON: harnesses in other languages write the same file.

/** Everything a host is loaded with; each part is optional. Loaded in order: users, repositories, then apps. */
export interface Fixtures {
  users?: FixtureUser[];
  repositories?: FixtureRepository[];
  apps?: FixtureApp[];
}

/** A GitHub App, made after the repositories (so loading them sends the app nothing), and its installations. */
export interface FixtureApp {
  /** A user of these fixtures or one the host already has. */
  owner: string;
  name: string;
  /** @default the name in lower case, other characters as '-'; its bot is `<slug>[bot]` */
  slug?: string;
  description?: string;
  /** The app's RSA private key (PEM), so a test can keep it; when absent one is made and returned by the load. */
  privateKey?: string;
  webhookUrl?: string;
  webhookSecret?: string;
  /** GitHub's repository permissions, e.g. `{ issues: 'write', contents: 'read' }`. @default { metadata: 'read' } */
  permissions?: Record<string, 'read' | 'write'>;
  /** Events the webhook receives (only those listed, as on GitHub). @default [] */
  events?: string[];
  installations?: FixtureInstallation[];
}

export interface FixtureInstallation {
  /** The account whose repositories the app is installed on. */
  account: string;
  /** Only these repositories of the account. @default all of them, those made later too */
  repositories?: string[];
}

export interface FixtureUser {
  username: string;
  email: string;
  password: string;
  fullName?: string;
  admin?: boolean;
  /** API tokens with values known in advance (16-200 of A-Z a-z 0-9 _ -), e.g. for a bot under test. */
  tokens?: Array<{ name: string; token: string }>;
  /** The address is confirmed: commits by it are the account's (GitHub's verified addresses). @default false */
  emailVerified?: boolean;
}

export interface FixtureRepository {
  /** A user of these fixtures or one the host already has. */
  owner: string;
  name: string;
  private?: boolean;
  description?: string;
  /** The branch HEAD names. @default the first branch listed */
  defaultBranch?: string;
  /** Other users' access: username → 'read' | 'write' | 'admin'. */
  collaborators?: Record<string, 'read' | 'write' | 'admin'>;
  /**
   * Branches in the order they are made; one with `from` starts at the tip of a branch listed before it, one
   * without starts a history of its own.
   */
  branches?: Record<string, FixtureBranch>;
  labels?: FixtureLabel[];
  /** Issues get numbers 1, 2, … in this order; pull requests are numbered after them. */
  issues?: FixtureIssue[];
  pulls?: FixturePull[];
  /** Webhooks, made once everything else is loaded (so the fixtures themselves send nothing but each hook's ping). */
  hooks?: FixtureHook[];
}

export interface FixtureHook {
  url: string;
  /** Event names (see SUBSCRIBABLE_EVENTS) or `*`. @default ['push'] */
  events?: string[];
  secret?: string;
  /** @default 'json' */
  contentType?: 'json' | 'form';
  /** @default true */
  active?: boolean;
}

export interface FixtureBranch {
  from?: string;
  commits?: FixtureCommit[];
}

/** A person in a commit: a username of the fixtures (its full name and e-mail) or a name and e-mail. */
export type FixturePerson = string | { name: string; email: string };

export interface FixtureCommit {
  message: string;
  /** @default the repository's owner */
  author?: FixturePerson;
  /** @default the author */
  committer?: FixturePerson;
  /**
   * Author date (ISO 8601). @default 2024-01-01T00:00:00Z plus one minute for each commit listed before it in the
   * repository, so commit ids are the same on every run.
   */
  date?: string;
  /** @default `date` */
  committerDate?: string;
  /** Path → new text content, a file with options, or null to delete the file. */
  files?: Record<string, string | FixtureFile | null>;
}

export interface FixtureFile {
  /** Text content; or give `base64` for bytes. */
  content?: string;
  base64?: string;
  /** @default 'file' (kept when an existing file changes) */
  mode?: 'file' | 'executable' | 'symlink';
}

export interface FixtureLabel {
  name: string;
  /** Six hexadecimal digits, e.g. 'd73a4a'. */
  color: string;
  description?: string;
}

export interface FixtureComment {
  /** @default the repository's owner */
  author?: string;
  body: string;
}

export interface FixtureIssue {
  title: string;
  body?: string;
  /** @default the repository's owner */
  author?: string;
  /** Names of labels of the repository. */
  labels?: string[];
  closed?: boolean;
  comments?: FixtureComment[];
}

export interface FixturePull {
  title: string;
  body?: string;
  /** Branches of the repository. */
  head: string;
  base: string;
  /** @default the repository's owner */
  author?: string;
  closed?: boolean;
  comments?: FixtureComment[];
}
