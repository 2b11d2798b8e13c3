import { isAbsolute, relative, resolve, sep } from 'node:path';
import { invalid } from '../errors.js';

const NAME_RE = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * True when `name` is safe as one path segment under the repositories folder: letters, digits,
 * `-`, `_`, `.`, at most 100 characters, no leading dot or dash, no `..`, no `.git` suffix (it would
 * clash with the `<name>.git` folder naming).
 */
export function isSafeName(name: string): boolean {
  return (
    NAME_RE.test(name) &&
    !name.startsWith('.') &&
    !name.startsWith('-') &&
    !name.includes('..') &&
    !name.toLowerCase().endsWith('.git')
  );
}

/** Resolves `<root>/<owner>/<name>.git`, refusing anything that could leave `root`. */
export function repositoryPath(root: string, owner: string, name: string): string {
  if (!isSafeName(owner)) throw invalid('invalid owner name');
  if (!isSafeName(name)) throw invalid('invalid repository name');
  const base = resolve(root);
  const path = resolve(base, owner, `${name}.git`);
  const rel = relative(base, path);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).length !== 2) throw invalid('invalid repository name');
  return path;
}

/**
 * True when `branch` is a branch name git would accept (the rules of `git check-ref-format`),
 * checked here so it can be put after `refs/heads/` in an argument without being read as an option.
 */
export function isSafeBranchName(branch: string): boolean {
  if (!branch || branch.length > 250) return false;
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.')) return false;
  if (branch.includes('..') || branch.includes('//') || branch.includes('@{') || branch === '@') return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(branch)) return false;
  return branch.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * Normalises a folder path inside a tree ('' for the top level); null when it is not a plain
 * relative path (absolute, `..`, `.` segments, control characters).
 */
export function normaliseTreePath(path: string | undefined): string | null {
  if (path === undefined) return '';
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  if (/[\x00-\x1f\x7f]/.test(trimmed) || trimmed.length > 4096) return null;
  const parts = trimmed.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..')) return null;
  return parts.join('/');
}
