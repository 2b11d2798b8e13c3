import { invalid, RepoHostError } from '../errors.js';
import { SUBSCRIBABLE_EVENTS } from '../events/types.js';
import { isSafeBranchName } from '../git/names.js';
import { gitDate, GitObjectError, type GitIdentity } from '../git/objects.js';
import { splitTreePath, type TreeChange } from '../git/tree-builder.js';
import { eventsOf, keyPair, permissionsOf, type AppInput } from '../services/apps.js';
import { MIN_FIXED_TOKEN } from '../services/credentials.js';
import { MAX_BODY, MAX_TITLE } from '../services/issues.js';
import { parseColor } from '../services/labels.js';
import { validateRepositoryName, validateUsername } from '../services/names.js';
import { optionalText, requiredText } from '../services/text-fields.js';
import { validateEmail, validatePassword } from '../services/users.js';
import type { FixtureComment, FixtureFile, FixturePerson } from '../fixtures.js';
import { ownValue } from '../own-value.js';

// Checks a whole fixture description before anything is written, and turns it into a plan the loader follows
// without further checks: every problem is reported with its path in the description.

/** Fixtures that cannot be loaded: every problem found, each naming its path (`fixtures.users[0].email: ...`). */
export class FixtureError extends RepoHostError {
  constructor(readonly problems: string[]) {
    const shown = problems.slice(0, 20);
    super('invalid', `invalid fixtures:\n  ${shown.join('\n  ')}${problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : ''}`);
    this.name = 'FixtureError';
  }
}

/** What validation needs to know of the host the fixtures go into (users and repositories it already has). */
export interface FixtureTarget {
  user(username: string): Promise<{ full_name: string; email: string } | undefined>;
  repositoryExists(owner: string, name: string): Promise<boolean>;
}

export interface PlannedCommit {
  message: string;
  author: GitIdentity;
  committer: GitIdentity;
  changes: Map<string, TreeChange>;
}

export interface PlannedRepository {
  owner: string;
  name: string;
  private: boolean;
  description: string;
  defaultBranch: string | undefined;
  collaborators: Array<[string, 'read' | 'write' | 'admin']>;
  branches: Array<{ name: string; from: string | undefined; commits: PlannedCommit[] }>;
  labels: Array<{ name: string; color: string; description: string }>;
  issues: Array<{ title: string; body: string; author: string; labels: string[]; closed: boolean; comments: PlannedComment[] }>;
  pulls: Array<{ title: string; body: string; head: string; base: string; author: string; closed: boolean; comments: PlannedComment[] }>;
  hooks: Array<{ url: string; events: string[]; secret: string | undefined; contentType: 'json' | 'form'; active: boolean }>;
}

export interface PlannedComment {
  author: string;
  body: string;
}

export interface PlannedUser {
  username: string;
  email: string;
  password: string;
  fullName: string;
  admin: boolean;
  tokens: Array<{ name: string; token: string }>;
  emailVerified: boolean;
}

export interface PlannedApp {
  input: AppInput;
  installations: Array<{ account: string; repositories: string[] | undefined }>;
}

export interface FixturePlan {
  users: PlannedUser[];
  repositories: PlannedRepository[];
  apps: PlannedApp[];
}

