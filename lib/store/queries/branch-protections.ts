import type { ReadTx, WriteTx } from '../interface.js';

export interface BranchProtectionRow {
  id: number;
  pattern: string;
  allow_force_push: number;
  allow_deletion: number;
  require_pull_request: number;
  /** JSON array of context names. */
  required_status_contexts: string;
  /** JSON array of usernames. */
  push_allowlist: string;
  /** 0 when admins of the repository are not held to the rule. */
  enforce_admins: number;
  /** Approving reviews a merge needs (0: none). */
  required_approvals: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, pattern, allow_force_push, allow_deletion, require_pull_request, required_status_contexts, push_allowlist, enforce_admins, required_approvals, created_at, updated_at';

/** Every rule of a repository (a handful at most), by pattern. */
export async function protectionsOf(db: ReadTx, repoId: number): Promise<BranchProtectionRow[]> {
  return await db.all<BranchProtectionRow>(`SELECT ${COLUMNS} FROM branch_protections WHERE repo_id = ? ORDER BY pattern`, [repoId]);
}

export async function protectionByPattern(db: ReadTx, repoId: number, pattern: string): Promise<BranchProtectionRow | undefined> {
  return await db.get<BranchProtectionRow>(`SELECT ${COLUMNS} FROM branch_protections WHERE repo_id = ? AND pattern = ?`, [repoId, pattern]);
}

export interface ProtectionFields {
  allowForcePush: boolean;
  allowDeletion: boolean;
  requirePullRequest: boolean;
  requiredStatusContexts: string[];
  pushAllowlist: string[];
  enforceAdmins: boolean;
  requiredApprovals: number;
}

export async function upsertProtection(tx: WriteTx, repoId: number, pattern: string, fields: ProtectionFields, now: string): Promise<void> {
  await tx.run(
    `INSERT INTO branch_protections (repo_id, pattern, allow_force_push, allow_deletion, require_pull_request, required_status_contexts, push_allowlist,
       enforce_admins, required_approvals, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (repo_id, pattern) DO UPDATE SET allow_force_push = excluded.allow_force_push, allow_deletion = excluded.allow_deletion,
       require_pull_request = excluded.require_pull_request, required_status_contexts = excluded.required_status_contexts,
       push_allowlist = excluded.push_allowlist, enforce_admins = excluded.enforce_admins, required_approvals = excluded.required_approvals,
       updated_at = excluded.updated_at`,
    [
      repoId,
      pattern,
      fields.allowForcePush ? 1 : 0,
      fields.allowDeletion ? 1 : 0,
      fields.requirePullRequest ? 1 : 0,
      JSON.stringify(fields.requiredStatusContexts),
      JSON.stringify(fields.pushAllowlist),
      fields.enforceAdmins ? 1 : 0,
      fields.requiredApprovals,
      now,
      now,
    ],
  );
}

export async function deleteProtection(tx: WriteTx, repoId: number, pattern: string): Promise<boolean> {
  return (await tx.run('DELETE FROM branch_protections WHERE repo_id = ? AND pattern = ?', [repoId, pattern])).changes > 0;
}
