import type { AppContext } from '../context.js';
import { importCommits, type HistoryCommit } from '../git/history-import.js';
import { setHeadBranch, updateRef } from '../git/ref-writes.js';
import { diffRefs } from '../git/refs.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import type { UserRow } from '../store/queries/users.js';
import { planFixtures, type PlannedRepository } from './validate.js';

/** What loading made: the users, and each repository's branches with their tip commits (the same on every run). */
export interface FixtureResult {
  users: string[];
  repositories: Array<{ full_name: string; branches: Record<string, string> }>;
  /** Each app's id, slug, private key (the one given, or the one made) and installation ids by account. */
  apps: Array<{ id: number; slug: string; privateKey: string; installations: Record<string, number> }>;
}

/**
 * Loads fixtures into the host: validated whole first (nothing is written when anything is wrong), then written
 * through the services, so every rule applies and every event is recorded: users and their tokens, then each
 * repository with its collaborators, its commits (written in one fast-import run of the git object plumbing and recorded like a push),
 * labels, issues and pull requests with their comments. Runs one step at a time so ids and numbers come out in
 * the order of the fixtures.
 */
export async function loadFixtures(ctx: AppContext, fixtures: unknown): Promise<FixtureResult> {
  const plan = await planFixtures(fixtures, {
    user: async (username) => await ctx.users.byName(username),
    repositoryExists: async (owner, name) => await ctx.repos.findByName(owner, name) !== undefined,
  });
  for (const user of plan.users) {
    const row = await ctx.users.register({ username: user.username, email: user.email, password: user.password, fullName: user.fullName, isAdmin: user.admin, emailVerified: user.emailVerified });
    for (const token of user.tokens) await ctx.credentials.storeApiToken(row.id, token.name, token.token);
  }
  const repositories: FixtureResult['repositories'] = [];
  for (const planned of plan.repositories) {
    const owner = await ctx.users.requireByName(planned.owner);
    const repo = await ctx.repos.create(owner, { name: planned.name, description: planned.description, visibility: planned.private ? 'private' : 'public' });
    for (const [username, permission] of planned.collaborators) await ctx.collaborators.set(repo, owner, username, permission);
    const branches = await writeBranches(ctx, repo, owner, planned);
    for (const label of planned.labels) await ctx.labels.create(repo, owner, label);
    await writeConversations(ctx, repo, owner, planned);
    for (const hook of planned.hooks) await ctx.webhooks.create(repo, owner, { url: hook.url, events: hook.events, secret: hook.secret, content_type: hook.contentType, active: hook.active });
    repositories.push({ full_name: `${repo.owner_name}/${repo.name}`, branches });
  }
  const apps: FixtureResult['apps'] = [];
  for (const planned of plan.apps) {
    const { app, privateKey } = await ctx.apps.create(planned.input);
    // Built from entries: an account may be named '__proto__', which an assignment would not keep.
    const installed: Array<[string, number]> = [];
    for (const { account, repositories: names } of planned.installations) installed.push([account, (await ctx.apps.install(app.slug, account, names)).id]);
    const installations: Record<string, number> = Object.fromEntries(installed);
    apps.push({ id: app.id, slug: app.slug, privateKey, installations });
  }
  return { users: plan.users.map((user) => user.username), repositories, apps };
}

/** Commits every branch straight into the repository, then records the new refs the way a push is recorded. */
async function writeBranches(ctx: AppContext, repo: RepositoryRow, owner: UserRow, planned: PlannedRepository): Promise<Record<string, string>> {
  if (planned.branches.length === 0) return {};
  const gitDir = ctx.git.pathOf(repo.owner_name, repo.name);
  const intent = await ctx.refUpdates.intend(repo);
  const before = await ctx.git.refsOf(repo.owner_name, repo.name);
  // The whole history in one run: each commit's parent is the one before it, or the tip of the branch it starts from.
  const history: HistoryCommit[] = [];
  const tips = new Map<string, number>();
  for (const branch of planned.branches) {
    let tip = branch.from === undefined ? undefined : tips.get(branch.from);
    for (const commit of branch.commits) tip = history.push({ parent: tip, ...commit }) - 1;
    tips.set(branch.name, tip!);
  }
  const ids = await importCommits(gitDir, history);
  for (const [branch, tip] of tips) await updateRef(gitDir, `refs/heads/${branch}`, ids[tip]!, null, 'repohost fixtures');
  await setHeadBranch(gitDir, planned.defaultBranch!);
  // The default branch goes first, as it would be pushed first: HEAD (and the recorded default branch) follow it.
  const changes = diffRefs(before, await ctx.git.refsOf(repo.owner_name, repo.name));
  changes.sort((a, b) => Number(b.ref === `refs/heads/${planned.defaultBranch}`) - Number(a.ref === `refs/heads/${planned.defaultBranch}`));
  const headBranch = await ctx.git.afterPush(repo.owner_name, repo.name, changes);
  await ctx.refUpdates.recordChanges((await ctx.repos.findByName(repo.owner_name, repo.name))!, changes, headBranch, owner, intent);
  return Object.fromEntries([...tips].map(([branch, tip]) => [branch, ids[tip]!]));
}

async function writeConversations(ctx: AppContext, repo: RepositoryRow, owner: UserRow, planned: PlannedRepository): Promise<void> {
  const user = async (username: string) => await ctx.users.requireByName(username);
  for (const planIssue of planned.issues) {
    const issue = await ctx.issues.create(repo, await user(planIssue.author), { title: planIssue.title, body: planIssue.body });
    if (planIssue.labels.length > 0) await ctx.labels.setOnIssue(repo, owner, issue, planIssue.labels, true);
    for (const comment of planIssue.comments) await ctx.issues.comment(repo, issue.id, await user(comment.author), comment.body);
    if (planIssue.closed) await ctx.issues.update(repo, owner, issue.id, { status: 'closed' });
  }
  for (const planPull of planned.pulls) {
    const pull = await ctx.pulls.create(repo, await user(planPull.author), { title: planPull.title, description: planPull.body, head: planPull.head, base: planPull.base });
    for (const comment of planPull.comments) await ctx.pullComments.comment(repo, pull.id, await user(comment.author), comment.body);
    if (planPull.closed) await ctx.pulls.update(repo, owner, pull.id, { status: 'closed' });
  }
}