/** The first default commit date; each further commit of a repository is one minute later. */
const FIRST_DEFAULT_DATE = Date.UTC(2024, 0, 1);
const MODES = { file: '100644', executable: '100755', symlink: '120000' } as const;
const PERMISSIONS = ['read', 'write', 'admin'];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Collects problems; `check` runs one service validator and records its message under the path. */
class Problems {
  readonly list: string[] = [];
  add(path: string, message: string): void {
    this.list.push(`${path}: ${message}`);
  }
  check<T>(path: string, validate: () => T): T | undefined {
    try {
      return validate();
    } catch (error) {
      if (error instanceof RepoHostError || error instanceof GitObjectError) this.add(path, error.message);
      else throw error;
      return undefined;
    }
  }
  /** An object with only the given keys (a misspelt key would otherwise be silently ignored). */
  object(path: string, value: unknown, keys: readonly string[]): Json | undefined {
    if (!isObject(value)) {
      this.add(path, 'must be an object');
      return undefined;
    }
    for (const key of Object.keys(value)) if (!keys.includes(key)) this.add(`${path}.${key}`, `unknown field (expected one of ${keys.join(', ')})`);
    return value;
  }
  array(path: string, value: unknown): unknown[] {
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.add(path, 'must be an array');
      return [];
    }
    return value;
  }
  flag(path: string, value: unknown): boolean {
    if (value === undefined) return false;
    if (typeof value !== 'boolean') this.add(path, 'must be true or false');
    return value === true;
  }
}

/**
 * Validates `fixtures` against the rules of the services (the same validators) and the host's existing users and
 * repositories. Throws FixtureError listing every problem; returns the plan to load otherwise.
 */
export async function planFixtures(fixtures: unknown, target: FixtureTarget): Promise<FixturePlan> {
  const problems = new Problems();
  const root = problems.object('fixtures', fixtures, ['users', 'repositories', 'apps']) ?? {};
  const users = new Map<string, PlannedUser>();
  const tokens = new Set<string>();
  for (const [index, raw] of problems.array('fixtures.users', root.users).entries()) {
    const path = `fixtures.users[${index}]`;
    const user = planUser(problems, path, raw, tokens);
    if (!user) continue;
    if (users.has(user.username.toLowerCase())) problems.add(`${path}.username`, `'${user.username}' is listed twice`);
    else if (await target.user(user.username)) problems.add(`${path}.username`, `'${user.username}' already exists on the host`);
    else users.set(user.username.toLowerCase(), user);
  }
  const people = {
    known: async (username: string) => users.has(username.toLowerCase()) || await target.user(username) !== undefined,
    identity: async (username: string): Promise<{ name: string; email: string } | undefined> => {
      const planned = users.get(username.toLowerCase());
      if (planned) return { name: planned.fullName || planned.username, email: planned.email };
      const existing = await target.user(username);
      return existing && { name: existing.full_name || username, email: existing.email };
    },
  };
  const repositories: PlannedRepository[] = [];
  const names = new Set<string>();
  for (const [index, raw] of problems.array('fixtures.repositories', root.repositories).entries()) {
    const path = `fixtures.repositories[${index}]`;
    const repo = await planRepository(problems, path, raw, people);
    if (!repo) continue;
    const key = `${repo.owner}/${repo.name}`.toLowerCase();
    if (names.has(key)) problems.add(`${path}.name`, `${repo.owner}/${repo.name} is listed twice`);
    else if (await target.repositoryExists(repo.owner, repo.name)) problems.add(`${path}.name`, `${repo.owner}/${repo.name} already exists on the host`);
    names.add(key);
    repositories.push(repo);
  }
  const repositoryKnown = async (owner: string, name: string) => names.has(`${owner}/${name}`.toLowerCase()) || (await target.repositoryExists(owner, name));
  const apps: PlannedApp[] = [];
  for (const [index, raw] of problems.array('fixtures.apps', root.apps).entries()) {
    const app = await planApp(problems, `fixtures.apps[${index}]`, raw, people, repositoryKnown);
    if (app) apps.push(app);
  }
  if (problems.list.length > 0) throw new FixtureError(problems.list);
  return { users: [...users.values()], repositories, apps };
}

