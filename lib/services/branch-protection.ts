import type { Db, ReadTx } from '../store/interface.js';
import { invalid, notFound } from '../errors.js';
import { deleteProtection, protectionByPattern, protectionsOf, upsertProtection, type BranchProtectionRow } from '../store/queries/branch-protections.js';
import type { PushRule } from '../git/push-rules.js';
import type { RepositoryRow } from '../store/queries/repositories.js';
import { accessLevel, requireAccess, type Viewer } from './permissions.js';
import { writeToRepository } from './repository-write.js';
import { optionalFlag } from './text-fields.js';

/** A protection rule of the API. */
export interface BranchProtection {
  branch: string;
  allow_force_push: boolean;
  allow_deletion: boolean;
  require_pull_request: boolean;
  required_status_contexts: string[];
  push_allowlist: string[];
  /** Whether admins of the repository are held to the rule too (GitHub's `enforce_admins`; the default). */
  enforce_admins: boolean;
  /** Approving reviews (by accounts with write access) a merge into the branch needs; 0 for none. */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}

export interface ProtectionInput {
  allow_force_push?: unknown;
  allow_deletion?: unknown;
  require_pull_request?: unknown;
  required_status_contexts?: unknown;
  push_allowlist?: unknown;
  enforce_admins?: unknown;
  required_approvals?: unknown;
}


const PATTERN = /^[A-Za-z0-9._/*-]{1,255}$/;

function names(name: string, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.trim() && item.length <= 255)) {
    throw invalid(`${name} must be a list of names`);
  }
  return [...new Set(value.map((item: string) => item.trim()))];
}

/** GitHub's range of required approving reviews: 0 to 6. */
function approvals(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 6) throw invalid('required_approvals must be a whole number from 0 to 6');
  return value as number;
}

/** A rule's input checked and with its defaults, as the store keeps it. */
function fieldsOf(input: ProtectionInput) {
  return {
    allowForcePush: optionalFlag('allow_force_push', input.allow_force_push, false),
    allowDeletion: optionalFlag('allow_deletion', input.allow_deletion, false),
    requirePullRequest: optionalFlag('require_pull_request', input.require_pull_request, false),
    requiredStatusContexts: names('required_status_contexts', input.required_status_contexts),
    pushAllowlist: names('push_allowlist', input.push_allowlist),
    enforceAdmins: optionalFlag('enforce_admins', input.enforce_admins, true),
    requiredApprovals: approvals(input.required_approvals),
  };
}

/** A branch glob as a regular expression: `*` within one path segment, `**` across segments, the rest literal. */
function globSource(pattern: string): string {
  const parts = pattern.split(/(\*\*|\*)/).map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')));
  return `^${parts.join('')}$`;
}

