import type { ReadTx, WriteTx } from '../interface.js';
import { takeId } from './id-sequences.js';
import type { PageWindow } from './page-window.js';

/** A public SSH key: a user's (`user_id`) or a repository's deploy key (`repo_id`), one of the two. */
export interface SshKeyRow {
  id: number;
  user_id: number | null;
  repo_id: number | null;
  title: string;
  /** `<type> <base64>`, as OpenSSH writes it, without the comment. */
  key: string;
  /** OpenSSH's `SHA256:…` fingerprint; unique over every key of the host. */
  fingerprint: string;
  read_only: number;
  created_at: string;
}

const COLUMNS = 'id, user_id, repo_id, title, key, fingerprint, read_only, created_at';

export async function sshKeyByFingerprint(db: ReadTx, fingerprint: string): Promise<SshKeyRow | undefined> {
  return await db.get<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE fingerprint = ?`, [fingerprint]);
}

export async function userSshKey(db: ReadTx, userId: number, id: number): Promise<SshKeyRow | undefined> {
  return await db.get<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE id = ? AND user_id = ?`, [id, userId]);
}

export async function userSshKeys(db: ReadTx, userId: number, page: PageWindow): Promise<SshKeyRow[]> {
  return await db.all<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?`, [userId, page.limit, page.offset]);
}

export async function countUserSshKeys(db: ReadTx, userId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ssh_keys WHERE user_id = ?', [userId]))!.n;
}

export async function deployKey(db: ReadTx, repoId: number, id: number): Promise<SshKeyRow | undefined> {
  return await db.get<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE id = ? AND repo_id = ?`, [id, repoId]);
}

export async function deployKeys(db: ReadTx, repoId: number, page: PageWindow): Promise<SshKeyRow[]> {
  return await db.all<SshKeyRow>(`SELECT ${COLUMNS} FROM ssh_keys WHERE repo_id = ? ORDER BY id LIMIT ? OFFSET ?`, [repoId, page.limit, page.offset]);
}

export async function countDeployKeys(db: ReadTx, repoId: number): Promise<number> {
  return (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ssh_keys WHERE repo_id = ?', [repoId]))!.n;
}

export interface NewSshKey {
  owner: { user_id: number } | { repo_id: number; read_only: boolean };
  title: string;
  key: string;
  fingerprint: string;
  created_at: string;
}

/** Inserts the key; undefined when its fingerprint is already in use (by anyone). */
export async function insertSshKey(tx: WriteTx, key: NewSshKey): Promise<SshKeyRow | undefined> {
  if (await tx.get('SELECT 1 AS found FROM ssh_keys WHERE fingerprint = ?', [key.fingerprint])) return undefined;
  const userId = 'user_id' in key.owner ? key.owner.user_id : null;
  const repoId = 'repo_id' in key.owner ? key.owner.repo_id : null;
  const readOnly = 'read_only' in key.owner && key.owner.read_only ? 1 : 0;
  const inserted = await tx.run<SshKeyRow>(
    `INSERT INTO ssh_keys (id, user_id, repo_id, title, key, fingerprint, read_only, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    [await takeId(tx, 'ssh_key'), userId, repoId, key.title, key.key, key.fingerprint, readOnly, key.created_at],
  );
  return inserted.rows[0];
}

export async function deleteSshKey(tx: WriteTx, id: number): Promise<boolean> {
  return (await tx.run('DELETE FROM ssh_keys WHERE id = ?', [id])).changes > 0;
}