/** An app and its installations, checked with the rules AppService applies (whether its slug is free is left to it). */
async function planApp(problems: Problems, path: string, raw: unknown, people: People, repositoryKnown: (owner: string, name: string) => Promise<boolean>): Promise<PlannedApp | undefined> {
  const app = problems.object(path, raw, ['owner', 'name', 'slug', 'description', 'privateKey', 'webhookUrl', 'webhookSecret', 'permissions', 'events', 'installations']);
  if (!app) return undefined;
  const owner = typeof app.owner === 'string' ? app.owner : '';
  if (!(await people.known(owner))) problems.add(`${path}.owner`, 'must name a user of the fixtures or of the host');
  if (typeof app.name !== 'string' || !app.name.trim()) problems.add(`${path}.name`, 'is required');
  problems.check(`${path}.permissions`, () => permissionsOf(app.permissions));
  problems.check(`${path}.events`, () => eventsOf(app.events));
  if (app.webhookUrl !== undefined) problems.check(`${path}.webhookUrl`, () => hookUrl(app.webhookUrl));
  if (app.privateKey !== undefined) {
    try {
      await keyPair(app.privateKey);
    } catch (error) {
      problems.add(`${path}.privateKey`, (error as Error).message);
    }
  }
  const installations: PlannedApp['installations'] = [];
  for (const [index, rawInstallation] of problems.array(`${path}.installations`, app.installations).entries()) {
    const at = `${path}.installations[${index}]`;
    const installation = problems.object(at, rawInstallation, ['account', 'repositories']);
    if (!installation) continue;
    const account = typeof installation.account === 'string' ? installation.account : '';
    if (!(await people.known(account))) problems.add(`${at}.account`, 'must name a user of the fixtures or of the host');
    const repositories = installation.repositories === undefined ? undefined : (problems.array(`${at}.repositories`, installation.repositories) as string[]);
    for (const [repoIndex, name] of (repositories ?? []).entries()) {
      if (typeof name !== 'string' || !(await repositoryKnown(account, name))) problems.add(`${at}.repositories[${repoIndex}]`, `must name a repository of ${account}`);
    }
    installations.push({ account, repositories });
  }
  return { input: app as unknown as AppInput, installations };
}

function planUser(problems: Problems, path: string, raw: unknown, tokens: Set<string>): PlannedUser | undefined {
  const user = problems.object(path, raw, ['username', 'email', 'password', 'fullName', 'admin', 'tokens', 'emailVerified']);
  if (!user) return undefined;
  const username = problems.check(`${path}.username`, () => validateUsername(user.username));
  const email = problems.check(`${path}.email`, () => validateEmail(user.email));
  const password = problems.check(`${path}.password`, () => validatePassword(user.password));
  const fullName = problems.check(`${path}.fullName`, () => optionalText('fullName', user.fullName, 100)) ?? '';
  const admin = problems.flag(`${path}.admin`, user.admin);
  const emailVerified = problems.flag(`${path}.emailVerified`, user.emailVerified);
  const planned: PlannedUser['tokens'] = [];
  for (const [index, rawToken] of problems.array(`${path}.tokens`, user.tokens).entries()) {
    const at = `${path}.tokens[${index}]`;
    const token = problems.object(at, rawToken, ['name', 'token']);
    if (!token) continue;
    const name = problems.check(`${at}.name`, () => requiredText('name', token.name, 100));
    if (typeof token.token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(token.token) || token.token.length < MIN_FIXED_TOKEN || token.token.length > 200) {
      problems.add(`${at}.token`, `must be ${MIN_FIXED_TOKEN} to 200 letters, digits, '_' or '-'`);
    } else if (tokens.has(token.token)) problems.add(`${at}.token`, 'the same token value is given twice');
    else if (name !== undefined) {
      if (planned.some((other) => other.name === name)) problems.add(`${at}.name`, `a token named '${name}' is listed twice`);
      tokens.add(token.token);
      planned.push({ name, token: token.token });
    }
  }
  if (username === undefined || email === undefined || password === undefined) return undefined;
  return { username, email, password, fullName, admin, tokens: planned, emailVerified };
}

interface People {
  known(username: string): Promise<boolean>;
  identity(username: string): Promise<{ name: string; email: string } | undefined>;
}