function summary(row: BranchProtectionRow): BranchProtection {
  return {
    branch: row.pattern,
    allow_force_push: row.allow_force_push === 1,
    allow_deletion: row.allow_deletion === 1,
    require_pull_request: row.require_pull_request === 1,
    required_status_contexts: JSON.parse(row.required_status_contexts) as string[],
    push_allowlist: JSON.parse(row.push_allowlist) as string[],
    enforce_admins: row.enforce_admins === 1,
    required_approvals: row.required_approvals,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Protected branches: rules per branch name or glob, managed with admin access. Pushes are checked by git's update
 * hook with the rules this service hands out for the pusher; merges through the API check required statuses here.
 */
export class BranchProtectionService {
  /** Pushes admitted with no rule to check (see admitWithoutRules), by repository: a rule being made waits for them. */
  readonly #admitted = new Map<number, Set<Promise<void>>>();

  constructor(
    private readonly store: Db,
    private readonly now: () => string,
  ) {}

  /**
   * Admits a push of `pusher` whose whole body has arrived with no rule to check, when none applies to it now, and
   * returns what ends it (called once it is over); undefined when a rule applies (its hook checks them). A rule made
   * meanwhile answers only once such pushes are over (git's work on them: their bodies were whole), so a push is
   * either checked against a rule or done before the rule is in force.
   */
  async admitWithoutRules(repo: RepositoryRow, pusher: Viewer): Promise<(() => void) | undefined> {
    let settle!: () => void;
    const running = new Promise<void>((resolve) => (settle = resolve));
    const admitted = this.#admitted.get(repo.id) ?? new Set<Promise<void>>();
    admitted.add(running);
    this.#admitted.set(repo.id, admitted);
    const end = () => {
      settle();
      admitted.delete(running);
      if (admitted.size === 0 && this.#admitted.get(repo.id) === admitted) this.#admitted.delete(repo.id);
    };
    // Registered before the rules are read: a rule written after this read waits for the push.
    const rules = await this.pushRules(repo, pusher).catch((error: unknown) => {
      end();
      throw error;
    });
    if (rules.length === 0) return end;
    end();
    return undefined;
  }

  async list(repo: RepositoryRow, viewer: Viewer): Promise<BranchProtection[]> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Branch protection needs admin access');
    return (await protectionsOf(this.store, repo.id)).map(summary);
  }

  async set(repo: RepositoryRow, viewer: Viewer, pattern: string, input: ProtectionInput): Promise<BranchProtection> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Branch protection needs admin access');
    if (!PATTERN.test(pattern) || pattern.includes('..')) throw invalid('branch must be a branch name or a glob such as release/*');
    const fields = fieldsOf(input);
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => await upsertProtection(tx, repo.id, pattern, fields, now));
    return await this.inForce(repo, pattern);
  }

  /**
   * Changes the rule that covers `branch` (GitHub's protection sub-resources): `edit` is given that rule inside the
   * write and answers the rule to keep under the branch's own name, so edits racing each other each see the other's.
   */
  async change(repo: RepositoryRow, viewer: Viewer, branch: string, edit: (current: BranchProtection) => ProtectionInput): Promise<BranchProtection> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Branch protection needs admin access');
    const now = this.now();
    await writeToRepository(this.store, repo, async (tx) => {
      const current = (await this.rulesOf(repo, tx))(branch);
      if (!current) throw notFound('Branch not protected');
      await upsertProtection(tx, repo.id, branch, fieldsOf(edit(current)), now);
    });
    return await this.inForce(repo, branch);
  }

  /** A rule just written, once in force: after the pushes admitted without a rule are over (see admitWithoutRules). */
  private async inForce(repo: RepositoryRow, pattern: string): Promise<BranchProtection> {
    await Promise.all([...(this.#admitted.get(repo.id) ?? new Set<Promise<void>>())]);
    return summary((await protectionByPattern(this.store, repo.id, pattern))!);
  }

  async remove(repo: RepositoryRow, viewer: Viewer, pattern: string): Promise<void> {
    await requireAccess(this.store, viewer, repo, 'admin', 'Branch protection needs admin access');
    const removed = await writeToRepository(this.store, repo, async (tx) => await deleteProtection(tx, repo.id, pattern));
    if (!removed) throw notFound('Branch protection not found');
  }

  /** The rule that covers a branch: its exact name first, else the longest matching glob. */
  async ruleFor(repo: RepositoryRow, branch: string): Promise<BranchProtection | undefined> {
    return (await this.rulesOf(repo))(branch);
  }

  /** `ruleFor` for many branches (a list of them), the rules read once (through `db` inside a transaction). */
  async rulesOf(repo: RepositoryRow, db: ReadTx = this.store): Promise<(branch: string) => BranchProtection | undefined> {
    const rows = await protectionsOf(db, repo.id);
    return (branch) => {
      const exact = rows.find((row) => row.pattern === branch);
      const glob = rows.filter((row) => row.pattern.includes('*') && new RegExp(globSource(row.pattern)).test(branch)).sort((a, b) => b.pattern.length - a.pattern.length)[0];
      const row = exact ?? glob;
      return row ? summary(row) : undefined;
    };
  }

  /** The rules of a repository as they apply to one pusher (git's update hook enforces them per ref). */
  async pushRules(repo: RepositoryRow, pusher: Viewer): Promise<PushRule[]> {
    // The hook takes the first rule that matches: exact names first, then the longest glob, as `ruleFor` decides.
    const rows = (await protectionsOf(this.store, repo.id)).sort((a, b) => Number(a.pattern.includes('*')) - Number(b.pattern.includes('*')) || b.pattern.length - a.pattern.length);
    // A rule that spares admins (GitHub's `enforce_admins: false`) still covers its branches, allowing them everything.
    const admin = rows.some((row) => row.enforce_admins === 0) && (await accessLevel(this.store, pusher, repo)) === 'admin';
    return rows.map((row) => {
      if (admin && row.enforce_admins === 0) return { branches: globSource(row.pattern), pattern: row.pattern, allowForcePush: true, allowDeletion: true, allowPush: true, requiredChecks: [] };
      const rule = summary(row);
      const allowlisted = pusher !== undefined && rule.push_allowlist.some((name) => name.toLowerCase() === pusher.username.toLowerCase());
      return {
        branches: globSource(row.pattern),
        pattern: row.pattern,
        allowForcePush: rule.allow_force_push,
        allowDeletion: rule.allow_deletion,
        allowPush: !rule.require_pull_request || allowlisted,
        requiredChecks: rule.required_status_contexts,
      };
    });
  }
}
