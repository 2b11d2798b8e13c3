/**
 * Names git's own `verify_path` refuses as `.git` (read-cache.c, with `core.protectHFS` and `core.protectNTFS`, and
 * fsck's `hasDotgit` that receive-pack applies with `receive.fsckObjects`): a clone of a tree holding one either fails
 * at checkout or, on a client with the protection off, writes into its own `.git` folder (issue 38).
 * - `.git` in any case;
 * - HFS+: `.git` with Unicode code points HFS+ ignores inside it (zero-width joiners, direction marks, BOM);
 * - NTFS: `.git` or its short name `git~1` followed by dots or spaces (which NTFS drops) and an optional `:stream`,
 *   also after a backslash, a folder separator there.
 */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
const NTFS_DOT_GIT = /^(?:\.git|git~1)[. ]*(?::.*)?$/i;

/**
 * The git settings that check every object a repository receives (a push, an import, a seed fetch), as GitHub
 * checks pushes: strict fsck, which refuses trees naming `.git` in any of the spellings above (`hasDotgit`) besides
 * malformed commits, trees and modes, with git's own message.
 */
export const CHECK_RECEIVED_OBJECTS: readonly string[] = ['-c', 'transfer.fsckObjects=true'];

/** Whether one name of a path (between slashes) is one that a checkout would take for `.git`. */
export function isDotGitName(name: string): boolean {
  if (name.replace(HFS_IGNORED, '').toLowerCase() === '.git') return true;
  return name.split('\\').some((part) => NTFS_DOT_GIT.test(part));
}
