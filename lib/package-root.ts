import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder above `from` that holds a package.json. */
function packageRootAbove(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/**
 * The package's folder (the checkout, or the installed package), wherever this code runs from: the sources (`lib/`),
 * the compiled tree (`dist/`) or the bundle (`dist/bundle/`, see build.mjs), each a different depth below it.
 */
export const PACKAGE_ROOT = packageRootAbove(dirname(fileURLToPath(import.meta.url)));