async function planRepository(problems: Problems, path: string, raw: unknown, people: People): Promise<PlannedRepository | undefined> {
  const repo = problems.object(path, raw, ['owner', 'name', 'private', 'description', 'defaultBranch', 'collaborators', 'branches', 'labels', 'issues', 'pulls', 'hooks']);
  if (!repo) return undefined;
  const owner = typeof repo.owner === 'string' && await people.known(repo.owner) ? repo.owner : undefined;
  if (!owner) problems.add(`${path}.owner`, `must be a user of the fixtures or of the host, not ${JSON.stringify(repo.owner)}`);
  const name = problems.check(`${path}.name`, () => validateRepositoryName(repo.name));
  const isPrivate = problems.flag(`${path}.private`, repo.private);
  const description = problems.check(`${path}.description`, () => optionalText('description', repo.description, 2048)) ?? '';
  if (!owner || name === undefined) return undefined;

  const collaborators: PlannedRepository['collaborators'] = [];
  if (repo.collaborators !== undefined) {
    const given = problems.object(`${path}.collaborators`, repo.collaborators, Object.keys(isObject(repo.collaborators) ? repo.collaborators : {}));
    for (const [username, permission] of Object.entries(given ?? {})) {
      const at = `${path}.collaborators.${username}`;
      if (!await people.known(username)) problems.add(at, 'not a user of the fixtures or of the host');
      else if (username.toLowerCase() === owner.toLowerCase()) problems.add(at, 'the owner is always an admin of the repository');
      else if (typeof permission !== 'string' || !PERMISSIONS.includes(permission)) problems.add(at, "must be 'read', 'write' or 'admin'");
      else collaborators.push([username, permission as 'read' | 'write' | 'admin']);
    }
  }
  // Who may open issues and comment: anyone on a public repository, the owner and collaborators on a private one.
  const member = (username: string) => username.toLowerCase() === owner.toLowerCase() || collaborators.some(([other]) => other.toLowerCase() === username.toLowerCase());
  const participant = async (at: string, value: unknown): Promise<string | undefined> => {
    if (value === undefined) return owner;
    if (typeof value !== 'string' || !await people.known(value)) problems.add(at, `must be a user of the fixtures or of the host, not ${JSON.stringify(value)}`);
    else if (isPrivate && !member(value)) problems.add(at, `${value} cannot see the private repository (add them to collaborators)`);
    else return value;
    return undefined;
  };

  const branches = await planBranches(problems, path, repo.branches, owner, people);
  let defaultBranch: string | undefined;
  if (repo.defaultBranch !== undefined) {
    if (typeof repo.defaultBranch === 'string' && branches.some((branch) => branch.name === repo.defaultBranch)) defaultBranch = repo.defaultBranch;
    else problems.add(`${path}.defaultBranch`, 'must be one of the branches listed');
  }
  defaultBranch ??= branches[0]?.name;

  const labels: PlannedRepository['labels'] = [];
  for (const [index, rawLabel] of problems.array(`${path}.labels`, repo.labels).entries()) {
    const at = `${path}.labels[${index}]`;
    const label = problems.object(at, rawLabel, ['name', 'color', 'description']);
    if (!label) continue;
    const labelName = problems.check(`${at}.name`, () => requiredText('name', label.name, 50));
    const color = problems.check(`${at}.color`, () => parseColor(label.color));
    const labelDescription = problems.check(`${at}.description`, () => optionalText('description', label.description, 200)) ?? '';
    if (labelName === undefined || color === undefined) continue;
    if (labels.some((other) => other.name.toLowerCase() === labelName.toLowerCase())) problems.add(`${at}.name`, `a label named '${labelName}' is listed twice`);
    else labels.push({ name: labelName, color, description: labelDescription });
  }

  const comments = async (at: string, value: unknown): Promise<PlannedComment[]> => {
    const planned: PlannedComment[] = [];
    for (const [index, rawComment] of problems.array(at, value).entries()) {
      const commentPath = `${at}[${index}]`;
      const comment = problems.object(commentPath, rawComment, ['author', 'body']) as Partial<FixtureComment> | undefined;
      if (!comment) continue;
      const author = await participant(`${commentPath}.author`, comment.author);
      const body = problems.check(`${commentPath}.body`, () => requiredText('body', comment.body, MAX_BODY));
      if (author && body !== undefined) planned.push({ author, body });
    }
    return planned;
  };

  const issues: PlannedRepository['issues'] = [];
  for (const [index, rawIssue] of problems.array(`${path}.issues`, repo.issues).entries()) {
    const at = `${path}.issues[${index}]`;
    const issue = problems.object(at, rawIssue, ['title', 'body', 'author', 'labels', 'closed', 'comments']);
    if (!issue) continue;
    const title = problems.check(`${at}.title`, () => requiredText('title', issue.title, MAX_TITLE));
    const body = problems.check(`${at}.body`, () => optionalText('body', issue.body, MAX_BODY)) ?? '';
    const author = await participant(`${at}.author`, issue.author);
    const issueLabels = problems.array(`${at}.labels`, issue.labels).filter((label, labelIndex) => {
      const known = typeof label === 'string' && labels.some((other) => other.name.toLowerCase() === label.toLowerCase());
      if (!known) problems.add(`${at}.labels[${labelIndex}]`, `${JSON.stringify(label)} is not a label of the repository`);
      return known;
    }) as string[];
    const closed = problems.flag(`${at}.closed`, issue.closed);
    const issueComments = await comments(`${at}.comments`, issue.comments);
    if (title !== undefined && author) issues.push({ title, body, author, labels: issueLabels, closed, comments: issueComments });
  }

  const pulls: PlannedRepository['pulls'] = [];
  for (const [index, rawPull] of problems.array(`${path}.pulls`, repo.pulls).entries()) {
    const at = `${path}.pulls[${index}]`;
    const pull = problems.object(at, rawPull, ['title', 'body', 'head', 'base', 'author', 'closed', 'comments']);
    if (!pull) continue;
    const title = problems.check(`${at}.title`, () => requiredText('title', pull.title, MAX_TITLE));
    const body = problems.check(`${at}.body`, () => optionalText('body', pull.body, MAX_BODY)) ?? '';
    const author = await participant(`${at}.author`, pull.author);
    const [head, base] = (['head', 'base'] as const).map((field) => {
      const branch = pull[field];
      if (typeof branch === 'string' && branches.some((other) => other.name === branch)) return branch;
      problems.add(`${at}.${field}`, `${JSON.stringify(branch)} is not a branch of the repository`);
      return undefined;
    });
    const closed = problems.flag(`${at}.closed`, pull.closed);
    const pullComments = await comments(`${at}.comments`, pull.comments);
    if (head !== undefined && head === base) problems.add(`${at}.head`, 'head and base must be different branches');
    else if (head && base && !closed && pulls.some((other) => !other.closed && other.head === head && other.base === base)) {
      problems.add(at, `an open pull request already merges ${head} into ${base}`);
    } else if (title !== undefined && author && head && base) pulls.push({ title, body, head, base, author, closed, comments: pullComments });
  }
  const hooks: PlannedRepository['hooks'] = [];
  for (const [index, rawHook] of problems.array(`${path}.hooks`, repo.hooks).entries()) {
    const at = `${path}.hooks[${index}]`;
    const hook = problems.object(at, rawHook, ['url', 'events', 'secret', 'contentType', 'active']);
    if (!hook) continue;
    const url = problems.check(`${at}.url`, () => hookUrl(hook.url));
    const events = problems.array(`${at}.events`, hook.events ?? ['push']).filter((event, eventIndex) => {
      if (event === '*' || (SUBSCRIBABLE_EVENTS as readonly unknown[]).includes(event)) return true;
      problems.add(`${at}.events[${eventIndex}]`, `must be * or one of ${SUBSCRIBABLE_EVENTS.join(', ')}`);
      return false;
    }) as string[];
    const secret = problems.check(`${at}.secret`, () => optionalText('secret', hook.secret, 255)) || undefined;
    if (hook.contentType !== undefined && hook.contentType !== 'json' && hook.contentType !== 'form') problems.add(`${at}.contentType`, "must be 'json' or 'form'");
    const active = hook.active === undefined ? true : problems.flag(`${at}.active`, hook.active);
    if (url !== undefined) hooks.push({ url, events, secret, contentType: hook.contentType === 'form' ? 'form' : 'json', active });
  }
  return { owner, name, private: isPrivate, description, defaultBranch, collaborators, branches, labels, issues, pulls, hooks };
}

