import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AppContext } from '../context.js';
import { invalid } from '../errors.js';
import { gitEnvDate } from '../git/objects.js';
import { diffRefs } from '../git/refs.js';
import { isGitError, runGit } from '../git/run-git.js';
import { CHECK_RECEIVED_OBJECTS } from '../git/dot-git.js';
import type { RepositorySummary } from '../services/repos.js';

export interface AdminSeedInput {
  owner: string;
  name: string;
  /** A folder (committed as one commit of its files), or a git URL or repository path (all branches and tags imported). */
  from?: string;
  /** Used only when the repository is created. */
  private?: boolean;
  description?: string;
}

export interface SeedResult {
  repository: RepositorySummary;
  /** False when the repository already existed. */
  created: boolean;
  /** Refs the seed created or moved. */
  refsUpdated: string[];
}

const SEED_AUTHOR = { GIT_AUTHOR_NAME: 'repohost', GIT_AUTHOR_EMAIL: 'repohost@localhost', GIT_COMMITTER_NAME: 'repohost', GIT_COMMITTER_EMAIL: 'repohost@localhost' };
const IMPORT_TIMEOUT_MS = 600_000;
// Transports a seed may use; never ext:: or fd:: (they run commands).
const SOURCE_PROTOCOLS = { GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh' };

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** A folder that is a git repository (with a work tree or bare) is imported, not committed as files. */
async function isGitRepository(dir: string): Promise<boolean> {
  if (await stat(join(dir, '.git')).catch(() => undefined)) return true;
  return (await isDirectory(join(dir, 'objects'))) && (await stat(join(dir, 'HEAD')).catch(() => undefined)) !== undefined;
}

const looksLikeGitUrl = (from: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(from) || /^[^/\s]+@[^/\s]+:/.test(from);

/**
 * Commits the files of `dir` (its .gitignore honoured) as one commit on `branch`, straight into the bare
 * repository through a temporary index: no clone, no push, and the ref moves only if nobody moved it meanwhile.
 */
async function commitFolder(gitDir: string, dir: string, branch: string, message: string, date: Date): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'repohost-seed-'));
  try {
    // Dated by the host's clock, like every commit the host makes.
    const when = gitEnvDate(date.toISOString());
    const env = { ...SEED_AUTHOR, GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when, GIT_WORK_TREE: dir, GIT_INDEX_FILE: join(scratch, 'index') };
    await runGit(['add', '--all', '.'], { gitDir, cwd: dir, env });
    const tree = (await runGit(['write-tree'], { gitDir, cwd: dir, env })).stdout.toString('utf8').trim();
    const ref = `refs/heads/${branch}`;
    const parent = (await runGit(['rev-parse', '-q', '--verify', `${ref}^{commit}`], { gitDir }).catch(() => undefined))?.stdout.toString('utf8').trim();
    const commit = (await runGit(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { gitDir, env })).stdout.toString('utf8').trim();
    await runGit(['update-ref', '-m', 'repohost seed', ref, commit, parent ?? ''], { gitDir });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Fetches every branch and tag; returns the branch the source's HEAD names, if it tells. */
async function importAll(gitDir: string, source: string): Promise<string | undefined> {
  // No '+': an existing branch only moves forward; the import never rewrites history that is already here.
  await runGit([...CHECK_RECEIVED_OBJECTS, 'fetch', '--quiet', '--update-head-ok', '--', source, 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*'], {
    gitDir,
    timeoutMs: IMPORT_TIMEOUT_MS,
    env: SOURCE_PROTOCOLS,
  });
  const remoteHead = await runGit(['ls-remote', '--symref', '--', source, 'HEAD'], { gitDir, timeoutMs: IMPORT_TIMEOUT_MS, env: SOURCE_PROTOCOLS }).catch(
    () => undefined,
  );
  return /^ref: (refs\/heads\/\S+)\tHEAD$/m.exec(remoteHead?.stdout.toString('utf8') ?? '')?.[1];
}

/**
 * Creates the repository if missing and fills it: from a folder as one commit of its files, from a git URL or
 * repository path as an import of all branches and tags, or with no source a README commit. The branches are
 * then recorded like after a push.
 */
export async function seedRepository(ctx: AppContext, input: AdminSeedInput): Promise<SeedResult> {
  const git = ctx.git;
  const owner = await ctx.users.requireByName(input.owner);
  let repo = await ctx.repos.findByName(owner.username, input.name);
  const created = !repo;
  repo ??= await ctx.repos.create(owner, { name: input.name, description: input.description, visibility: input.private ? 'private' : 'public' });
  const gitDir = git.pathOf(repo.owner_name, repo.name);
  const intent = await ctx.refUpdates.intend(repo);
  const before = await git.refsOf(repo.owner_name, repo.name);
  const branch = await git.headBranch(repo.owner_name, repo.name);
  let sourceHead: string | undefined;
  try {
    if (input.from === undefined || input.from === '') {
      const scratch = await mkdtemp(join(tmpdir(), 'repohost-readme-'));
      try {
        const about = repo.description || 'Seeded by repohost.';
        await writeFile(join(scratch, 'README.md'), `# ${repo.name}\n\n${about}\n`);
        await commitFolder(gitDir, scratch, branch, 'Initial commit', ctx.options.now());
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    } else if (looksLikeGitUrl(input.from)) {
      sourceHead = await importAll(gitDir, input.from);
    } else {
      const dir = resolve(input.from);
      if (!(await isDirectory(dir))) throw invalid(`--from ${input.from}: not a directory or git URL`);
      if (await isGitRepository(dir)) sourceHead = await importAll(gitDir, dir);
      else await commitFolder(gitDir, dir, branch, 'Initial commit', ctx.options.now());
    }
  } catch (error) {
    // Whatever moved before the failure is compared with the records once nothing else runs on the repository.
    await intent.close(false);
    if (isGitError(error)) throw invalid(`seeding ${repo.owner_name}/${repo.name} failed: ${(error.stderr.trim().split('\n').pop() ?? error.message).replace(/^(fatal|error): /, '')}`);
    throw error;
  }
  const changes = diffRefs(before, await git.refsOf(repo.owner_name, repo.name));
  // Into a repository without branches the source's default branch goes first: HEAD (and with it the recorded
  // default branch) follows the first branch of a push.
  const hadBranches = [...before.keys()].some((ref) => ref.startsWith('refs/heads/'));
  if (!hadBranches && sourceHead) changes.sort((a, b) => Number(b.ref === sourceHead) - Number(a.ref === sourceHead));
  const headBranch = await git.afterPush(repo.owner_name, repo.name, changes);
  await ctx.refUpdates.recordChanges(repo, changes, headBranch, undefined, intent);
  const current = (await ctx.repos.findByName(owner.username, repo.name))!;
  return { repository: await ctx.repos.summary(current), created, refsUpdated: changes.map((change) => change.ref) };
}
