/**
 * The Node.js releases repohost runs on (issue 39): the LTS lines 22 (maintenance) and 24 (active), and later ones;
 * package.json's `engines` says the same, and CI runs the suite on 24 and 22. 22.12 is the first 22 release the
 * toolchain supports (rolldown and eslint need it); repohost itself relies on `process.getBuiltinModule` (22.3) in
 * its worker threads and on `module.enableCompileCache` (22.1) in its command.
 */
export const MINIMUM_NODE = [22, 12] as const;

/** Why this Node.js cannot run repohost, or undefined when it can. */
export function unsupportedNode(version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1])) return undefined;
  return `repohost needs Node.js ${MINIMUM_NODE.join('.')} or later (the LTS lines 22 and 24 are supported); this is Node.js ${version}`;
}