/** A webhook's address: http or https (whether the host may reach it is checked when the hook is made). */
function hookUrl(value: unknown): string {
  if (typeof value !== 'string') throw invalid('url is required');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('url must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('url must be an http or https URL');
  return url.href;
}

async function planBranches(problems: Problems, repoPath: string, raw: unknown, owner: string, people: People): Promise<PlannedRepository['branches']> {
  if (raw === undefined) return [];
  const given = problems.object(`${repoPath}.branches`, raw, Object.keys(isObject(raw) ? raw : {}));
  const planned: PlannedRepository['branches'] = [];
  // The files each branch has after its commits: a deletion must name a file, a file must not sit where a folder is.
  const filesOf = new Map<string, Set<string>>();
  let commitIndex = 0;
  for (const [name, rawBranch] of Object.entries(given ?? {})) {
    const path = `${repoPath}.branches.${name}`;
    if (!isSafeBranchName(name)) {
      problems.add(path, 'not a valid branch name');
      continue;
    }
    const branch = problems.object(path, rawBranch, ['from', 'commits']);
    if (!branch) continue;
    let from: string | undefined;
    if (branch.from !== undefined) {
      if (typeof branch.from === 'string' && filesOf.has(branch.from)) from = branch.from;
      else problems.add(`${path}.from`, `${JSON.stringify(branch.from)} is not a branch listed before this one`);
    }
    const files = new Set(from ? filesOf.get(from) : []);
    const rawCommits = problems.array(`${path}.commits`, branch.commits);
    if (rawCommits.length === 0 && branch.from === undefined) problems.add(`${path}.commits`, 'a branch without `from` needs at least one commit');
    const commits: PlannedCommit[] = [];
    for (const [index, rawCommit] of rawCommits.entries()) {
      const at = `${path}.commits[${index}]`;
      const defaultDate = new Date(FIRST_DEFAULT_DATE + commitIndex++ * 60_000).toISOString();
      const commit = await planCommit(problems, at, rawCommit, owner, people, files, defaultDate);
      if (commit) commits.push(commit);
    }
    filesOf.set(name, files);
    planned.push({ name, from, commits });
  }
  return planned;
}

async function planCommit(problems: Problems, path: string, raw: unknown, owner: string, people: People, files: Set<string>, defaultDate: string): Promise<PlannedCommit | undefined> {
  const commit = problems.object(path, raw, ['message', 'author', 'committer', 'date', 'committerDate', 'files']);
  if (!commit) return undefined;
  const message = typeof commit.message === 'string' && commit.message.trim() !== '' ? commit.message : undefined;
  if (message === undefined) problems.add(`${path}.message`, 'is required');
  const person = async (at: string, value: unknown, fallback: { name: string; email: string } | undefined) => {
    if (value === undefined) return fallback;
    if (typeof value === 'string') {
      const identity = await people.identity(value);
      if (!identity) problems.add(at, `${JSON.stringify(value)} is not a user of the fixtures or of the host`);
      return identity;
    }
    const given = problems.object(at, value, ['name', 'email']) as Extract<FixturePerson, object> | undefined;
    if (!given) return undefined;
    if (typeof given.name !== 'string' || given.name.trim() === '' || /[<>\n]/.test(given.name)) problems.add(`${at}.name`, 'must be a name without <, > or line breaks');
    else if (typeof given.email !== 'string' || /[<>\s]/.test(given.email)) problems.add(`${at}.email`, 'must be an e-mail address without <, > or spaces');
    else return { name: given.name, email: given.email };
    return undefined;
  };
  const date = (at: string, value: unknown, fallback: string) => {
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !Number.isFinite(Date.parse(value))) {
      problems.add(at, 'must be an ISO 8601 date, e.g. 2024-01-01T12:00:00Z');
      return undefined;
    }
    return problems.check(at, () => (gitDate(value), value));
  };
  const author = await person(`${path}.author`, commit.author, await people.identity(owner));
  const committer = await person(`${path}.committer`, commit.committer, author);
  const authorDate = date(`${path}.date`, commit.date, defaultDate);
  const committerDate = date(`${path}.committerDate`, commit.committerDate, authorDate ?? defaultDate);
  const changes = planFiles(problems, `${path}.files`, commit.files, files);
  if (message === undefined || !author || !committer || !authorDate || !committerDate || !changes) return undefined;
  return { message, author: { ...author, date: authorDate }, committer: { ...committer, date: committerDate }, changes };
}

