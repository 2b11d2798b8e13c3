import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

// Issue 20: what README and the guides in docs/ point a harness author at ships in the npm package, the guides too
// (issue 40).
describe('the npm package', () => {
  it('holds every example README and docs/ name, and the guides themselves', async () => {
    const guides = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
    const readme = (await Promise.all(['README.md', ...guides].map((path) => readFile(join(ROOT, path), 'utf8')))).join('\n');
    const named = [...new Set([...readme.matchAll(/`(examples\/[^`\s]+)`/g)].map((match) => match[1]!.replace(/\/$/, '')))];
    expect(named.length).toBeGreaterThan(3);
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const packed = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
    for (const path of [...named, ...guides]) expect(packed.some((file) => file === path || file.startsWith(`${path}/`)), `${path} is in the package`).toBe(true);
    // Nothing of an example's own dependencies or caches goes with it.
    expect(packed.filter((file) => file.includes('node_modules'))).toEqual([]);
  });

  // Issue 23: the package runs from the bundle, with the type declarations beside it and the fresh schema's image;
  // the compiled tree's modules stay out (the bundle holds them).
  it('holds the bundle, the CLI, the types and the image of this schema version, and not the unbundled modules', async () => {
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    const packed = (JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((file) => file.path);
    const { FRESH_SCHEMA_VERSION } = await import('../../lib/store/fresh-schema.js');
    for (const path of ['bin/repohost', 'dist/bundle/index.js', 'dist/bundle/cli.js', 'dist/index.d.ts', `dist/fresh-image-v${FRESH_SCHEMA_VERSION}.sqlite`]) expect(packed, path).toContain(path);
    expect(packed.filter((file) => /^dist\/(?!bundle\/).*\.js$/.test(file))).toEqual([]);
    expect(packed.filter((file) => /fresh-image-v\d+\.sqlite$/.test(file))).toEqual([`dist/fresh-image-v${FRESH_SCHEMA_VERSION}.sqlite`]);
  });
});