/** The tree changes of one commit; `files` (the branch's files) is brought up to date. */
function planFiles(problems: Problems, path: string, raw: unknown, files: Set<string>): Map<string, TreeChange> | undefined {
  const changes = new Map<string, TreeChange>();
  if (raw === undefined) return changes;
  const given = problems.object(path, raw, Object.keys(isObject(raw) ? raw : {}));
  if (!given) return undefined;
  const count = problems.list.length;
  for (const [file, value] of Object.entries(given)) {
    const at = `${path}[${JSON.stringify(file)}]`;
    if (problems.check(at, () => splitTreePath(file)) === undefined) continue;
    if (value === null) {
      if (!files.delete(file)) problems.add(at, 'cannot delete a file the branch does not have');
      else changes.set(file, null);
      continue;
    }
    const content = fileContent(problems, at, value);
    if (!content) continue;
    const folder = [...files].find((other) => other.startsWith(`${file}/`));
    const names = file.split('/');
    const parent = names.slice(0, -1).map((_, index) => names.slice(0, index + 1).join('/')).find((prefix) => files.has(prefix));
    if (folder) problems.add(at, `is a folder on this branch (it holds ${folder}); delete its files first`);
    else if (parent) problems.add(at, `${parent} is a file on this branch, not a folder`);
    else {
      files.add(file);
      changes.set(file, content);
    }
  }
  return problems.list.length === count ? changes : undefined;
}

function fileContent(problems: Problems, path: string, value: unknown): { content: string | Uint8Array; mode?: string } | undefined {
  if (typeof value === 'string') return { content: value };
  const file = problems.object(path, value, ['content', 'base64', 'mode']) as FixtureFile | undefined;
  if (!file) return undefined;
  if ((file.content === undefined) === (file.base64 === undefined)) problems.add(path, 'give exactly one of content or base64');
  else if (file.content !== undefined && typeof file.content !== 'string') problems.add(`${path}.content`, 'must be a string');
  else if (file.base64 !== undefined && (typeof file.base64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(file.base64))) problems.add(`${path}.base64`, 'must be base64');
  else if (file.mode !== undefined && (typeof file.mode !== 'string' || !Object.hasOwn(MODES, file.mode))) problems.add(`${path}.mode`, "must be 'file', 'executable' or 'symlink'");
  else {
    const content = file.content ?? Buffer.from(file.base64!, 'base64');
    return file.mode ? { content, mode: ownValue(MODES, file.mode) } : { content };
  }
  return undefined;
}
